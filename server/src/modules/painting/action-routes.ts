import { z } from 'zod'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, oneOf, optionalText, requiredText, wholeNumber } from '../../http/fields.js'
import type { PaintingTask } from '../../db/schema.js'
import { storeMask } from './masks.js'
import type { ImageInput, PaintingJob, PaintingProvider } from './providers/provider.js'
import type { PaintingRuntime } from './runtime.js'
import { buttonsOf } from './to-wire.js'
import { translatePrompt } from './translate.js'
import {
  ACTION_MODES,
  type ActionMode,
  type Button,
  CUSTOM_ZOOM_MAX,
  CUSTOM_ZOOM_MIN,
  MASK_MAX_BYTES,
  PAINTING_PERMISSION,
  PAN_DIRECTIONS,
  paintingFeaturesSchema,
  taskSchema,
  type WireTask,
  ZOOM_FACTORS
} from './wire.js'

const PAINTING = PAINTING_PERMISSION
const ACTIONS = ['UPSCALE', 'VARIATION', 'REROLL', 'PAN', 'ZOOM', 'VARY', 'VARY_REGION', 'UPSCALE_HD'] as const
type Action = (typeof ACTIONS)[number]
/** A mask's data URL may be this long (its bytes are checked again once decoded). */
const MASK_TEXT_MAX = Math.ceil((MASK_MAX_BYTES * 4) / 3) + 64

const needsMode = (action: Action) => action === 'ZOOM' || action === 'VARY' || action === 'UPSCALE_HD'
const needsIndex = (action: Action) => action === 'UPSCALE' || action === 'VARIATION'

/** Whether a task offers this button now (the same list the card shows). */
function offers(parent: PaintingTask, body: { action: Action; index?: number | undefined; direction?: string | undefined; mode?: ActionMode | undefined }) {
  return buttonsOf(parent).some(
    (b: Button) =>
      b.action === body.action &&
      (needsIndex(body.action) ? b.index === body.index : true) &&
      (body.action === 'PAN' ? b.direction === body.direction : true) &&
      (needsMode(body.action) ? b.mode === body.mode : true)
  )
}

/**
 * Midjourney follow-ups on a finished task (U/V/🔄/pan, zoom, vary, vary region, upscale subtle /
 * creative), shorten, face swap and the prompt preview. Every task costs one mjCount, taken with
 * its log when it is created and given back when it fails (runtime.create, charges.ts); a request
 * refused here (bad mask, wrong index, someone else's task) charges nothing.
 */
export function registerActionRoutes(
  api: Api,
  runtime: PaintingRuntime,
  ownTask: (accountId: string, taskId: string) => Promise<PaintingTask>,
  readImages: (urls: string[], label: string) => Promise<ImageInput[]>,
  wire: (row: PaintingTask) => WireTask
): void {
  const { storage } = runtime

  defineRoute(
    api,
    '/api/v1/painting/action',
    {
      tag: 'painting',
      summary: 'A button of a finished task: U1–U4, V1–V4, reroll, pan, zoom, vary, vary region, upscale subtle/creative (1 mjCount)',
      auth: true,
      permission: PAINTING,
      body: z.object({
        taskId: idField('任务ID'),
        action: oneOf('action', ACTIONS),
        index: wholeNumber('index', 1, 4).optional(),
        direction: oneOf('direction', PAN_DIRECTIONS).optional(),
        mode: oneOf('mode', ACTION_MODES).optional(),
        zoom: z
          .number({ error: '缩放倍数必须是数字' })
          .min(CUSTOM_ZOOM_MIN, `缩放倍数不能小于 ${CUSTOM_ZOOM_MIN}`)
          .max(CUSTOM_ZOOM_MAX, `缩放倍数不能大于 ${CUSTOM_ZOOM_MAX}`)
          .optional()
          .meta({ description: 'Custom zoom: 1–2' }),
        prompt: optionalText('提示词', { max: 4000 }).meta({ description: 'Custom zoom and vary region: the prompt to draw with (default: the task’s)' }),
        mask: z
          .string({ error: '蒙版格式不正确' })
          .max(MASK_TEXT_MAX, `蒙版过大（最大 ${Math.round(MASK_MAX_BYTES / 1024)} KB），请缩小画布后重试`)
          .optional()
          .meta({ description: 'Vary region: data:image/png;base64 of the picture’s size, white = redraw' })
      }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      const parent = await ownTask(auth.account.id, body.taskId)
      if (parent.status !== 'SUCCESS') throw new ApiError(40000001, '任务尚未完成，不能执行此操作')
      if (needsIndex(body.action) && body.index === undefined) throw new ApiError(40000001, 'index 不能为空')
      if (body.action === 'PAN' && body.direction === undefined) throw new ApiError(40000001, 'direction 不能为空')
      if (needsMode(body.action) && body.mode === undefined) throw new ApiError(40000001, 'mode 不能为空')
      if (!offers(parent, body)) throw new ApiError(40000001, '该任务不能执行此操作')
      const basePrompt = parent.promptEn || parent.prompt
      let job: PaintingJob
      let params: Record<string, unknown> | null = null
      let mask: ImageInput | undefined
      switch (body.action) {
        case 'PAN':
          job = { action: 'PAN', parent, direction: body.direction! }
          params = { direction: body.direction }
          break
        case 'REROLL':
          job = { action: 'REROLL', parent }
          break
        case 'UPSCALE':
        case 'VARIATION':
          job = { action: body.action, parent, index: body.index! }
          break
        case 'ZOOM': {
          const mode = body.mode as '2x' | '1.5x' | 'custom'
          if (mode === 'custom' && body.zoom === undefined) throw new ApiError(40000001, `请填写缩放倍数（${CUSTOM_ZOOM_MIN}–${CUSTOM_ZOOM_MAX}）`)
          const zoom = mode === 'custom' ? Math.round(body.zoom! * 100) / 100 : ZOOM_FACTORS[mode]
          job = { action: 'ZOOM', parent, mode, zoom, prompt: body.prompt?.trim() || basePrompt }
          params = { mode, zoom }
          break
        }
        case 'VARY':
          job = { action: 'VARY', parent, strong: body.mode === 'strong' }
          params = { mode: body.mode }
          break
        case 'UPSCALE_HD':
          job = { action: 'UPSCALE_HD', parent, creative: body.mode === 'creative' }
          params = { mode: body.mode }
          break
        case 'VARY_REGION': {
          if (!body.mask) throw new ApiError(40000001, '请先在图片上涂抹要重绘的区域')
          if (!parent.width || !parent.height) throw new ApiError(40000001, '原图尺寸未知，无法局部重绘')
          mask = await storeMask(storage, body.mask, { width: parent.width, height: parent.height }, new Date(api.now()))
          job = { action: 'VARY_REGION', parent, mask, prompt: body.prompt?.trim() || basePrompt }
          params = body.prompt?.trim() ? { prompt: body.prompt.trim() } : null
          break
        }
      }
      try {
        const row = await runtime.create({
          accountId: auth.account.id,
          kind: 'mj',
          prompt: body.action === 'VARY_REGION' || body.action === 'ZOOM' ? body.prompt?.trim() || parent.prompt : parent.prompt,
          parentId: parent.id,
          index: needsIndex(body.action) ? body.index! : null,
          params,
          job
        })
        return wire(row)
      } catch (error) {
        if (mask) await storage.delete(mask.key).catch(() => {})
        throw error
      }
    }
  )

  defineRoute(
    api,
    '/api/v1/painting/shorten',
    {
      tag: 'painting',
      summary: 'Shorten: up to five shorter versions of a prompt, to pick one and imagine (1 mjCount)',
      auth: true,
      permission: PAINTING,
      body: z.object({ prompt: requiredText('提示词', { max: 4000 }) }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      const features = await featuresOf(await runtime.current('mj'))
      if (!features.shorten) throw new ApiError(40000001, '当前绘画服务不支持提示词精简')
      const row = await runtime.create({ accountId: auth.account.id, kind: 'mj', prompt: body.prompt, job: { action: 'SHORTEN', prompt: body.prompt } })
      return wire(row)
    }
  )

  defineRoute(
    api,
    '/api/v1/painting/swap-face',
    {
      tag: 'painting',
      summary: 'Face swap (InsightFace): the face of `source` onto `target`, when the upstream offers it (1 mjCount)',
      auth: true,
      permission: PAINTING,
      body: z.object({ source: requiredText('人脸图片', { max: 1000 }), target: requiredText('目标图片', { max: 1000 }) }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      const features = await featuresOf(await runtime.current('mj'))
      if (!features.faceSwap) throw new ApiError(40000001, '当前绘画服务不支持换脸')
      const [source] = await readImages([body.source], '人脸图片')
      const [target] = await readImages([body.target], '目标图片')
      const row = await runtime.create({
        accountId: auth.account.id,
        kind: 'mj',
        prompt: '',
        job: { action: 'SWAP_FACE', source: source!, target: target! }
      })
      return wire(row)
    }
  )

  defineRoute(
    api,
    '/api/v1/painting/features',
    {
      tag: 'painting',
      summary: 'What the configured Midjourney upstream can do (buttons, shorten, face swap)',
      auth: true,
      permission: PAINTING,
      body: z.object({}),
      response: paintingFeaturesSchema
    },
    async () => {
      // The painter new tasks go to now: a channel added or disabled in the console shows at once.
      const painter = await runtime.current('mj')
      return { ...(await featuresOf(painter)), demo: painter.demo }
    }
  )

  defineRoute(
    api,
    '/api/v1/painting/translate',
    {
      tag: 'painting',
      summary: 'The English prompt the server would send for a Chinese one, to show and edit before imagine (free)',
      auth: true,
      permission: PAINTING,
      body: z.object({ prompt: requiredText('提示词', { max: 4000 }) }),
      response: z.object({ promptEn: z.string(), translated: z.boolean(), missing: z.array(z.string()) }).meta({ id: 'PromptTranslation' })
    },
    async ({ body }) => translatePrompt(body.prompt)
  )
}

async function featuresOf(painter: PaintingProvider) {
  if (!painter.features) return { actions: false, shorten: false, faceSwap: false }
  return painter.features()
}
