import type { Logger } from '../logger.js'

/**
 * The channels of one painting or music kind (Channels.pool): the same order as chat's (priority,
 * then weight; cooling ones last), the same health (channels-health.ts), and failover() for a submit.
 */
export const CHANNEL_KINDS = ['openai', 'midjourney', 'sd', 'suno'] as const
export type ChannelKind = (typeof CHANNEL_KINDS)[number]

/** Ids of the env's channel of each kind (stored channels count from 1). */
export const ENV_IDS: Record<ChannelKind, number> = { openai: 0, midjourney: -1, sd: -2, suno: -3 }

/** The env variables behind each kind's env channel. */
export const ENV_LABELS: Record<ChannelKind, string> = { openai: 'OPENAI_*', midjourney: 'MJ_PROXY_URL', sd: 'A1111_URL', suno: 'SUNO_API_URL' }

/** An upstream configured by env variables: MJ_PROXY_URL + MJ_API_SECRET, A1111_URL + A1111_AUTH, SUNO_API_URL + SUNO_API_KEY. */
export interface EnvUpstream {
  baseUrl: string
  key: string | undefined
}

export interface Channel {
  /** Stored: upstream_channels.id; env: ENV_IDS of its kind (0 or negative). */
  id: number
  kind: ChannelKind
  name: string
  baseUrl: string
  keys: string[]
  keyHints: string[]
  /** Chat only: the upstream model names it serves (empty: every model). */
  models: string[]
  priority: number
  weight: number
  enabled: boolean
  /** `env`: OPENAI_* (MJ_PROXY_URL, A1111_URL, SUNO_API_URL) while none of its kind is stored, used as is. */
  source: 'db' | 'env'
  updatedAt: number
}

export interface ChannelPool {
  kind: ChannelKind
  /** Enabled channels of the kind in the order to try: healthy ones by priority and weight, cooling ones last. */
  order(): Promise<Channel[]>
  /**
   * The channel a task was taken by (enabled or not: its tasks still finish there); `null` (a task saved
   * without one): the env's upstream, else the first in order. Undefined when it was deleted.
   */
  find(id: number | null): Promise<Channel | undefined>
  /** One of its keys (chosen at random), undefined when it has none. */
  key(channel: Channel): string | undefined
  record(id: number, call: { ok: boolean; latencyMs: number }): void
  logger: Logger
  now: () => number
}

/** What a task saves of its channel: null for the env's (it has no row). */
export const taskChannelId = (channel: Channel): number | null => (channel.source === 'env' ? null : channel.id)

/** One client per channel and key, made again when the channel changes. */
export function createProviderCache<P>(make: (channel: Channel, key: string | undefined) => P): (channel: Channel, key: string | undefined) => P {
  const made = new Map<string, P>()
  return (channel, key) => {
    const id = `${channel.id}:${channel.updatedAt}:${channel.baseUrl}:${key ?? ''}`
    let client = made.get(id)
    if (!client) {
      if (made.size > 200) made.clear()
      client = make(channel, key)
      made.set(id, client)
    }
    return client
  }
}

/**
 * Runs `attempt` on the pool's channels in order until one answers: a failure that `retryable` says
 * another channel may not have (429, 5xx, no connection — the upstream took nothing) moves on to the
 * next channel; any other failure, or the last channel's, is thrown. Each call counts in the channel's health.
 */
export async function failover<T>(
  pool: ChannelPool,
  attempt: (channel: Channel, key: string | undefined) => Promise<T>,
  options: { retryable: (error: unknown) => boolean; none: () => Error }
): Promise<{ value: T; channel: Channel }> {
  const tries = await pool.order()
  if (tries.length === 0) throw options.none()
  for (const [i, channel] of tries.entries()) {
    const started = pool.now()
    try {
      const value = await attempt(channel, pool.key(channel))
      pool.record(channel.id, { ok: true, latencyMs: pool.now() - started })
      return { value, channel }
    } catch (error) {
      const retry = options.retryable(error)
      // A refusal of the request itself (bad prompt, no credits) says nothing about the channel's health.
      if (retry) pool.record(channel.id, { ok: false, latencyMs: pool.now() - started })
      if (!retry || i === tries.length - 1) throw error
      pool.logger.warn('upstream channel failed before taking the task; trying the next channel', {
        kind: pool.kind,
        channel: channel.id,
        next: tries[i + 1]!.id
      })
    }
  }
  throw options.none()
}

/** Runs one call on a task's own channel (polls, actions on its result), counting it in the channel's health. */
export async function onChannel<T>(
  pool: ChannelPool,
  channel: Channel,
  call: (key: string | undefined) => Promise<T>,
  counts: (error: unknown) => boolean
): Promise<T> {
  const started = pool.now()
  try {
    const value = await call(pool.key(channel))
    pool.record(channel.id, { ok: true, latencyMs: pool.now() - started })
    return value
  } catch (error) {
    if (counts(error)) pool.record(channel.id, { ok: false, latencyMs: pool.now() - started })
    throw error
  }
}
