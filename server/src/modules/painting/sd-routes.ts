import { z } from 'zod'
import type { PaintingTask } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { optionalText, requiredText, wholeNumber } from '../../http/fields.js'
import sharp from 'sharp'
import { storeMask } from './masks.js'
import type { Img2ImgParams, ImageInput, PaintingProvider } from './providers/provider.js'
import type { PaintingRuntime } from './runtime.js'
import { MASK_MAX_BYTES, SD_PERMISSION, sdOptionsSchema, taskSchema, type WireTask } from './wire.js'

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

const SAMPLERS_TTL_MS = 5 * 60_000
const SIDE_MAX = 1536

/** The stable-diffusion page: its options, txt2img, img2img and inpaint (1 mjCount each, drawn by the configured SD painter). */
export function registerSdRoutes(
  api: Api,
  runtime: PaintingRuntime,
  wire: (row: PaintingTask) => WireTask,
  readImages: (urls: string[], label: string) => Promise<ImageInput[]>
): void {
  const SD = SD_PERMISSION
  let cached: { at: number; names: string[] } | undefined

  /**
   * The sampler list of the painter new SD tasks go to now: the upstream's own (`/sdapi/v1/samplers`),
   * kept a few minutes; the built-in list for the demo painter or when it cannot be read.
   */
  async function samplers(painter: PaintingProvider): Promise<string[]> {
    if (!painter.samplers) return [...SD_SAMPLERS]
    if (cached && api.now() - cached.at < SAMPLERS_TTL_MS) return cached.names
    try {
      const names = await painter.samplers()
      if (names.length > 0) {
        cached = { at: api.now(), names }
        return names
      }
    } catch {
      // Shown from the built-in list; a sampler the upstream lacks fails that task, refunded.
    }
    return [...SD_SAMPLERS]
  }

  async function checkSampler(name: string): Promise<void> {
    const names = await samplers(await runtime.current('sd'))
    if (!names.includes(name)) throw new ApiError(40000001, `采样器「${name}」不可用，可选：${names.slice(0, 12).join('、')}`)
  }

  defineRoute(
    api,
    '/api/v1/sd/options',
    {
      tag: 'sd',
      summary: 'Samplers (the upstream’s own), size presets and defaults of the SD page',
      auth: true,
      permission: SD,
      body: z.object({}),
      response: sdOptionsSchema
    },
    async () => {
      // Asked at each visit: a Stable Diffusion channel added or disabled in the console shows at once.
      const painter = await runtime.current('sd')
      const names = await samplers(painter)
      const sampler = names.includes(SD_DEFAULTS.sampler) ? SD_DEFAULTS.sampler : names[0]!
      return { samplers: names, sizes: SD_SIZES, defaults: { ...SD_DEFAULTS, sampler }, demo: painter.demo }
    }
  )

  const side = (label: string) => wholeNumber(label, 256, SIDE_MAX).refine((n) => n % 8 === 0, `${label}必须是 8 的倍数`)

  defineRoute(
    api,
    '/api/v1/sd/txt2img',
    {
      tag: 'sd',
      summary: 'Stable diffusion text to image (1 mjCount)',
      auth: true,
      permission: SD,
      body: z.object({
        prompt: requiredText('提示词', { max: 2000 }),
        negativePrompt: optionalText('反向提示词', { max: 2000 }),
        width: side('宽度'),
        height: side('高度'),
        steps: wholeNumber('步数', 1, 60),
        cfgScale: z.number({ error: 'CFG 必须是数字' }).min(1, 'CFG 不能小于 1').max(20, 'CFG 不能大于 20'),
        sampler: requiredText('采样器', { max: 100 }),
        seed: wholeNumber('种子', -1, 4294967295).optional()
      }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      await checkSampler(body.sampler)
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

  defineRoute(
    api,
    '/api/v1/sd/img2img',
    {
      tag: 'sd',
      summary: 'Stable diffusion image to image; with `mask`, inpaint (1 mjCount)',
      auth: true,
      permission: SD,
      body: z.object({
        image: requiredText('原图', { max: 1000 }),
        mask: z
          .string({ error: '蒙版格式不正确' })
          .max(Math.ceil((MASK_MAX_BYTES * 4) / 3) + 64, `蒙版过大（最大 ${Math.round(MASK_MAX_BYTES / 1024)} KB），请缩小画布后重试`)
          .optional()
          .meta({ description: 'Inpaint: data:image/png;base64 of the picture’s size, white = redraw' }),
        prompt: requiredText('提示词', { max: 2000 }),
        negativePrompt: optionalText('反向提示词', { max: 2000 }),
        steps: wholeNumber('步数', 1, 60),
        cfgScale: z.number({ error: 'CFG 必须是数字' }).min(1, 'CFG 不能小于 1').max(20, 'CFG 不能大于 20'),
        sampler: requiredText('采样器', { max: 100 }),
        seed: wholeNumber('种子', -1, 4294967295).optional(),
        denoisingStrength: z.number({ error: '重绘幅度必须是数字' }).min(0, '重绘幅度不能小于 0').max(1, '重绘幅度不能大于 1'),
        inpaintingFill: wholeNumber('蒙版填充方式', 0, 3).optional().meta({ description: '0 fill, 1 original, 2 latent noise, 3 latent nothing' }),
        maskBlur: wholeNumber('蒙版边缘模糊', 0, 64).optional()
      }),
      response: taskSchema
    },
    async ({ auth, body }) => {
      await checkSampler(body.sampler)
      const [image] = await readImages([body.image], '原图')
      let size: { width: number; height: number }
      try {
        const meta = await sharp(image!.body).metadata()
        size = { width: meta.width ?? 0, height: meta.height ?? 0 }
      } catch {
        throw new ApiError(40000001, '原图无法识别，请换一张图片')
      }
      if (size.width < 64 || size.height < 64) throw new ApiError(40000001, '原图太小（至少 64×64）')
      const mask = body.mask ? await storeMask(runtime.storage, body.mask, size, new Date(api.now())) : null
      // Drawn at the picture's shape, long side at most 1536, both sides multiples of 8.
      const scale = Math.min(1, SIDE_MAX / Math.max(size.width, size.height))
      const eight = (n: number) => Math.max(64, Math.round((n * scale) / 8) * 8)
      const params: Img2ImgParams = {
        prompt: body.prompt,
        negativePrompt: body.negativePrompt ?? '',
        width: eight(size.width),
        height: eight(size.height),
        steps: body.steps,
        cfgScale: body.cfgScale,
        sampler: body.sampler,
        seed: body.seed ?? -1,
        denoisingStrength: body.denoisingStrength,
        inpaintingFill: body.inpaintingFill ?? 1,
        maskBlur: body.maskBlur ?? 4
      }
      const action = mask ? ('INPAINT' as const) : ('IMG2IMG' as const)
      try {
        const row = await runtime.create({
          accountId: auth.account.id,
          kind: 'sd',
          prompt: body.prompt,
          params: { ...params },
          imageKey: null,
          job: { action, params, image: image!, mask }
        })
        return wire(row)
      } catch (error) {
        if (mask) await runtime.storage.delete(mask.key).catch(() => {})
        throw error
      }
    }
  )
}
