import { asc, count, eq, sql } from 'drizzle-orm'
import type { ChatSettings } from '../config.js'
import type { Db } from '../db/database.js'
import { modelPrices, type UpstreamChannel, upstreamChannels } from '../db/schema.js'
import type { Logger } from '../logger.js'
import { type ChannelHealth, createChannelHealth, type HealthView } from './channels-health.js'
import { CHANNEL_KINDS, type Channel, type ChannelKind, type ChannelPool, createProviderCache, ENV_IDS, ENV_LABELS, type EnvUpstream } from './channels-pool.js'
import { decryptKey, encryptKey, keyHint } from './channels-crypto.js'
import type { ModelCatalog, ModelEntry } from './models.js'
import { createOpenAiProvider } from './providers/openai.js'
import { type ChatChunk, type ChatProvider, type ChatRequest, ProviderError } from './providers/provider.js'

/**
 * Upstream channels of every kind (stored in upstream_channels, `kind`: openai chat, midjourney-proxy,
 * AUTOMATIC1111, suno-api). The painting and music modules take theirs through pool(kind)
 * (channels-pool.ts: the same order, failover and health). For chat:
 * several OpenAI-compatible upstreams ("channels", stored in upstream_channels) behind one provider:
 * a reply goes to a channel that serves its model — the highest priority first, by weight within a
 * priority, channels cooling down last — and a 429, a 5xx or no connection BEFORE the first chunk
 * moves it to the next channel without the user seeing anything. Once a chunk was streamed, a
 * failure is the reply's (it is not sent again: the user saw part of it).
 *
 * Health (error rate, latency, cool-down) is kept in memory per node (channels-health.ts): each
 * node learns it from its own calls. The channel list is read again every `reloadMs` (another node's
 * console change arrives within that), and at once on this node after a change through the console.
 */

export type { Channel, ChannelKind } from './channels-pool.js'
export { CHANNEL_KINDS } from './channels-pool.js'
export const NO_SECRET_MESSAGE = '没有设置 CHANNEL_SECRET_KEY，无法保存渠道密钥：请在服务器环境变量中设置后重启'

export interface Channels {
  /** The failover provider of `openai` models. */
  provider: ChatProvider
  /** The channels of every kind (with clear keys: never to be sent anywhere), cached for reloadMs. */
  list(): Promise<Channel[]>
  catalog(): Promise<ModelCatalog>
  /** Read the database again now (after a change through the console). */
  reload(): Promise<void>
  health(id: number): HealthView
  /** The secret that seals keys; undefined without CHANNEL_SECRET_KEY. */
  secret: Buffer | undefined
  /**
   * The channels of a painting or music kind. `env`: the upstream its env variables configure, used
   * while no channel of the kind is stored (and for tasks saved before channels, channel id null).
   */
  pool(kind: Exclude<ChannelKind, 'openai'>, env: EnvUpstream | undefined): ChannelPool
}

export interface ChannelsOptions {
  db: Db
  settings: ChatSettings
  logger: Logger
  now?: () => number
  reloadMs?: number
  /** Consecutive failures that cool a channel down, and for how long. */
  coolAfter?: number
  coolMs?: number
  random?: () => number
}

/**
 * At start: refuses to run when channels are stored but CHANNEL_SECRET_KEY is missing (their keys
 * could not be read), and stores OPENAI_* as channel #1 when the table is empty and the secret is set.
 */
export async function prepareChannels(db: Db, settings: ChatSettings, now: () => number = Date.now): Promise<void> {
  const secret = settings.channelSecret
  if (!secret) {
    const [row] = await db.select({ n: count() }).from(upstreamChannels)
    if ((row?.n ?? 0) > 0) {
      throw new Error('upstream channels are stored but CHANNEL_SECRET_KEY is not set: their keys cannot be read (set the key they were saved with)')
    }
    return
  }
  const openai = settings.openai
  if (!openai) return
  await db.transaction(async (tx) => {
    // Two nodes starting together seed once.
    await tx.execute(sql`lock table ${upstreamChannels} in exclusive mode`)
    const [row] = await tx.select({ n: count() }).from(upstreamChannels).where(eq(upstreamChannels.kind, 'openai'))
    if ((row?.n ?? 0) > 0) return
    const at = new Date(now())
    await tx.insert(upstreamChannels).values({
      kind: 'openai',
      name: '默认渠道（OPENAI_*）',
      baseUrl: openai.baseUrl,
      keys: [encryptKey(secret, openai.apiKey)],
      keyHints: [keyHint(openai.apiKey)],
      models: [],
      createdAt: at,
      updatedAt: at
    })
  })
}

/**
 * At start (painting and music modules): stores the env's upstream of a kind as its first channel
 * when none of that kind is stored yet and CHANNEL_SECRET_KEY is set, as prepareChannels does for OPENAI_*.
 */
export async function seedChannel(
  db: Db,
  secret: Buffer | undefined,
  kind: Exclude<ChannelKind, 'openai'>,
  env: EnvUpstream | undefined,
  now: () => number = Date.now
): Promise<void> {
  if (!secret || !env) return
  await db.transaction(async (tx) => {
    await tx.execute(sql`lock table ${upstreamChannels} in exclusive mode`)
    const [row] = await tx.select({ n: count() }).from(upstreamChannels).where(eq(upstreamChannels.kind, kind))
    if ((row?.n ?? 0) > 0) return
    const at = new Date(now())
    const keys = env.key ? [env.key] : []
    await tx.insert(upstreamChannels).values({
      kind,
      name: `默认渠道（${ENV_LABELS[kind]}）`,
      baseUrl: env.baseUrl,
      keys: keys.map((k) => encryptKey(secret, k)),
      keyHints: keys.map(keyHint),
      models: [],
      createdAt: at,
      updatedAt: at
    })
  })
}

/** A failure another channel may not have: worth trying the next one when nothing was streamed yet. */
function retryable(error: unknown): boolean {
  if (!(error instanceof ProviderError) || !error.origin) return false
  const { status, unreachable } = error.origin
  return Boolean(unreachable) || status === 429 || (status !== undefined && status >= 500)
}

const serves = (channel: Channel, upstream: string) =>
  channel.kind === 'openai' && channel.enabled && (channel.models.length === 0 || channel.models.includes(upstream))

export function createChannels(options: ChannelsOptions): Channels {
  const { db, settings, logger } = options
  const now = options.now ?? Date.now
  const reloadMs = options.reloadMs ?? 5000
  const random = options.random ?? Math.random
  const secret = settings.channelSecret
  const health: ChannelHealth = createChannelHealth({ now, coolAfter: options.coolAfter ?? 3, coolMs: options.coolMs ?? 60_000 })
  let loaded: { at: number; channels: Channel[]; catalog: ModelCatalog } | undefined
  let loading: Promise<NonNullable<typeof loaded>> | undefined
  // The env upstream of each kind (chat: OPENAI_*; the others as their module registers them).
  const envs = new Map<ChannelKind, EnvUpstream & { label: string }>()
  if (settings.openai) envs.set('openai', { baseUrl: settings.openai.baseUrl, key: settings.openai.apiKey, label: ENV_LABELS.openai })

  const envChannel = (kind: ChannelKind): Channel | undefined => {
    const env = envs.get(kind)
    if (!env) return undefined
    const keys = env.key ? [env.key] : []
    return {
      id: ENV_IDS[kind],
      kind,
      name: `环境变量（${env.label}）`,
      baseUrl: env.baseUrl,
      keys,
      keyHints: keys.map(keyHint),
      models: [],
      priority: 0,
      weight: 1,
      enabled: true,
      source: 'env',
      updatedAt: 0
    }
  }

  const open = (row: UpstreamChannel): Channel => {
    let keys: string[] = []
    let readable = secret !== undefined
    try {
      keys = secret ? row.keys.map((sealed) => decryptKey(secret, sealed)) : []
    } catch (error) {
      readable = false
      logger.error('a channel key cannot be decrypted with CHANNEL_SECRET_KEY; the channel is left out', { channel: row.id, error })
    }
    const kind = (CHANNEL_KINDS as readonly string[]).includes(row.kind) ? (row.kind as ChannelKind) : 'openai'
    return {
      id: row.id,
      kind,
      name: row.name,
      baseUrl: row.baseUrl,
      keys,
      keyHints: row.keyHints,
      models: row.models,
      priority: row.priority,
      weight: row.weight,
      // A chat upstream needs a key; painting and music upstreams may run without one.
      enabled: row.enabled && readable && (kind !== 'openai' || keys.length > 0),
      source: 'db',
      updatedAt: row.updatedAt.getTime()
    }
  }

  async function load() {
    const [rows, prices] = await Promise.all([db.select().from(upstreamChannels).orderBy(asc(upstreamChannels.id)), db.select().from(modelPrices)])
    // Without the secret nothing is stored (prepareChannels refuses to start otherwise): the env's upstream is the channel.
    const stored = rows.map(open)
    const channels = CHANNEL_KINDS.flatMap((kind) => {
      const own = stored.filter((c) => c.kind === kind)
      const env = envChannel(kind)
      return own.length > 0 ? own : env ? [env] : []
    })
    const enabled = channels.filter((c) => c.enabled && c.kind === 'openai')
    const catalog: ModelCatalog = {
      openai: enabled.length > 0,
      models: [...new Set(enabled.flatMap((c) => c.models))],
      prices: new Map(prices.map((p) => [p.modelId, { input: p.input, output: p.output }]))
    }
    loaded = { at: now(), channels, catalog }
    return loaded
  }

  async function current() {
    if (loaded && now() - loaded.at < reloadMs) return loaded
    loading ??= load().finally(() => (loading = undefined))
    try {
      return await loading
    } catch (error) {
      // The database is briefly away: keep serving what was read last.
      if (loaded) {
        logger.warn('reading the upstream channels failed; using the last list', { error })
        return loaded
      }
      throw error
    }
  }

  // One provider per channel and key, remade when the channel changes.
  const providerOf = createProviderCache<ChatProvider>((channel, key) =>
    createOpenAiProvider({
      baseUrl: channel.baseUrl,
      apiKey: key ?? '',
      firstByteTimeoutMs: settings.firstByteTimeoutMs,
      idleTimeoutMs: settings.idleTimeoutMs,
      logger
    })
  )

  /** Healthy channels by priority, then weight (a weighted shuffle); cooling ones last, the soonest back first. */
  function order(channels: Channel[], test: (c: Channel) => boolean): Channel[] {
    const serving = channels.filter(test)
    const ready = serving.filter((c) => !health.cooling(c.id))
    const cooling = serving.filter((c) => health.cooling(c.id)).sort((a, b) => health.cooledUntil(a.id) - health.cooledUntil(b.id))
    const keyed = ready.map((c) => ({ c, key: random() ** (1 / Math.max(1, c.weight)) }))
    keyed.sort((a, b) => b.c.priority - a.c.priority || b.key - a.key)
    return [...keyed.map((k) => k.c), ...cooling]
  }

  const provider: ChatProvider = {
    async *stream(request: ChatRequest): AsyncIterable<ChatChunk> {
      const model: ModelEntry = request.model
      const upstream = model.upstreamModel ?? model.id
      const tries = order((await current()).channels, (c) => serves(c, upstream))
      if (tries.length === 0) throw new ProviderError('upstream', `没有可用的 AI 服务渠道提供模型「${model.name}」，请联系管理员`)
      for (const [i, channel] of tries.entries()) {
        const key = channel.keys[Math.floor(random() * channel.keys.length)]!
        const started = now()
        let firstAt: number | undefined
        try {
          for await (const chunk of providerOf(channel, key).stream(request)) {
            firstAt ??= now()
            yield chunk
          }
          health.record(channel.id, { ok: true, latencyMs: (firstAt ?? now()) - started })
          return
        } catch (error) {
          // A stop is nobody's failure.
          if (request.signal.aborted) throw error
          health.record(channel.id, { ok: false, latencyMs: (firstAt ?? now()) - started })
          const last = i === tries.length - 1
          if (firstAt !== undefined || last || !retryable(error)) throw error
          logger.warn('AI upstream channel failed before the first token; trying the next channel', {
            channel: channel.id,
            next: tries[i + 1]!.id,
            model: upstream,
            ...(error instanceof ProviderError ? { failure: error.origin } : {})
          })
        }
      }
    }
  }

  return {
    provider,
    secret,
    async list() {
      return (await current()).channels
    },
    async catalog() {
      return (await current()).catalog
    },
    async reload() {
      loaded = undefined
      await current()
    },
    health: (id) => health.view(id),
    pool(kind, env) {
      if (env && !envs.has(kind)) {
        envs.set(kind, { ...env, label: ENV_LABELS[kind] })
        loaded = undefined
      }
      const of = (channels: Channel[]) => channels.filter((c) => c.kind === kind)
      return {
        kind,
        order: async () => order(of((await current()).channels), (c) => c.enabled),
        async find(id) {
          const channels = of((await current()).channels)
          if (id === null) return envChannel(kind) ?? order(channels, (c) => c.enabled)[0]
          return channels.find((c) => c.id === id)
        },
        key: (channel) => (channel.keys.length === 0 ? undefined : channel.keys[Math.floor(random() * channel.keys.length)]),
        record: (id, call) => health.record(id, call),
        logger,
        now
      }
    }
  }
}
