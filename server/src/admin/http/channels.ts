import { eq } from 'drizzle-orm'
import { z } from 'zod'
import { normalizeOpenAiBase } from '../../config.js'
import { modelPrices, upstreamChannels } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { CHANNEL_KINDS, type Channel, type ChannelKind, type Channels, NO_SECRET_MESSAGE } from '../../replies/channels.js'
import { encryptKey, keyHint } from '../../replies/channels-crypto.js'
import type { ChatModels } from '../../replies/models.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'

/**
 * Upstream channels and model prices in the operator API. A channel's keys go in (sealed with
 * CHANNEL_SECRET_KEY before they are stored) and never come out: answers and audit lines carry
 * their last 4 characters only.
 */
const health = z.object({
  calls: z.number(),
  errors: z.number(),
  errorRate: z.number(),
  latencyMs: z.number().nullable(),
  consecutiveFailures: z.number(),
  cooledUntil: z.string().nullable()
})

const adminChannel = z
  .object({
    id: z.number(),
    /** openai (chat), midjourney (midjourney-proxy), sd (AUTOMATIC1111), suno (suno-api). */
    kind: z.enum(CHANNEL_KINDS),
    name: z.string(),
    baseUrl: z.string(),
    keyHints: z.array(z.string()),
    models: z.array(z.string()),
    priority: z.number(),
    weight: z.number(),
    enabled: z.boolean(),
    /** `env`: the env variables' upstream (none of its kind stored), read only. */
    source: z.enum(['db', 'env']),
    /** This node's view of its last 10 minutes. */
    health
  })
  .meta({ id: 'AdminChannel' })

const adminModel = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.string(),
    upstreamModel: z.string(),
    price: z.object({ input: z.number(), output: z.number() }),
    /** The price was set in the console (else it is chatConfig.json's). */
    custom: z.boolean()
  })
  .meta({ id: 'AdminModel' })

const name = z.string({ error: 'name 不能为空' }).trim().min(1, { error: '渠道名称不能为空' }).max(100, { error: '渠道名称最多 100 个字' })
const baseUrl = z
  .string({ error: 'baseUrl 不能为空' })
  .trim()
  .refine(
    (v) => {
      try {
        return ['http:', 'https:'].includes(new URL(v).protocol)
      } catch {
        return false
      }
    },
    { error: '接口地址必须是 http:// 或 https:// 开头的网址' }
  )
const keys = z
  .array(z.string().trim().min(8, { error: '密钥太短（至少 8 个字符）' }).max(500, { error: '密钥太长' }), { error: 'keys 必须是密钥列表' })
  .max(20, { error: '一个渠道最多 20 个密钥' })
const modelNames = z.array(z.string().trim().min(1).max(200), { error: 'models 必须是模型名列表' }).max(200, { error: '一个渠道最多 200 个模型' })
/** A channel's base URL as its clients want it: chat without /v1, midjourney-proxy without /mj. */
function baseOf(kind: ChannelKind, url: string): string {
  if (kind === 'openai') return normalizeOpenAiBase(url)
  const bare = url.replace(/\/+$/, '')
  return kind === 'midjourney' ? bare.replace(/\/mj$/, '') : bare
}

const ratio = z.number({ error: '倍率必须是数字' }).min(0, { error: '倍率不能小于 0' }).max(1000, { error: '倍率不能大于 1000' })

/** A stored channel as audit lines show it: no key, only hints. */
const described = (c: Pick<Channel, 'name' | 'baseUrl' | 'keyHints' | 'models' | 'priority' | 'weight' | 'enabled'> & { kind: string }) => ({
  kind: c.kind,
  name: c.name,
  baseUrl: c.baseUrl,
  keyHints: c.keyHints,
  models: c.models,
  priority: c.priority,
  weight: c.weight,
  enabled: c.enabled
})

export function registerChannelRoutes(api: Api, channels: Channels | undefined, models: ChatModels): void {
  const base = { tag: TAG, permission: ADMIN_PERMISSION, auth: true as const }
  const need = () => {
    if (!channels) throw new ApiError(50000000, '这台服务器没有配置对话渠道')
    return channels
  }
  const view = (c: Channel): z.infer<typeof adminChannel> => ({ ...described(c), kind: c.kind, id: c.id, source: c.source, health: need().health(c.id) })
  const stored = async (db: Pick<Api['db'], 'select'>, id: number) => {
    const [row] = await db.select().from(upstreamChannels).where(eq(upstreamChannels.id, id)).for('update')
    if (!row) throw new ApiError(40400001, `渠道 #${id} 不存在`)
    return row
  }

  defineRoute(
    api,
    '/api/admin/channels/list',
    {
      ...base,
      summary: 'Upstream channels with their recent error rate, latency and cool-down (keys: last 4 characters only)',
      body: z.object({}),
      response: z.object({ list: z.array(adminChannel), secretConfigured: z.boolean() })
    },
    async () => {
      const all = await need().list()
      return { list: all.map(view), secretConfigured: Boolean(need().secret) }
    }
  )

  defineRoute(
    api,
    '/api/admin/channels/save',
    {
      ...base,
      summary: 'Creates a channel (no id) or changes one; `keys`, when given, replace its keys (stored encrypted)',
      body: z.object({
        id: z.number().int().positive().optional(),
        /** Set at create (default openai); a channel keeps its kind. */
        kind: z.enum(CHANNEL_KINDS, { error: '渠道类型只能是 openai、midjourney、sd 或 suno' }).optional(),
        name,
        baseUrl,
        keys: keys.optional(),
        models: modelNames.default([]),
        priority: z.number().int().min(-1000).max(1000).default(0),
        weight: z.number().int({ error: '权重必须是整数' }).min(1, { error: '权重至少为 1' }).max(1000, { error: '权重最多 1000' }).default(1),
        enabled: z.boolean().default(true)
      }),
      response: z.object({ channel: adminChannel })
    },
    async ({ body, auth }) => {
      const secret = need().secret
      if (!secret) throw new ApiError(40000001, NO_SECRET_MESSAGE)
      const at = new Date(api.now())
      const sealed = body.keys && body.keys.length > 0 ? { keys: body.keys.map((k) => encryptKey(secret, k)), keyHints: body.keys.map(keyHint) } : undefined
      const fields = (kind: ChannelKind) => ({
        name: body.name,
        baseUrl: baseOf(kind, body.baseUrl),
        // Painting and music upstreams serve no model list.
        models: kind === 'openai' ? [...new Set(body.models)] : [],
        priority: body.priority,
        weight: body.weight,
        enabled: body.enabled,
        updatedAt: at
      })
      const id = await api.db.transaction(async (tx) => {
        if (body.id === undefined) {
          const kind = body.kind ?? 'openai'
          // midjourney-proxy, AUTOMATIC1111 and suno-api may run without a secret.
          if (!sealed && kind === 'openai') throw new ApiError(40000001, '新渠道至少需要一个密钥')
          const [row] = await tx
            .insert(upstreamChannels)
            .values({ kind, ...fields(kind), ...(sealed ?? { keys: [], keyHints: [] }), createdAt: at })
            .returning()
          await audit(tx, auth, { action: 'channel.create', target: `channel:${row!.id}`, after: described(row!) }, at)
          return row!.id
        }
        const before = await stored(tx, body.id)
        if (body.kind !== undefined && body.kind !== before.kind) throw new ApiError(40000001, '渠道类型不能修改，请新建一个渠道')
        const [row] = await tx
          .update(upstreamChannels)
          .set({ ...fields(before.kind as ChannelKind), ...(sealed ?? {}) })
          .where(eq(upstreamChannels.id, body.id))
          .returning()
        await audit(tx, auth, { action: 'channel.update', target: `channel:${body.id}`, before: described(before), after: described(row!) }, at)
        return body.id
      })
      await need().reload()
      const channel = (await need().list()).find((c) => c.id === id)
      if (!channel) throw new ApiError(50000000, '渠道已保存，但读取失败，请刷新')
      return { channel: view(channel) }
    }
  )

  defineRoute(
    api,
    '/api/admin/channels/delete',
    {
      ...base,
      summary: 'Deletes a channel',
      body: z.object({ id: z.number({ error: 'id 不能为空' }).int().positive() }),
      response: z.object({ id: z.number() })
    },
    async ({ body, auth }) => {
      if (body.id <= 0) throw new ApiError(40000001, '环境变量里的渠道不能在控制台删除')
      const at = new Date(api.now())
      await api.db.transaction(async (tx) => {
        const before = await stored(tx, body.id)
        await tx.delete(upstreamChannels).where(eq(upstreamChannels.id, body.id))
        await audit(tx, auth, { action: 'channel.delete', target: `channel:${body.id}`, before: described(before) }, at)
      })
      await need().reload()
      return { id: body.id }
    }
  )

  defineRoute(
    api,
    '/api/admin/models/list',
    { ...base, summary: 'The models users may pick, with their price ratios', body: z.object({}), response: z.object({ list: z.array(adminModel) }) },
    async () => {
      const [config, custom] = await Promise.all([models.read(), api.db.select({ id: modelPrices.modelId }).from(modelPrices)])
      const set = new Set(custom.map((c) => c.id))
      return {
        list: config.models.map((m) => ({
          id: m.id,
          name: m.name,
          provider: m.provider,
          upstreamModel: m.upstreamModel ?? m.id,
          price: m.price,
          custom: set.has(m.id)
        }))
      }
    }
  )

  defineRoute(
    api,
    '/api/admin/models/price',
    {
      ...base,
      summary: "Sets a model's price ratios (allowance per prompt and per completion token); `price: null` goes back to chatConfig.json's",
      body: z.object({
        modelId: z.string({ error: 'modelId 不能为空' }).trim().min(1, { error: 'modelId 不能为空' }).max(100),
        price: z.object({ input: ratio, output: ratio }).nullable()
      }),
      response: z.object({ modelId: z.string(), price: z.object({ input: z.number(), output: z.number() }) })
    },
    async ({ body, auth }) => {
      const before = (await models.read()).models.find((m) => m.id === body.modelId)
      if (!before) throw new ApiError(40400001, `模型「${body.modelId}」不在模型列表里`)
      const at = new Date(api.now())
      await api.db.transaction(async (tx) => {
        if (body.price) {
          await tx
            .insert(modelPrices)
            .values({ modelId: body.modelId, ...body.price, updatedAt: at })
            .onConflictDoUpdate({ target: modelPrices.modelId, set: { ...body.price, updatedAt: at } })
        } else {
          await tx.delete(modelPrices).where(eq(modelPrices.modelId, body.modelId))
        }
        await audit(tx, auth, { action: 'model.price', target: `model:${body.modelId}`, before: before.price, after: body.price }, at)
      })
      await need().reload()
      const after = (await models.read()).models.find((m) => m.id === body.modelId)
      return { modelId: body.modelId, price: after?.price ?? body.price ?? before.price }
    }
  )
}
