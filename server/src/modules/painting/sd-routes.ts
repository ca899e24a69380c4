import { z } from 'zod'
import type { PaintingTask } from '../../db/schema.js'
import { type Api, defineRoute } from '../../http/api.js'
import { oneOf, optionalText, requiredText, wholeNumber } from '../../http/fields.js'
import type { PaintingRuntime } from './runtime.js'
import { SD_PERMISSION, sdOptionsSchema, taskSchema, type WireTask } from './wire.js'

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

/** The stable-diffusion page: its options and txt2img (1 mjCount, drawn by the configured SD painter). */
export function registerSdRoutes(api: Api, runtime: PaintingRuntime, wire: (row: PaintingTask) => WireTask): void {
  const SD = SD_PERMISSION

  defineRoute(
    api,
    '/api/v1/sd/options',
    { tag: 'sd', summary: 'Samplers, size presets and defaults of the SD page', auth: true, permission: SD, body: z.object({}), response: sdOptionsSchema },
    async () => ({ samplers: [...SD_SAMPLERS], sizes: SD_SIZES, defaults: SD_DEFAULTS, demo: runtime.sd.demo })
  )

  const side = (label: string) => wholeNumber(label, 256, 1536).refine((n) => n % 8 === 0, `${label}必须是 8 的倍数`)

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
}
