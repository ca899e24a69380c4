import type { Channel } from '../../replies/channels.js'
import { type ChannelPool, failover, onChannel, taskChannelId } from '../../replies/channels-pool.js'
import { type MusicProvider, MusicProviderError } from './provider.js'

/**
 * suno-api behind its channels (kind `suno`): a request (and a lyrics draft) goes to the first channel
 * in the pool's order, and a 429, a 5xx or a refused connection moves it to the next before any
 * upstream took it — the request was charged once, before, and is refunded once if every channel
 * fails. The task saves the channel that took it, and its polls go there.
 */
const retryable = (error: unknown) => error instanceof MusicProviderError && error.retryable

export function createChannelMusic(pool: ChannelPool, make: (channel: Channel, key: string | undefined) => MusicProvider): MusicProvider {
  const none = () => new MusicProviderError('upstream', '没有可用的音乐渠道，请联系管理员')
  const submit: NonNullable<MusicProvider['submit']> = async (input) => {
    const { value, channel } = await failover(pool, (c, key) => make(c, key).generate(input), { retryable, none })
    return { clips: value, channelId: taskChannelId(channel) }
  }
  return {
    kind: 'suno',
    demo: false,
    available: async () => (await pool.order()).length > 0,
    submit,
    generate: async (input) => (await submit(input)).clips,
    async get(ids, channelId = null) {
      const channel = await pool.find(channelId)
      if (!channel) throw new MusicProviderError('upstream', '这首歌所在的音乐渠道已被删除')
      return onChannel(pool, channel, (key) => make(channel, key).get(ids), retryable)
    },
    async lyrics(prompt) {
      return (await failover(pool, (c, key) => make(c, key).lyrics(prompt), { retryable, none })).value
    },
    async download(url, kind, channelId = null) {
      // Files are fetched from the URL the upstream gave (no key): any channel's client does — the
      // request's own first, which is there even when it (and every other) was disabled since.
      const channel = (await pool.find(channelId)) ?? (await pool.order())[0]
      if (!channel) throw none()
      return make(channel, undefined).download(url, kind)
    }
  }
}
