import { and, eq } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import { type PaintingTask, paintingTasks } from '../../db/schema.js'
import { contentTypeOfKey, extensionFor, type Storage } from '../../storage/index.js'
import { type Img2ImgParams, type ImageInput, type PaintingJob, ProviderError, type Txt2ImgParams, type ZoomMode } from './providers/provider.js'
import type { BlendDimensions, PanDirection } from './wire.js'

/**
 * What an in-process painter is asked to draw, as plain JSON saved on the task (`upstream.input`):
 * pictures by storage key, the parent by id. The job queue carries only the task id, so whichever
 * node runs the job (or takes it over from a node that died) rebuilds the PaintingJob from this.
 */
export type StoredJob =
  | { action: 'IMAGINE'; prompt: string; imageKeys: string[]; seed?: number; aspect?: string }
  | { action: 'UPSCALE' | 'VARIATION'; index: number }
  | { action: 'REROLL' }
  | { action: 'PAN'; direction: PanDirection }
  | { action: 'DESCRIBE'; imageKey: string }
  | { action: 'BLEND'; imageKeys: string[]; dimensions: BlendDimensions }
  | { action: 'TXT2IMG'; params: Txt2ImgParams }
  | { action: 'ZOOM'; mode: ZoomMode; zoom: number; prompt: string }
  | { action: 'VARY'; strong: boolean }
  | { action: 'VARY_REGION'; maskKey: string; prompt: string }
  | { action: 'UPSCALE_HD'; creative: boolean }
  | { action: 'SHORTEN'; prompt: string }
  | { action: 'SWAP_FACE'; sourceKey: string; targetKey: string }
  | { action: 'IMG2IMG' | 'INPAINT'; params: Img2ImgParams; imageKey: string; maskKey: string | null }

/** The key of `paintingTasks.upstream` that holds the StoredJob (never on the wire). */
export const INPUT_KEY = 'input'

export function toStoredJob(job: PaintingJob): StoredJob {
  switch (job.action) {
    case 'IMAGINE':
      return {
        action: 'IMAGINE',
        prompt: job.prompt,
        imageKeys: job.images.map((i) => i.key),
        ...(job.seed !== undefined ? { seed: job.seed } : {}),
        ...(job.aspect !== undefined ? { aspect: job.aspect } : {})
      }
    case 'UPSCALE':
    case 'VARIATION':
      return { action: job.action, index: job.index }
    case 'REROLL':
      return { action: 'REROLL' }
    case 'PAN':
      return { action: 'PAN', direction: job.direction }
    case 'DESCRIBE':
      return { action: 'DESCRIBE', imageKey: job.image.key }
    case 'BLEND':
      return { action: 'BLEND', imageKeys: job.images.map((i) => i.key), dimensions: job.dimensions }
    case 'TXT2IMG':
      return { action: 'TXT2IMG', params: job.params }
    case 'ZOOM':
      return { action: 'ZOOM', mode: job.mode, zoom: job.zoom, prompt: job.prompt }
    case 'VARY':
      return { action: 'VARY', strong: job.strong }
    case 'VARY_REGION':
      return { action: 'VARY_REGION', maskKey: job.mask.key, prompt: job.prompt }
    case 'UPSCALE_HD':
      return { action: 'UPSCALE_HD', creative: job.creative }
    case 'SHORTEN':
      return { action: 'SHORTEN', prompt: job.prompt }
    case 'SWAP_FACE':
      return { action: 'SWAP_FACE', sourceKey: job.source.key, targetKey: job.target.key }
    case 'IMG2IMG':
    case 'INPAINT':
      return { action: job.action, params: job.params, imageKey: job.image.key, maskKey: job.mask?.key ?? null }
  }
}

/** The PaintingJob of a saved task; ProviderError (Chinese, shown on the task) when its pictures or parent are gone. */
export async function loadJob(db: Db, storage: Storage, task: PaintingTask): Promise<PaintingJob> {
  const stored = task.upstream?.[INPUT_KEY] as StoredJob | undefined
  if (!stored || typeof stored !== 'object' || stored.action !== task.action) throw new ProviderError('任务内容已丢失，无法绘画')
  const image = async (key: string): Promise<ImageInput> => {
    const file = await storage.get(key)
    if (!file) throw new ProviderError('图片不存在或已被删除，请重新上传')
    return { key, body: file.body, contentType: extensionFor(file.contentType) ? file.contentType : (contentTypeOfKey(key) ?? 'image/png') }
  }
  const parent = async (): Promise<PaintingTask> => {
    const [row] = task.parentId
      ? await db
          .select()
          .from(paintingTasks)
          .where(and(eq(paintingTasks.id, task.parentId), eq(paintingTasks.accountId, task.accountId)))
      : []
    if (row?.status !== 'SUCCESS') throw new ProviderError('原图已不存在，无法继续操作')
    return row
  }
  switch (stored.action) {
    case 'IMAGINE':
      return { action: 'IMAGINE', prompt: stored.prompt, images: await Promise.all(stored.imageKeys.map(image)), seed: stored.seed, aspect: stored.aspect }
    case 'UPSCALE':
    case 'VARIATION':
      return { action: stored.action, parent: await parent(), index: stored.index }
    case 'REROLL':
      return { action: 'REROLL', parent: await parent() }
    case 'PAN':
      return { action: 'PAN', parent: await parent(), direction: stored.direction }
    case 'DESCRIBE':
      return { action: 'DESCRIBE', image: await image(stored.imageKey) }
    case 'BLEND':
      return { action: 'BLEND', images: await Promise.all(stored.imageKeys.map(image)), dimensions: stored.dimensions }
    case 'TXT2IMG':
      return { action: 'TXT2IMG', params: stored.params }
    case 'ZOOM':
      return { action: 'ZOOM', parent: await parent(), mode: stored.mode, zoom: stored.zoom, prompt: stored.prompt }
    case 'VARY':
      return { action: 'VARY', parent: await parent(), strong: stored.strong }
    case 'VARY_REGION':
      return { action: 'VARY_REGION', parent: await parent(), mask: await image(stored.maskKey), prompt: stored.prompt }
    case 'UPSCALE_HD':
      return { action: 'UPSCALE_HD', parent: await parent(), creative: stored.creative }
    case 'SHORTEN':
      return { action: 'SHORTEN', prompt: stored.prompt }
    case 'SWAP_FACE':
      return { action: 'SWAP_FACE', source: await image(stored.sourceKey), target: await image(stored.targetKey) }
    case 'IMG2IMG':
    case 'INPAINT':
      return {
        action: stored.action,
        params: stored.params,
        image: await image(stored.imageKey),
        mask: stored.maskKey ? await image(stored.maskKey) : null
      }
  }
}
