import type { PaintingTask } from '../../db/schema.js'
import type { Storage } from '../../storage/storage.js'
import { customIdFor } from './providers/midjourney-proxy.js'
import type { Button, TaskAction, TaskStatus, WireTask } from './wire.js'

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
const EDIT_BUTTONS: Button[] = [
  { label: '缩小 2x', action: 'ZOOM', mode: '2x' },
  { label: '缩小 1.5x', action: 'ZOOM', mode: '1.5x' },
  { label: '自定义缩放', action: 'ZOOM', mode: 'custom' },
  { label: '微变', action: 'VARY', mode: 'subtle' },
  { label: '强变', action: 'VARY', mode: 'strong' },
  { label: '局部重绘', action: 'VARY_REGION' }
]
const HD_BUTTONS: Button[] = [
  { label: '高清 细腻', action: 'UPSCALE_HD', mode: 'subtle' },
  { label: '高清 创意', action: 'UPSCALE_HD', mode: 'creative' }
]
const promptButtons = (n: number): Button[] => Array.from({ length: n }, (_, i) => ({ label: `P${i + 1}`, action: 'PROMPT' as const, index: i + 1 }))

/** What may be pressed on a task now (painting-wire.md, "Buttons by task"). */
export function buttonsOf(task: Pick<PaintingTask, 'kind' | 'action' | 'status' | 'prompts'> & Partial<Pick<PaintingTask, 'provider' | 'upstream'>>): Button[] {
  if (task.kind !== 'mj' || task.status !== 'SUCCESS') return []
  const all = allButtonsOf(task)
  if (task.provider !== 'midjourney-proxy') return all
  // Zoom, vary and upscale subtle / creative exist only where the proxy gave their buttons (plus / trueai).
  return all.filter(
    (b) => !EDIT_ACTIONS.has(b.action) || customIdFor(task.upstream ?? null, { action: b.action, ...(b.mode ? { mode: b.mode } : {}) }) !== undefined
  )
}

const EDIT_ACTIONS = new Set<Button['action']>(['ZOOM', 'VARY', 'VARY_REGION', 'UPSCALE_HD'])

function allButtonsOf(task: Pick<PaintingTask, 'action' | 'prompts'>): Button[] {
  switch (task.action as TaskAction) {
    case 'IMAGINE':
    case 'VARIATION':
    case 'REROLL':
    case 'BLEND':
    case 'PAN':
    case 'ZOOM':
    case 'VARY':
    case 'VARY_REGION':
      return GRID_BUTTONS
    case 'UPSCALE':
      return [...PAN_BUTTONS, ...EDIT_BUTTONS, ...HD_BUTTONS]
    case 'UPSCALE_HD':
      return [...PAN_BUTTONS, ...EDIT_BUTTONS]
    case 'DESCRIBE':
      return (task.prompts?.length ?? 0) >= 4 ? promptButtons(4) : []
    case 'SHORTEN':
      return promptButtons(Math.min(5, task.prompts?.length ?? 0))
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
