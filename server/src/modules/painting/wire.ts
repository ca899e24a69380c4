import { z } from 'zod'

/** Permission codes: Midjourney, stable diffusion, the gallery. */
export const PAINTING_PERMISSION = 'AI_TOOLS_PAINTING'
export const SD_PERMISSION = 'AI_TOOLS_SD'
export const GALLERY_PERMISSION = 'AI_TOOLS_GALLERY'

/**
 * Task statuses, spelled as the product spec spells them (`INTERRPUT` included).
 * - NOT_START: saved and charged, not yet accepted by the upstream.
 * - SUBMITTED: the upstream accepted it (maybe queued).
 * - IN_PROGRESS: drawing; `progress` moves 0..100.
 * - SUCCESS: finished; the image is in Lingxi's storage.
 * - FAILURE: the upstream failed or refused it; allowance given back.
 * - INTERRPUT: the person stopped it; allowance given back.
 * - TIMEOUT: not finished within the configured limit; allowance given back.
 */
export const TASK_STATUSES = ['NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'INTERRPUT', 'TIMEOUT'] as const
export type TaskStatus = (typeof TASK_STATUSES)[number]
export const TASK_ACTIONS = [
  'IMAGINE',
  'UPSCALE',
  'VARIATION',
  'REROLL',
  'PAN',
  'DESCRIBE',
  'BLEND',
  'TXT2IMG',
  /** Zoom out 2×, 1.5× or a custom factor (1–2) from an upscaled image: a new grid. */
  'ZOOM',
  /** Vary (subtle / strong) an upscaled image: a new grid. */
  'VARY',
  /** Vary region: repaint what the mask covers (white), keep the rest: a new grid. */
  'VARY_REGION',
  /** Upscale (subtle / creative) an upscaled image again: one larger image. */
  'UPSCALE_HD',
  /** Shorten a prompt: up to five shorter prompts to pick from. */
  'SHORTEN',
  /** Face swap (InsightFace): the face of one picture onto another. */
  'SWAP_FACE',
  /** Stable diffusion: image to image, and inpaint (image to image within a mask). */
  'IMG2IMG',
  'INPAINT'
] as const
export type TaskAction = (typeof TASK_ACTIONS)[number]
export type PanDirection = 'left' | 'right' | 'up' | 'down'
export const PAN_DIRECTIONS = ['left', 'right', 'up', 'down'] as const
export const BLEND_DIMENSIONS = ['PORTRAIT', 'SQUARE', 'LANDSCAPE'] as const
export type BlendDimensions = (typeof BLEND_DIMENSIONS)[number]
/** ZOOM: 2×, 1.5× or custom; VARY: subtle / strong; UPSCALE_HD: subtle / creative. */
export const ACTION_MODES = ['2x', '1.5x', 'custom', 'subtle', 'strong', 'creative'] as const
export type ActionMode = (typeof ACTION_MODES)[number]
/** The factor of each zoom button; custom zooms take one between these bounds. */
export const ZOOM_FACTORS = { '2x': 2, '1.5x': 1.5 } as const
export const CUSTOM_ZOOM_MIN = 1
export const CUSTOM_ZOOM_MAX = 2
/** A mask (vary region, inpaint): PNG, white = repaint, at most this many bytes (it travels in a JSON body of at most 1 MB). */
export const MASK_MAX_BYTES = 512 * 1024

/** Status order of midjourney-proxy (TaskStatus.order): updates only ever move up. Every end is 4. */
export const STATUS_RANK: Record<TaskStatus, number> = {
  NOT_START: 0,
  SUBMITTED: 1,
  IN_PROGRESS: 3,
  SUCCESS: 4,
  FAILURE: 4,
  INTERRPUT: 4,
  TIMEOUT: 4
}
export const FINISHED_RANK = 4
export const isFinished = (status: string) => STATUS_RANK[status as TaskStatus] === FINISHED_RANK

export const buttonSchema = z
  .object({
    label: z.string(),
    action: z.enum(['UPSCALE', 'VARIATION', 'REROLL', 'PAN', 'PROMPT', 'ZOOM', 'VARY', 'VARY_REGION', 'UPSCALE_HD']),
    index: z.number().int().optional(),
    direction: z.enum(PAN_DIRECTIONS).optional(),
    mode: z.enum(ACTION_MODES).optional()
  })
  .meta({ id: 'TaskButton' })
export type Button = z.infer<typeof buttonSchema>

export const taskSchema = z
  .object({
    taskId: z.string(),
    kind: z.enum(['mj', 'sd']),
    action: z.enum(TASK_ACTIONS),
    status: z.enum(TASK_STATUSES),
    progress: z.number().int().min(0).max(100),
    prompt: z.string(),
    promptEn: z.string(),
    parentId: z.string().nullable(),
    index: z.number().int().nullable(),
    imageUrl: z.string().nullable(),
    thumbUrl: z.string().nullable(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    prompts: z.array(z.string()),
    buttons: z.array(buttonSchema),
    failReason: z.string().nullable(),
    demo: z.boolean(),
    published: z.boolean(),
    params: z.record(z.string(), z.unknown()).nullable(),
    createTime: z.number(),
    updateTime: z.number(),
    /** Set in my lists while an operator has it taken down (已下架): the reason; its files are not served. */
    takedown: z.string().nullable().optional()
  })
  .meta({ id: 'PaintingTask' })
export type WireTask = z.infer<typeof taskSchema>

/** A published work of `gallery/list`; `author` is the masked nickname. */
export const galleryItemSchema = z
  .object({
    workId: z.string(),
    taskId: z.string(),
    imageUrl: z.string(),
    thumbUrl: z.string().nullable(),
    width: z.number().nullable(),
    height: z.number().nullable(),
    prompt: z.string(),
    author: z.string(),
    publishTime: z.number(),
    mine: z.boolean(),
    /** mj or sd: the page that drew it. */
    model: z.string(),
    /** Likes, one per account; `liked`: whether the caller's account is one of them. */
    likes: z.number(),
    liked: z.boolean(),
    /** Likes of the last 7 days (what 本周最受欢迎 orders by). */
    weekLikes: z.number()
  })
  .meta({ id: 'GalleryItem' })

/** `gallery/like` and `gallery/unlike`: the work's count after the change. */
export const galleryLikeSchema = z.object({ workId: z.string(), likes: z.number(), liked: z.boolean() }).meta({ id: 'GalleryLike' })

/** `sd/options`: the samplers, size presets and defaults of the stable-diffusion page. */
export const sdOptionsSchema = z
  .object({
    samplers: z.array(z.string()),
    sizes: z.array(z.object({ label: z.string(), width: z.number(), height: z.number() })),
    defaults: z.object({ steps: z.number(), cfgScale: z.number(), sampler: z.string(), width: z.number(), height: z.number() }),
    demo: z.boolean()
  })
  .meta({ id: 'SdOptions' })

/** `painting/features`: what the configured Midjourney upstream can do beyond imagine / U / V. */
export const paintingFeaturesSchema = z
  .object({
    /** Zoom, vary (subtle / strong / region), upscale subtle / creative: buttons of a plus proxy (or the demo). */
    actions: z.boolean(),
    shorten: z.boolean(),
    faceSwap: z.boolean(),
    demo: z.boolean()
  })
  .meta({ id: 'PaintingFeatures' })
export type PaintingFeatures = z.infer<typeof paintingFeaturesSchema>
