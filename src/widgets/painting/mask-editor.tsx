import { type PointerEvent, useEffect, useId, useRef, useState } from 'react'
import type * as On from '../../ui/events'

// The mask editor of vary region (Midjourney) and inpaint (SD), loaded only when opened
// (lazy in task-card.tsx and sd-img2img.tsx). The person paints over the picture with a mouse, a
// pen or a finger (pointer events; `touch-action: none` keeps the page from scrolling meanwhile);
// the mask sent is a PNG the picture's size, white where painted, black elsewhere.

export interface MaskEditorProps {
  imageUrl: string
  /** The picture's own size: the mask is made at it. */
  width: number
  height: number
  title: string
  /** The prompt field's first value; absent: no prompt field. */
  prompt?: string
  submitLabel: string
  onCancel(): void
  /** The mask as a PNG data URL, and the prompt. */
  onDone(mask: string, prompt: string): Promise<void> | void
}

interface Stroke {
  /** Radius in picture pixels. */
  r: number
  points: [number, number][]
}

/** Brush diameter as a share of the picture's shorter side (%). */
const BRUSH_MIN = 2
const BRUSH_MAX = 20

function paint(ctx: CanvasRenderingContext2D, strokes: Stroke[], colour: string) {
  ctx.fillStyle = colour
  ctx.strokeStyle = colour
  ctx.lineCap = 'round'
  ctx.lineJoin = 'round'
  for (const stroke of strokes) {
    const [first, ...rest] = stroke.points
    if (!first) continue
    ctx.beginPath()
    ctx.arc(first[0], first[1], stroke.r, 0, Math.PI * 2)
    ctx.fill()
    if (rest.length === 0) continue
    ctx.lineWidth = stroke.r * 2
    ctx.beginPath()
    ctx.moveTo(first[0], first[1])
    for (const [x, y] of rest) ctx.lineTo(x, y)
    ctx.stroke()
  }
}

/** White strokes on black, the picture's size. */
function maskOf(strokes: Stroke[], width: number, height: number): string {
  const canvas = document.createElement('canvas')
  canvas.width = width
  canvas.height = height
  const ctx = canvas.getContext('2d')!
  ctx.fillStyle = '#000000'
  ctx.fillRect(0, 0, width, height)
  paint(ctx, strokes, '#ffffff')
  return canvas.toDataURL('image/png')
}

export default function MaskEditor({ imageUrl, width, height, title, prompt, submitLabel, onCancel, onDone }: MaskEditorProps) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const [strokes, setStrokes] = useState<Stroke[]>([])
  const drawing = useRef<Stroke | null>(null)
  const [brush, setBrush] = useState(6)
  const [text, setText] = useState(prompt ?? '')
  const [busy, setBusy] = useState(false)
  const ids = useId()

  const redraw = (list: Stroke[]) => {
    const ctx = canvas.current?.getContext('2d')
    if (!ctx) return
    ctx.clearRect(0, 0, width, height)
    paint(ctx, list, '#ff3d7f')
  }
  useEffect(() => redraw(strokes))

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onCancel()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [onCancel])

  const at = (e: PointerEvent<HTMLCanvasElement>): [number, number] => {
    const rect = e.currentTarget.getBoundingClientRect()
    return [((e.clientX - rect.left) * width) / rect.width, ((e.clientY - rect.top) * height) / rect.height]
  }
  const radius = () => (Math.min(width, height) * brush) / 200

  function down(e: PointerEvent<HTMLCanvasElement>) {
    if (busy || (e.pointerType === 'mouse' && e.button !== 0)) return
    // A finger is captured by its target already and `touch-action: none` keeps the page still; a
    // mouse is captured here and kept from selecting text.
    if (e.pointerType === 'mouse') {
      e.preventDefault()
      e.currentTarget.setPointerCapture?.(e.pointerId)
    }
    drawing.current = { r: radius(), points: [at(e)] }
    setStrokes((list) => [...list, drawing.current!])
  }
  function move(e: PointerEvent<HTMLCanvasElement>) {
    const stroke = drawing.current
    if (!stroke) return
    stroke.points.push(at(e))
    redraw(strokes)
  }
  function up() {
    if (!drawing.current) return
    drawing.current = null
    setStrokes((list) => [...list])
  }

  async function submit(event: On.Submit) {
    event.preventDefault()
    if (busy || strokes.length === 0) return
    setBusy(true)
    try {
      await onDone(maskOf(strokes, width, height), text.trim())
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className="fixed inset-0 z-50 bg-black/70 grid place-items-center p-2 sm:p-6" data-testid="mask-editor">
      <form
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${ids}-t`}
        onSubmit={submit}
        className="w-full max-w-3xl max-h-full overflow-auto rounded-card border border-line bg-surface p-3 sm:p-4 space-y-3"
      >
        <div className="flex items-center gap-2">
          <h2 id={`${ids}-t`} className="text-base font-semibold">
            {title}
          </h2>
          <span className="text-xs text-muted">涂抹要重绘的区域（鼠标或手指）</span>
        </div>
        <div className="grid place-items-center rounded-lg bg-raised p-1">
          <div className="relative inline-block max-w-full">
            <img
              src={imageUrl}
              alt="要重绘的图片"
              className="block max-w-full max-h-[55vh] select-none"
              draggable={false}
              style={{ aspectRatio: `${width} / ${height}` }}
            />
            <canvas
              ref={canvas}
              width={width}
              height={height}
              data-testid="mask-canvas"
              data-strokes={strokes.length}
              aria-label="蒙版画布：按住拖动涂抹"
              className="absolute inset-0 size-full opacity-55 cursor-crosshair"
              style={{ touchAction: 'none' }}
              onPointerDown={down}
              onPointerMove={move}
              onPointerUp={up}
              onPointerCancel={up}
              onLostPointerCapture={up}
            />
          </div>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <label className="flex items-center gap-2 text-sm text-muted grow min-w-40">
            笔刷
            <input
              type="range"
              min={BRUSH_MIN}
              max={BRUSH_MAX}
              value={brush}
              onInput={(e) => setBrush(Number((e.target as HTMLInputElement).value))}
              aria-label="笔刷大小"
              className="grow accent-primary"
            />
          </label>
          <button
            type="button"
            onClick={() => setStrokes((list) => list.slice(0, -1))}
            disabled={strokes.length === 0 || busy}
            className="h-9 px-3 rounded-md border border-line text-sm hover:border-primary disabled:opacity-50"
          >
            撤销
          </button>
          <button
            type="button"
            onClick={() => setStrokes([])}
            disabled={strokes.length === 0 || busy}
            className="h-9 px-3 rounded-md border border-line text-sm hover:border-primary disabled:opacity-50"
          >
            清空
          </button>
        </div>
        {prompt !== undefined && (
          <label className="block">
            <span className="block mb-1 text-xs text-muted">重绘区域的描述（可修改）</span>
            <textarea
              rows={2}
              value={text}
              maxLength={4000}
              onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
              className="w-full rounded-lg border border-line bg-raised p-2 text-sm text-ink outline-none focus:border-primary resize-y"
            />
          </label>
        )}
        <div className="flex justify-end gap-2">
          <button type="button" onClick={onCancel} className="h-10 px-4 rounded-lg text-sm text-muted hover:text-ink hover:bg-raised">
            取消
          </button>
          <button
            type="submit"
            disabled={strokes.length === 0 || busy}
            aria-busy={busy || undefined}
            className="h-10 px-5 rounded-lg bg-primary text-primary-ink font-semibold disabled:opacity-50"
          >
            {busy ? '正在提交…' : submitLabel}
          </button>
        </div>
      </form>
    </div>
  )
}
