import { createHmac, timingSafeEqual } from 'node:crypto'
import { and, count, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import { buildPrompt, checkPrompt, parsePrompt } from '../../../src/core/mj-prompt.js'
import { accounts, type PaintingTask, paintingTasks } from '../db/schema.js'
import { ApiError, envelope } from '../errors.js'
import { type Api, defineRoute } from '../http/api.js'
import { idField, oneOf, optionalText, pageFields, paged, requiredText, wholeNumber } from '../http/fields.js'
import { readOwnImage } from './images.js'
import { type ProxyTask, updateOf } from './providers/midjourney-proxy.js'
import type { ImageInput } from './providers/provider.js'
import type { PaintingRuntime } from './runtime.js'
import { BLEND_DIMENSIONS, buttonsOf, PAN_DIRECTIONS, taskSchema, toWire } from './wire.js'

const PAINTING = 'AI_TOOLS_PAINTING'
const SD = 'AI_TOOLS_SD'
const GALLERY = 'AI_TOOLS_GALLERY'
const MAX_REFERENCE_IMAGES = 5

export const SD_SAMPLERS = ['DPM++ 2M', 'DPM++ 2M SDE', 'DPM++ SDE', 'Euler a', 'Euler', 'DDIM', 'UniPC', 'LMS'] as const
export const SD_SIZES = [
  { label: '方图 1:1', width: 512, height: 512 },
  { label: '方图 1:1 大', width: 768, height: 768 },
  { label: '竖图 2:3', width: 512, height: 768 },
  { label: '横图 3:2', width: 768, height: 512 },
  { label: '竖屏 9:16', width: 576, height: 1024 },
  { label: '宽屏 16:9', width: 1024, height: 576 }
]
export const SD_DEFAULTS = { steps: 25, cfgScale: 7, sampler: 'DPM++ 2M', width: 512, height: 512 }

/** The notifyHook of one task: its id signed with MJ_NOTIFY_SECRET, so only the proxy we told can call it. */
export function notifySignature(secret: string, taskId: string): string {
  return createHmac('sha256', secret).update(`painting-notify:${taskId}`).digest('base64url')
}

export function notifyHookFor(publicUrl: string, secret: string | undefined, taskId: string): string | undefined {
  if (!secret) return undefined
  return `${publicUrl}/api/v1/painting/notify/${encodeURIComponent(taskId)}?sig=${notifySignature(secret, taskId)}`
}

/** "灵犀用户8000" → "灵犀***00": enough to tell works apart, not enough to find the person. */
export function maskNickname(name: string): string {
  const chars = Array.from(name.trim())
  if (chars.length === 0) return '匿名用户'
  if (chars.length === 1) return '*'
  if (chars.length === 2) return `${chars[0]}*`
  const keep = chars.length >= 6 ? 2 : 1
  return `${chars.slice(0, keep).join('')}***${chars.slice(-keep).join('')}`
}

const imageUrl = (label: string) => requiredText(label, { max: 1000 })

const taskIdField = idField('任务ID')


const galleryItem = z.object({
  workId: z.string(),
  taskId: z.string(),
  imageUrl: z.string(),
  thumbUrl: z.string().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  prompt: z.string(),
  author: z.string(),
  publishTime: z.number(),
  mine: z.boolean()
})

export function registerPaintingRoutes(api: Api, runtime: PaintingRuntime, settings: { publicUrl: string; notifySecret: string | undefined }): void {
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
      auth: true, permission: PAINTING,
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

  defineRoute(
    api,
    '/api/v1/painting/action',
    {
      tag: 'painting',
      summary: 'U1–U4, V1–V4, reroll or pan on a finished task (1 mjCount)',
      auth: true, permission: PAINTING,
      body: z.object({
        taskId: taskIdField,
        action: oneOf('action', ['UPSCALE', 'VARIATION', 'REROLL', 'PAN']),
        index: wholeNumber('index', 1, 4).optional(),
        direction: oneOf('direction', PAN_DIRECTIONS).optional()
      }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      const parent = await ownTask(auth.account.id, body.taskId)
      if (parent.status !== 'SUCCESS') throw new ApiError(40000001, '任务尚未完成，不能执行此操作')
      if ((body.action === 'UPSCALE' || body.action === 'VARIATION') && body.index === undefined) throw new ApiError(40000001, 'index 不能为空')
      if (body.action === 'PAN' && body.direction === undefined) throw new ApiError(40000001, 'direction 不能为空')
      const offered = buttonsOf(parent).some(
        (b) =>
          b.action === body.action &&
          (body.action === 'UPSCALE' || body.action === 'VARIATION' ? b.index === body.index : true) &&
          (body.action === 'PAN' ? b.direction === body.direction : true)
      )
      if (!offered) throw new ApiError(40000001, '该任务不能执行此操作')
      const job =
        body.action === 'PAN'
          ? { action: 'PAN' as const, parent, direction: body.direction! }
          : body.action === 'REROLL'
            ? { action: 'REROLL' as const, parent }
            : { action: body.action, parent, index: body.index! }
      const row = await runtime.create({
        accountId: auth.account.id,
        kind: 'mj',
        prompt: parent.prompt,
        parentId: parent.id,
        index: body.action === 'UPSCALE' || body.action === 'VARIATION' ? body.index! : null,
        params: body.action === 'PAN' ? { direction: body.direction } : null,
        job
      })
      return wire(row)
    }
  )

  defineRoute(
    api,
    '/api/v1/painting/describe',
    {
      tag: 'painting',
      summary: 'Describe: four prompts from an uploaded image (1 mjCount)',
      auth: true, permission: PAINTING,
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
      auth: true, permission: PAINTING,
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
    { tag: 'painting', summary: 'One of my painting tasks', auth: true, permission: [PAINTING, SD], body: z.object({ taskId: taskIdField }), response: taskSchema },
    async ({ auth, body }) => wire(await ownTask(auth.account.id, body.taskId))
  )

  defineRoute(
    api,
    '/api/v1/painting/task/list',
    {
      tag: 'painting',
      summary: 'My painting tasks, newest first',
      auth: true, permission: [PAINTING, SD],
      body: z.object({ ...pageFields, kind: oneOf('kind', ['mj', 'sd']).optional() }),
      response: paged(taskSchema)
    },
    async ({ auth, body }) => {
      const where = and(eq(paintingTasks.accountId, auth.account.id), body.kind ? eq(paintingTasks.kind, body.kind) : undefined)
      const [total] = await api.db.select({ n: count() }).from(paintingTasks).where(where)
      const rows = await api.db
        .select()
        .from(paintingTasks)
        .where(where)
        .orderBy(desc(paintingTasks.seq))
        .limit(body.pageSize)
        .offset((body.pageNum - 1) * body.pageSize)
      return { list: rows.map(wire), total: total?.n ?? 0, pageNum: body.pageNum, pageSize: body.pageSize }
    }
  )

  defineRoute(
    api,
    '/api/v1/painting/task/stop',
    { tag: 'painting', summary: 'Stop an unfinished task (allowance given back)', auth: true, permission: [PAINTING, SD], body: z.object({ taskId: taskIdField }), response: taskSchema },
    async ({ auth, body }) => {
      const task = await ownTask(auth.account.id, body.taskId)
      const ended = await runtime.end(task.id, 'INTERRPUT', '已停止，次数已退回')
      if (ended) return wire(ended)
      const now = await ownTask(auth.account.id, body.taskId)
      throw new ApiError(40000001, now.status === 'INTERRPUT' ? '任务已停止' : '任务已结束，无法停止')
    }
  )

  // The midjourney-proxy notifyHook: the task JSON, on every status or progress change.
  api.docs.push({ method: 'post', path: '/api/v1/painting/notify/{taskId}', tag: 'painting', summary: 'midjourney-proxy notifyHook (signed URL)', auth: false })
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

  // ---- Stable diffusion ------------------------------------------------------------------------

  const sdOptions = z.object({
    samplers: z.array(z.string()),
    sizes: z.array(z.object({ label: z.string(), width: z.number(), height: z.number() })),
    defaults: z.object({ steps: z.number(), cfgScale: z.number(), sampler: z.string(), width: z.number(), height: z.number() }),
    demo: z.boolean()
  })

  defineRoute(
    api,
    '/api/v1/sd/options',
    { tag: 'sd', summary: 'Samplers, size presets and defaults of the SD page', auth: true, permission: SD, body: z.object({}), response: sdOptions },
    async () => ({ samplers: [...SD_SAMPLERS], sizes: SD_SIZES, defaults: SD_DEFAULTS, demo: runtime.sd.demo })
  )

  const side = (label: string) =>
    wholeNumber(label, 256, 1536).refine((n) => n % 8 === 0, `${label}必须是 8 的倍数`)

  defineRoute(
    api,
    '/api/v1/sd/txt2img',
    {
      tag: 'sd',
      summary: 'Stable diffusion text to image (1 mjCount)',
      auth: true, permission: SD,
      body: z.object({
        prompt: requiredText('提示词', { max: 2000 }),
        negativePrompt: optionalText('反向提示词', { max: 2000 }),
        width: side('宽度'),
        height: side('高度'),
        steps: wholeNumber('步数', 1, 60),
        cfgScale: z
          .number({ error: 'CFG 必须是数字' })
          .min(1, 'CFG 不能小于 1')
          .max(20, 'CFG 不能大于 20'),
        sampler: oneOf('采样器', SD_SAMPLERS),
        seed: wholeNumber('种子', -1, 4294967295).optional()
      }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      const params = {
        prompt: body.prompt,
        negativePrompt: body.negativePrompt ?? '',
        width: body.width,
        height: body.height,
        steps: body.steps,
        cfgScale: body.cfgScale,
        sampler: body.sampler,
        seed: body.seed ?? -1
      }
      const row = await runtime.create({ accountId: auth.account.id, kind: 'sd', prompt: body.prompt, params, job: { action: 'TXT2IMG', params } })
      return wire(row)
    }
  )

  // ---- Gallery ---------------------------------------------------------------------------------

  defineRoute(
    api,
    '/api/v1/gallery/list',
    { tag: 'gallery', summary: 'Published works, newest first', auth: true, permission: GALLERY, body: z.object({ ...pageFields }), response: paged(galleryItem) },
    async ({ auth, body }) => {
      const where = eq(paintingTasks.published, true)
      const [total] = await api.db.select({ n: count() }).from(paintingTasks).where(where)
      const rows = await api.db
        .select({ task: paintingTasks, nickName: accounts.nickName })
        .from(paintingTasks)
        .innerJoin(accounts, eq(accounts.id, paintingTasks.accountId))
        .where(where)
        .orderBy(desc(paintingTasks.publishTime), desc(paintingTasks.seq))
        .limit(body.pageSize)
        .offset((body.pageNum - 1) * body.pageSize)
      return {
        list: rows.map(({ task, nickName }) => ({
          workId: task.id,
          taskId: task.id,
          imageUrl: storage.publicUrl(task.imageKey!),
          thumbUrl: task.thumbKey ? storage.publicUrl(task.thumbKey) : null,
          width: task.width,
          height: task.height,
          prompt: task.prompt,
          author: maskNickname(nickName),
          publishTime: task.publishTime?.getTime() ?? task.updatedAt.getTime(),
          mine: task.accountId === auth.account.id
        })),
        total: total?.n ?? 0,
        pageNum: body.pageNum,
        pageSize: body.pageSize
      }
    }
  )

  async function setPublished(accountId: string, taskId: string, published: boolean): Promise<PaintingTask> {
    const task = await ownTask(accountId, taskId)
    if (published && (task.status !== 'SUCCESS' || !task.imageKey || task.action === 'DESCRIBE')) {
      throw new ApiError(40000001, '只能发布已完成的作品')
    }
    const [row] = await api.db
      .update(paintingTasks)
      .set({ published, publishTime: published ? (task.publishTime ?? new Date(api.now())) : null })
      .where(eq(paintingTasks.id, task.id))
      .returning()
    return row!
  }

  defineRoute(
    api,
    '/api/v1/gallery/publish',
    { tag: 'gallery', summary: 'Show one of my finished works in the gallery', auth: true, permission: [PAINTING, SD], body: z.object({ taskId: taskIdField }), response: taskSchema },
    async ({ auth, body }) => wire(await setPublished(auth.account.id, body.taskId, true))
  )

  defineRoute(
    api,
    '/api/v1/gallery/unpublish',
    { tag: 'gallery', summary: 'Take one of my works out of the gallery', auth: true, permission: [PAINTING, SD], body: z.object({ taskId: taskIdField }), response: taskSchema },
    async ({ auth, body }) => wire(await setPublished(auth.account.id, body.taskId, false))
  )
}
