import { z } from 'zod'
import type { PaintingTask } from '../db/schema.js'
import type { Storage } from '../storage/index.js'

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
export const TASK_ACTIONS = ['IMAGINE', 'UPSCALE', 'VARIATION', 'REROLL', 'PAN', 'DESCRIBE', 'BLEND', 'TXT2IMG'] as const
export type TaskAction = (typeof TASK_ACTIONS)[number]
export type PanDirection = 'left' | 'right' | 'up' | 'down'
export const PAN_DIRECTIONS = ['left', 'right', 'up', 'down'] as const
export const BLEND_DIMENSIONS = ['PORTRAIT', 'SQUARE', 'LANDSCAPE'] as const
export type BlendDimensions = (typeof BLEND_DIMENSIONS)[number]

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

export const buttonSchema = z.object({
  label: z.string(),
  action: z.enum(['UPSCALE', 'VARIATION', 'REROLL', 'PAN', 'PROMPT']),
  index: z.number().int().optional(),
  direction: z.enum(PAN_DIRECTIONS).optional()
})
export type Button = z.infer<typeof buttonSchema>

export const taskSchema = z.object({
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
  updateTime: z.number()
})
export type WireTask = z.infer<typeof taskSchema>

const GRID_BUTTONS: Button[] = [
  ...[1, 2, 3, 4].map((index) => ({ label: `U${index}`, action: 'UPSCALE' as const, index })),
  ...[1, 2, 3, 4].map((index) => ({ label: `V${index}`, action: 'VARIATION' as const, index })),
  { label: '🔄', action: 'REROLL' }
]
const PAN_BUTTONS: Button[] = [
  { label: '⬅️', action: 'PAN', direction: 'left' },
  { label: '➡️', action: 'PAN', direction: 'right' },
  { label: '⬆️', action: 'PAN', direction: 'up' },
  { label: '⬇️', action: 'PAN', direction: 'down' }
]
const PROMPT_BUTTONS: Button[] = [1, 2, 3, 4].map((index) => ({ label: `P${index}`, action: 'PROMPT' as const, index }))

/** What may be pressed on a task now (painting-wire.md, "Buttons by task"). */
export function buttonsOf(task: Pick<PaintingTask, 'kind' | 'action' | 'status' | 'prompts'>): Button[] {
  if (task.kind !== 'mj' || task.status !== 'SUCCESS') return []
  switch (task.action as TaskAction) {
    case 'IMAGINE':
    case 'VARIATION':
    case 'REROLL':
    case 'BLEND':
    case 'PAN':
      return GRID_BUTTONS
    case 'UPSCALE':
      return PAN_BUTTONS
    case 'DESCRIBE':
      return (task.prompts?.length ?? 0) >= 4 ? PROMPT_BUTTONS : []
    default:
      return []
  }
}

export function toWire(task: PaintingTask, storage: Storage): WireTask {
  return {
    taskId: task.id,
    kind: task.kind as 'mj' | 'sd',
    action: task.action as TaskAction,
    status: task.status as TaskStatus,
    progress: task.progress,
    prompt: task.prompt,
    promptEn: task.promptEn,
    parentId: task.parentId,
    index: task.index,
    imageUrl: task.imageKey ? storage.publicUrl(task.imageKey) : null,
    thumbUrl: task.thumbKey ? storage.publicUrl(task.thumbKey) : null,
    width: task.width,
    height: task.height,
    prompts: task.prompts ?? [],
    buttons: buttonsOf(task),
    failReason: task.failReason,
    demo: task.demo,
    published: task.published,
    params: task.params ?? null,
    createTime: task.createdAt.getTime(),
    updateTime: task.updatedAt.getTime()
  }
}
