import type { PaintingTask } from '../../db/schema.js'
import type { Storage } from '../../storage/storage.js'
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
