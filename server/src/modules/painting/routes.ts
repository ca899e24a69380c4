import { createHmac, timingSafeEqual } from 'node:crypto'
import { and, count, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import { buildPrompt, checkPrompt, parsePrompt } from '@lingxi/shared/mj-prompt'
import { type PaintingTask, paintingTasks } from '../../db/schema.js'
import { takedownsOf } from '../../moderation/takedowns.js'
import { ApiError, envelope } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import type { Moderator } from '../../moderation/index.js'
import { idField, oneOf, pageFields, paged, readPage, requiredText } from '../../http/fields.js'
import { readOwnImage } from './images.js'
import { type ProxyTask, updateOf } from './providers/midjourney-proxy.js'
import type { ImageInput } from './providers/provider.js'
import { registerActionRoutes } from './action-routes.js'
import { registerGalleryRoutes } from './gallery-routes.js'
import type { PaintingRuntime } from './runtime.js'
import { registerSdRoutes } from './sd-routes.js'
import { toWire } from './to-wire.js'
import { BLEND_DIMENSIONS, PAINTING_PERMISSION, SD_PERMISSION, taskSchema } from './wire.js'

const PAINTING = PAINTING_PERMISSION
const SD = SD_PERMISSION
const MAX_REFERENCE_IMAGES = 5

/** The notifyHook of one task: its id signed with MJ_NOTIFY_SECRET, so only the proxy we told can call it. */
export function notifySignature(secret: string, taskId: string): string {
  return createHmac('sha256', secret).update(`painting-notify:${taskId}`).digest('base64url')
}

export function notifyHookFor(publicUrl: string, secret: string | undefined, taskId: string): string | undefined {
  if (!secret) return undefined
  return `${publicUrl}/api/v1/painting/notify/${encodeURIComponent(taskId)}?sig=${notifySignature(secret, taskId)}`
}

const imageUrl = (label: string) => requiredText(label, { max: 1000 })

const taskIdField = idField('任务ID')

const text = (description: string) => z.string().nullish().meta({ description })
const epochMs = z.number().nullish().meta({ description: 'Epoch ms' })

/**
 * The midjourney-proxy Task its notifyHook POSTs (upstreams.md), as documented: the callback
 * reads it leniently (only `id` is required; unknown statuses and fields are ignored).
 */
const proxyTaskSchema = z.object({
  id: z.string().meta({ description: 'The proxy’s task id' }),
  action: text('IMAGINE, UPSCALE, VARIATION, REROLL, DESCRIBE, BLEND; the plus proxy adds ZOOM, PAN, SHORTEN, SWAP_FACE'),
  status: text('NOT_START, SUBMITTED, IN_PROGRESS, SUCCESS, FAILURE; the plus proxy adds MODAL, gateways CANCEL'),
  prompt: text('The prompt as submitted'),
  promptEn: text('The prompt as sent to Midjourney (translated)'),
  description: text('"/imagine …"'),
  state: text('The state given at submit: our task id'),
  submitTime: epochMs,
  startTime: epochMs,
  finishTime: epochMs,
  progress: text('"46%"; "" on failure'),
  imageUrl: text('The finished grid or image'),
  failReason: text('Why it failed'),
  properties: z.record(z.string(), z.unknown()).nullish().meta({ description: 'finalPrompt (DESCRIBE), discordInstanceId…' }),
  buttons: z
    .array(z.object({ customId: z.string(), label: z.string(), emoji: z.string(), type: z.number(), style: z.number() }).partial())
    .nullish()
    .meta({ description: 'Plus / trueai proxies only' })
})

/** Midjourney, the task routes both kinds share, the midjourney-proxy callback, SD and the gallery. */
export function registerPaintingRoutes(
  api: Api,
  runtime: PaintingRuntime,
  settings: { publicUrl: string; notifySecret: string | undefined; moderator?: Moderator }
): void {
  const { storage } = runtime
  const wire = (row: PaintingTask) => toWire(row, storage)

  async function ownTask(accountId: string, taskId: string): Promise<PaintingTask> {
    const [row] = await api.db
      .select()
      .from(paintingTasks)
      .where(and(eq(paintingTasks.id, taskId), eq(paintingTasks.accountId, accountId)))
    if (!row) throw new ApiError(40400001, '任务不存在')
    return row
  }

  async function readImages(urls: string[], label: string): Promise<ImageInput[]> {
    const images: ImageInput[] = []
    for (const url of urls) images.push(await readOwnImage(storage, url, label))
    return images
  }

  // ---- Midjourney ----------------------------------------------------------------------------

  defineRoute(
    api,
    '/api/v1/painting/imagine',
    {
      tag: 'painting',
      summary: 'Imagine: a 2x2 grid from a prompt (1 mjCount)',
      auth: true,
      permission: PAINTING,
      body: z.object({
        prompt: requiredText('提示词', { max: 4000 }),
        images: z.array(imageUrl('参考图'), { error: '参考图格式不正确' }).max(MAX_REFERENCE_IMAGES, `参考图最多 ${MAX_REFERENCE_IMAGES} 张`).optional()
      }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      const parsed = parsePrompt(body.prompt)
      const problem = checkPrompt(parsed)
      if (problem) throw new ApiError(40000001, problem)
      if (parsed.prompt.trim() === '') throw new ApiError(40000001, '请填写提示词（除图片链接和参数外的文字）')
      const urls = [...parsed.pictures, ...(body.images ?? [])]
      if (urls.length > MAX_REFERENCE_IMAGES) throw new ApiError(40000001, `参考图最多 ${MAX_REFERENCE_IMAGES} 张`)
      const images = await readImages(urls, '参考图')
      // Reference images travel as bytes (base64Array): Lingxi's URLs need not be reachable from the upstream.
      const upstreamPrompt = buildPrompt({ ...parsed, pictures: [] })
      const row = await runtime.create({
        accountId: auth.account.id,
        kind: 'mj',
        prompt: body.prompt,
        job: { action: 'IMAGINE', prompt: upstreamPrompt, images, seed: parsed.seed, aspect: parsed.aspect }
      })
      return wire(row)
    }
  )

  registerActionRoutes(api, runtime, ownTask, readImages, wire)

  defineRoute(
    api,
    '/api/v1/painting/describe',
    {
      tag: 'painting',
      summary: 'Describe: four prompts from an uploaded image (1 mjCount)',
      auth: true,
      permission: PAINTING,
      body: z.object({ image: imageUrl('图片') }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      const [image] = await readImages([body.image], '图片')
      const row = await runtime.create({
        accountId: auth.account.id,
        kind: 'mj',
        prompt: '',
        imageKey: image!.key,
        job: { action: 'DESCRIBE', image: image! }
      })
      return wire(row)
    }
  )

  defineRoute(
    api,
    '/api/v1/painting/blend',
    {
      tag: 'painting',
      summary: 'Blend 2–5 uploaded images (1 mjCount)',
      auth: true,
      permission: PAINTING,
      body: z.object({
        images: z.array(imageUrl('图片'), { error: '图片不能为空' }).min(2, '请选择 2–5 张图片').max(5, '请选择 2–5 张图片'),
        dimensions: oneOf('dimensions', BLEND_DIMENSIONS).default('SQUARE')
      }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      const images = await readImages(body.images, '图片')
      const row = await runtime.create({
        accountId: auth.account.id,
        kind: 'mj',
        prompt: '',
        params: { dimensions: body.dimensions },
        job: { action: 'BLEND', images, dimensions: body.dimensions }
      })
      return wire(row)
    }
  )

  defineRoute(
    api,
    '/api/v1/painting/task/get',
    {
      tag: 'painting',
      summary: 'One of my painting tasks',
      auth: true,
      permission: [PAINTING, SD],
      body: z.object({ taskId: taskIdField }),
      response: taskSchema
    },
    async ({ auth, body }) => wire(await ownTask(auth.account.id, body.taskId))
  )

  defineRoute(
    api,
    '/api/v1/painting/task/list',
    {
      tag: 'painting',
      summary: 'My painting tasks, newest first',
      auth: true,
      permission: [PAINTING, SD],
      body: z.object({ ...pageFields, kind: oneOf('kind', ['mj', 'sd']).optional() }),
      response: paged(taskSchema)
    },
    async ({ auth, body }) => {
      const where = and(eq(paintingTasks.accountId, auth.account.id), body.kind ? eq(paintingTasks.kind, body.kind) : undefined)
      return readPage(
        body,
        api.db.select({ n: count() }).from(paintingTasks).where(where),
        (limit, offset) => api.db.select().from(paintingTasks).where(where).orderBy(desc(paintingTasks.seq)).limit(limit).offset(offset),
        async (rows) => {
          const down = await takedownsOf(
            api.db,
            'painting',
            rows.map((r) => r.id)
          )
          return rows.map((row) => {
            const reason = down.get(row.id)
            return reason === undefined ? wire(row) : { ...wire(row), imageUrl: null, thumbUrl: null, takedown: reason }
          })
        }
      )
    }
  )

  defineRoute(
    api,
    '/api/v1/painting/task/stop',
    {
      tag: 'painting',
      summary: 'Stop an unfinished task (allowance given back)',
      auth: true,
      permission: [PAINTING, SD],
      body: z.object({ taskId: taskIdField }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      const task = await ownTask(auth.account.id, body.taskId)
      const ended = await runtime.end(task.id, 'INTERRPUT', '已停止，次数已退回')
      if (ended) return wire(ended)
      const now = await ownTask(auth.account.id, body.taskId)
      throw new ApiError(40000001, now.status === 'INTERRPUT' ? '任务已停止' : '任务已结束，无法停止')
    }
  )

  // The midjourney-proxy notifyHook: the task JSON, on every status or progress change.
  api.docs.push({
    method: 'post',
    path: '/api/v1/painting/notify/{taskId}',
    tag: 'painting',
    summary: 'midjourney-proxy notifyHook (the signed URL given at submit): the task, on every status or progress change',
    auth: false,
    parameters: [
      { name: 'taskId', in: 'path', description: 'Our task id' },
      { name: 'sig', in: 'query', required: true, description: 'The signature of taskId (MJ_NOTIFY_SECRET); 403 when wrong' }
    ],
    body: proxyTaskSchema,
    response: z.null()
  })
  api.app.post('/api/v1/painting/notify/:taskId', async (c) => {
    const taskId = c.req.param('taskId')
    const sig = c.req.query('sig') ?? ''
    const secret = settings.notifySecret
    const expected = secret ? Buffer.from(notifySignature(secret, taskId)) : undefined
    const given = Buffer.from(sig)
    if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new ApiError(40300001, '回调签名不正确', { status: 403 })
    }
    let body: ProxyTask
    try {
      body = (await c.req.json()) as ProxyTask
    } catch {
      throw new ApiError(40000002, '请求体不是合法的 JSON')
    }
    if (typeof body !== 'object' || body === null || typeof body.id !== 'string') throw new ApiError(40000001, '回调内容不是任务')
    const [task] = await api.db.select().from(paintingTasks).where(eq(paintingTasks.id, taskId))
    if (!task || task.provider !== runtime.mj.name) throw new ApiError(40400001, '任务不存在')
    // A callback about another upstream task is ignored (its answer stays 2000: nothing to retry).
    const mine = task.upstreamId === null ? body.state === taskId : body.id === task.upstreamId
    const update = mine ? updateOf(body) : undefined
    if (update) await runtime.apply(taskId, update)
    return c.json(envelope(2000, '操作成功', null))
  })

  registerSdRoutes(api, runtime, wire, readImages)
  registerGalleryRoutes(api, ownTask, wire, settings.moderator)
}
