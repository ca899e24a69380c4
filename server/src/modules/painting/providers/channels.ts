import type { Channel } from '../../../replies/channels.js'
import { type ChannelPool, failover, onChannel, taskChannelId } from '../../../replies/channels-pool.js'
import type { PaintingProvider, PaintingUpdate, SubmitContext, SubmitResult } from './provider.js'
import { ProviderError } from './provider.js'

/**
 * midjourney-proxy behind its channels (kind `midjourney`): a new task goes to the first channel in
 * the pool's order, and a 429, a 5xx or a refused connection moves it to the next one before any
 * upstream took it (the task is charged once, at create, whatever the number of tries). The task
 * saves the channel that took it; its polls and its actions (U, V, zoom …, which name the parent's
 * upstream id) go to that channel and nowhere else.
 */
const retryable = (error: unknown) => error instanceof ProviderError && error.retryable

/** The channel a task (or the parent of an action) was taken by; a Chinese error when it is gone. */
async function channelOf(pool: ChannelPool, id: number | null): Promise<Channel> {
  const channel = await pool.find(id)
  if (!channel) throw new ProviderError('原任务所在的绘画渠道已被删除，无法继续操作')
  return channel
}

export function createChannelPainter(pool: ChannelPool, make: (channel: Channel, key: string | undefined) => PaintingProvider): PaintingProvider {
  const none = () => new ProviderError('没有可用的绘画渠道，请联系管理员')
  const on = async <T>(id: number | null, call: (provider: PaintingProvider) => Promise<T>): Promise<T> => {
    const channel = await channelOf(pool, id)
    return onChannel(pool, channel, (key) => call(make(channel, key)), retryable)
  }
  const first = async () => {
    const [channel] = await pool.order()
    if (!channel) throw none()
    return make(channel, pool.key(channel))
  }
  return {
    name: 'midjourney-proxy',
    demo: false,
    available: async () => (await pool.order()).length > 0,
    async submit(ctx: SubmitContext): Promise<SubmitResult> {
      const parent = 'parent' in ctx.job ? ctx.job.parent : undefined
      if (parent) {
        // An action on a task lives where the task is.
        const channel = await channelOf(pool, parent.channelId)
        const result = await onChannel(pool, channel, (key) => make(channel, key).submit(ctx), retryable)
        return { ...result, channelId: taskChannelId(channel) }
      }
      const { value, channel } = await failover(pool, (c, key) => make(c, key).submit(ctx), { retryable, none })
      return { ...value, channelId: taskChannelId(channel) }
    },
    async features() {
      try {
        const provider = await first()
        return (await provider.features?.()) ?? { actions: false, shorten: false, faceSwap: false }
      } catch {
        return { actions: false, shorten: false, faceSwap: false }
      }
    },
    async fetch(ids, channelId = null) {
      if (ids.length === 0) return new Map<string, PaintingUpdate>()
      return on(channelId, (provider) => provider.fetch?.(ids) ?? Promise.resolve(new Map<string, PaintingUpdate>()))
    }
  }
}
