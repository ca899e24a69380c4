import { lazy, Suspense, useId, useState } from 'react'
import { notifyError } from '../../core/api'
import type * as On from '../../ui/events'
import { painting, submitTask, type PaintingTask } from './state'

// What some buttons of a finished Midjourney picture open before they submit: custom zoom (a
// factor and the prompt) and vary region (the mask editor, its own lazy chunk).

const MaskEditor = lazy(() => import('./mask-editor'))

export function CustomZoomForm({ task, onClose }: { task: PaintingTask; onClose(): void }) {
  const [zoom, setZoom] = useState(1.8)
  const [prompt, setPrompt] = useState(task.promptEn || task.prompt)
  const [busy, setBusy] = useState(false)
  const ids = useId()

  async function submit(event: On.Submit) {
    event.preventDefault()
    if (busy) return
    // Read from the controls: a submit right after typing must not see an older render's values.
    const fields = event.currentTarget.elements
    const factor = Number((fields.namedItem('zoom') as HTMLInputElement).value)
    const text = (fields.namedItem('prompt') as HTMLTextAreaElement).value.trim()
    setBusy(true)
    try {
      await submitTask(painting.action(task.taskId, { action: 'ZOOM', mode: 'custom' }, { zoom: factor, prompt: text }))
      onClose()
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form onSubmit={submit} aria-label="自定义缩放" data-testid="custom-zoom" className="mt-3 rounded-lg border border-line bg-raised p-3 space-y-2">
      <label className="flex items-center gap-2 text-sm" htmlFor={`${ids}-z`}>
        <span className="text-muted shrink-0">缩小倍数</span>
        <input
          id={`${ids}-z`}
          name="zoom"
          type="range"
          min={1}
          max={2}
          step={0.05}
          value={zoom}
          onInput={(e) => setZoom(Number((e.target as HTMLInputElement).value))}
          className="grow accent-primary"
        />
        <span className="w-10 text-right tabular-nums">{zoom.toFixed(2)}</span>
      </label>
      <label className="block">
        <span className="block mb-1 text-xs text-muted">提示词（可修改；会附上 --zoom {zoom.toFixed(2)}）</span>
        <textarea
          name="prompt"
          rows={2}
          value={prompt}
          maxLength={4000}
          onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)}
          className="w-full rounded-lg border border-line bg-surface p-2 text-sm text-ink outline-none focus:border-primary resize-y"
        />
      </label>
      <div className="flex justify-end gap-2">
        <button type="button" onClick={onClose} className="h-8 px-3 rounded-md text-sm text-muted hover:text-ink">
          取消
        </button>
        <button
          type="submit"
          disabled={busy}
          aria-busy={busy || undefined}
          className="h-8 px-4 rounded-md bg-primary text-primary-ink text-sm font-semibold disabled:opacity-50"
        >
          {busy ? '正在提交…' : '缩放'}
        </button>
      </div>
    </form>
  )
}

export function RegionEditor({ task, onClose }: { task: PaintingTask; onClose(): void }) {
  if (!task.imageUrl || !task.width || !task.height) return null
  return (
    <Suspense
      fallback={
        <div className="fixed inset-0 z-50 grid place-items-center bg-black/50" aria-busy="true">
          <span className="lx-spinner" />
        </div>
      }
    >
      <MaskEditor
        imageUrl={task.imageUrl}
        width={task.width}
        height={task.height}
        title="局部重绘"
        prompt={task.promptEn || task.prompt}
        submitLabel="重绘涂抹区域"
        onCancel={onClose}
        onDone={async (mask, prompt) => {
          try {
            await submitTask(painting.action(task.taskId, { action: 'VARY_REGION' }, { mask, ...(prompt ? { prompt } : {}) }))
            onClose()
          } catch (error) {
            notifyError(error)
          }
        }}
      />
    </Suspense>
  )
}
