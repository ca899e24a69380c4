import { useStore } from '@nanostores/react'
import { useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import { copyText } from '../../core/format'
import {
  $paintingTasks,
  ACTION_TEXT,
  buttonTitle,
  isTaskFinished,
  painting,
  putTask,
  STATUS_TEXT,
  submitTask,
  type PaintingTask,
  type TaskButton
} from './state'
import { CustomZoomForm, RegionEditor } from './task-editors'

const GRID_ACTIONS = new Set(['IMAGINE', 'VARIATION', 'REROLL', 'PAN', 'BLEND', 'ZOOM', 'VARY', 'VARY_REGION'])

const buttonKey = (b: Pick<TaskButton, 'action' | 'index' | 'direction' | 'mode'>) => `${b.action}:${b.index ?? ''}:${b.direction ?? ''}:${b.mode ?? ''}`

/** Buttons already pressed on a task (a child job exists that did not fail): U and pans are not pressed twice. */
function usedButtons(tasks: Record<string, PaintingTask>, parentId: string): Set<string> {
  const used = new Set<string>()
  for (const t of Object.values(tasks)) {
    if (t.parentId !== parentId || t.status === 'FAILURE' || t.status === 'TIMEOUT' || t.status === 'INTERRPUT') continue
    if (t.action === 'UPSCALE') used.add(buttonKey({ action: 'UPSCALE', index: t.index ?? undefined }))
    if (t.action === 'PAN') {
      const direction = (t.params as { direction?: string } | null)?.direction
      if (direction) used.add(buttonKey({ action: 'PAN', direction: direction as TaskButton['direction'] }))
    }
  }
  return used
}

function timeText(ms: number): string {
  const d = new Date(ms)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getMonth() + 1}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

interface CardProps {
  taskId: string
  /** Opens the image large. */
  onOpen(task: PaintingTask): void
}

/**
 * One job: what it is, its status and progress bar, the image (the 2x2 grid with its quadrant
 * numbers), and the buttons of painting-wire.md with their disabled and loading states.
 */
export function TaskCard({ taskId, onOpen }: CardProps) {
  const tasks = useStore($paintingTasks)
  const task = tasks[taskId]
  const [pending, setPending] = useState<string | null>(null)
  const [editor, setEditor] = useState<'zoom' | 'region' | null>(null)
  if (!task) return null
  const finished = isTaskFinished(task)
  const used = usedButtons(tasks, task.taskId)

  async function press(button: TaskButton) {
    if (pending || !task) return
    if (button.action === 'ZOOM' && button.mode === 'custom') return setEditor(editor === 'zoom' ? null : 'zoom')
    if (button.action === 'VARY_REGION') return setEditor('region')
    const key = buttonKey(button)
    setPending(key)
    try {
      if (button.action === 'PROMPT') {
        const prompt = task.prompts[(button.index ?? 1) - 1]
        if (!prompt) throw new Error('没有这条提示词')
        await submitTask(painting.imagine(prompt))
      } else {
        await submitTask(painting.action(task.taskId, button))
      }
    } catch (error) {
      notifyError(error)
    } finally {
      setPending(null)
    }
  }

  async function stop() {
    if (pending || !task) return
    setPending('stop')
    try {
      putTask(await painting.stop(task.taskId))
    } catch (error) {
      notifyError(error)
    } finally {
      setPending(null)
    }
  }

  const grid = GRID_ACTIONS.has(task.action)
  const ratio = task.width && task.height ? `${task.width} / ${task.height}` : '1 / 1'
  const statusTone =
    task.status === 'SUCCESS'
      ? 'text-ok'
      : task.status === 'FAILURE' || task.status === 'TIMEOUT'
        ? 'text-danger'
        : task.status === 'INTERRPUT'
          ? 'text-muted'
          : 'text-primary'

  return (
    <article
      data-testid="task-card"
      data-task-id={task.taskId}
      data-status={task.status}
      data-action={task.action}
      aria-label={`${ACTION_TEXT[task.action]}：${STATUS_TEXT[task.status]}`}
      className="rounded-card border border-line bg-surface p-3 cq-md:p-4"
    >
      <header className="flex flex-wrap items-center gap-2 text-xs">
        <span className="px-2 py-0.5 rounded-full bg-primary/15 text-primary font-medium">
          {ACTION_TEXT[task.action]}
          {task.index ? ` #${task.index}` : ''}
        </span>
        <span className={`font-medium ${statusTone}`} data-testid="task-status">
          {STATUS_TEXT[task.status]}
          {!finished && task.progress > 0 ? ` ${task.progress}%` : ''}
        </span>
        {task.demo && (
          <span className="px-2 py-0.5 rounded-full border border-line text-muted" title="由离线演示画师绘制，并非真实模型输出">
            演示
          </span>
        )}
        <time className="ml-auto text-muted" dateTime={new Date(task.createTime).toISOString()}>
          {timeText(task.createTime)}
        </time>
      </header>
      {task.prompt && (
        <div className="mt-2 flex items-start gap-2">
          <p className="flex-1 min-w-0 text-sm text-ink/90 break-words line-clamp-3">{task.prompt}</p>
          <button
            type="button"
            onClick={() => copyText(task.prompt)}
            aria-label="复制提示词"
            title="复制提示词"
            className="shrink-0 size-7 grid place-items-center rounded-md text-muted hover:text-ink hover:bg-raised"
          >
            <svg viewBox="0 0 24 24" className="size-4" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden="true">
              <path d="M9 9h11v11H9z M5 15H4V4h11v1" />
            </svg>
          </button>
        </div>
      )}

      {!finished && (
        <div className="mt-3">
          <div
            role="progressbar"
            aria-label="绘制进度"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={task.progress}
            className="h-2 rounded-full bg-raised overflow-hidden"
          >
            <div className="h-full rounded-full bg-primary transition-[width] duration-500" style={{ width: `${Math.max(3, task.progress)}%` }} />
          </div>
          <div className="mt-3 w-full max-w-md rounded-lg bg-raised animate-pulse" style={{ aspectRatio: ratio }} aria-hidden="true" />
        </div>
      )}

      {task.failReason && task.status !== 'SUCCESS' && (
        <p role="alert" className="mt-3 text-sm text-danger">
          {task.failReason}
        </p>
      )}

      {task.status === 'SUCCESS' && task.imageUrl && (
        <div className="mt-3">
          <button
            type="button"
            onClick={() => onOpen(task)}
            aria-label="查看大图"
            className="relative block w-full max-w-md rounded-lg overflow-hidden bg-raised"
            style={{ aspectRatio: ratio }}
          >
            <img src={task.imageUrl} alt={task.promptEn || task.prompt || '生成的图片'} loading="lazy" className="size-full object-cover" />
            {grid && (
              <span aria-hidden="true" className="absolute inset-0 grid grid-cols-2 grid-rows-2 pointer-events-none">
                {[1, 2, 3, 4].map((n) => (
                  <span key={n} className="p-1.5 flex justify-end items-start">
                    <span className="grid place-items-center size-5 rounded-full bg-black/60 text-white text-[11px] font-semibold">{n}</span>
                  </span>
                ))}
              </span>
            )}
          </button>
        </div>
      )}

      {(task.action === 'DESCRIBE' || task.action === 'SHORTEN') && task.prompts.length > 0 && (
        <ol className="mt-3 space-y-1.5 text-sm" aria-label={task.action === 'SHORTEN' ? '精简后的提示词' : '识图得到的提示词'}>
          {task.prompts.map((p, n) => (
            <li key={p} className="flex gap-2">
              <span className="shrink-0 font-semibold text-primary">{n + 1}.</span>
              <span className="break-words">{p}</span>
            </li>
          ))}
        </ol>
      )}

      {(task.buttons.length > 0 || !finished) && (
        <fieldset aria-label="操作" className="min-w-0 mt-3 flex flex-wrap gap-1.5">
          {task.buttons.map((b) => {
            const key = buttonKey(b)
            const loading = pending === key
            const done = used.has(key)
            const disabled = (pending !== null && !loading) || done
            return (
              <button
                key={key}
                type="button"
                onClick={() => press(b)}
                disabled={disabled}
                aria-busy={loading || undefined}
                aria-label={done ? `${buttonTitle(b)}（已完成）` : buttonTitle(b)}
                title={buttonTitle(b)}
                data-label={b.label}
                className={`h-8 min-w-11 px-2.5 rounded-md border text-sm font-medium inline-flex items-center justify-center gap-1 ${
                  done
                    ? 'border-primary/40 bg-primary/15 text-primary opacity-70'
                    : 'border-line bg-raised text-ink hover:border-primary hover:text-primary disabled:opacity-50 disabled:hover:border-line disabled:hover:text-ink'
                }`}
              >
                {loading && <span className="lx-spinner" style={{ width: 14, height: 14, borderWidth: 2 }} aria-hidden="true" />}
                {b.label}
              </button>
            )
          })}
          {!finished && (
            <button
              type="button"
              onClick={stop}
              disabled={pending !== null}
              aria-busy={pending === 'stop' || undefined}
              className="h-8 px-3 rounded-md border border-line text-sm text-muted hover:text-danger hover:border-danger disabled:opacity-50"
            >
              {pending === 'stop' ? '正在停止…' : '停止'}
            </button>
          )}
        </fieldset>
      )}
      {editor === 'zoom' && <CustomZoomForm task={task} onClose={() => setEditor(null)} />}
      {editor === 'region' && <RegionEditor task={task} onClose={() => setEditor(null)} />}
    </article>
  )
}

/** Publishes or unpublishes a finished image in the gallery; resolves the task as the server now has it. */
export async function togglePublish(task: PaintingTask): Promise<PaintingTask | null> {
  try {
    const next = putTask(task.published ? await painting.unpublish(task.taskId) : await painting.publish(task.taskId))
    toast(next.published ? '已发布到画廊' : '已从画廊撤下', 'success')
    return next
  } catch (error) {
    notifyError(error)
    return null
  }
}
