import { useEffect, useRef, type ReactNode } from 'react'
import { formatTime } from '../../core/time'
import type { Image } from '../../core/upload'
import { Dialog } from '../../ui/dialog'
import { SM, useMedia } from '../../ui/use-media'
import { absoluteUrl, formatBytes } from './state'
import { useEffectEvent } from '../../ui/use-effect-event'

interface LightboxProps {
  images: Image[]
  /** The image shown; null = closed. */
  index: number | null
  /** Moves the preview (an updater, so fast key repeats never read a stale index). */
  onIndex(update: (index: number | null) => number | null): void
  onClose(): void
  onDelete(image: Image): void
  actions(image: Image): ReactNode
}

/** The preview: one image large; ← → (or the buttons) move through the grid, Esc closes. */
export function Lightbox({ images, index, onIndex, onClose, onDelete, actions }: LightboxProps) {
  const wide = useMedia(SM)
  const image = index === null ? undefined : images[index]
  const open = index !== null && !!image
  const count = images.length
  const boxRef = useRef<HTMLDivElement>(null)

  // The keys work wherever focus is in the dialog (it starts on the close button, outside the box).
  const handleKey = useEffectEvent((event: Event) => onKeyDown(event as KeyboardEvent))
  useEffect(() => {
    const dialog = boxRef.current?.closest('dialog')
    if (!open || !dialog) return
    dialog.addEventListener('keydown', handleKey)
    return () => dialog.removeEventListener('keydown', handleKey)
  }, [open])

  function step(by: number) {
    if (index === null || count < 2) return
    onIndex((i) => (i === null ? i : (i + by + count) % count))
  }

  function onKeyDown(event: KeyboardEvent) {
    const target = event.target as HTMLElement
    if (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA') return
    if (event.key === 'ArrowRight') {
      event.preventDefault()
      step(1)
    } else if (event.key === 'ArrowLeft') {
      event.preventDefault()
      step(-1)
    }
  }

  return (
    <Dialog open={open} onClose={onClose} title={image ? `预览：${image.name}` : '预览'} placement={wide ? 'center' : 'bottom'} width={960} part="lightbox">
      {image && (
        <div ref={boxRef} data-testid="lightbox" className="flex flex-col gap-4">
          <div className="relative grid place-items-center rounded-xl bg-black/40 min-h-48">
            <img src={absoluteUrl(image.url)} alt={image.name} className="max-h-[65dvh] max-w-full object-contain" />
            {count > 1 && (
              <>
                <Arrow label="上一张" d="M15 5l-7 7 7 7" onClick={() => step(-1)} side="left-2" />
                <Arrow label="下一张" d="M9 5l7 7-7 7" onClick={() => step(1)} side="right-2" />
              </>
            )}
          </div>
          <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm text-muted">
            <span aria-live="polite">
              第 {(index ?? 0) + 1} / {count} 张
            </span>
            <span>
              {image.width}×{image.height}
            </span>
            <span>{formatBytes(image.size)}</span>
            <span>{formatTime(image.createTime)}</span>
          </div>
          <div className="flex flex-wrap items-center gap-2">
            {actions(image)}
            <button
              type="button"
              onClick={() => onDelete(image)}
              className="h-8 px-3 rounded-md border border-danger/50 text-xs text-danger hover:bg-danger/10"
            >
              删除
            </button>
          </div>
          <p className="hidden sm:block text-xs text-muted">提示：← → 切换图片，Esc 关闭</p>
        </div>
      )}
    </Dialog>
  )
}

function Arrow({ label, d, onClick, side }: { label: string; d: string; onClick: () => void; side: string }) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={onClick}
      className={`absolute top-1/2 -translate-y-1/2 ${side} size-10 grid place-items-center rounded-full bg-black/60 text-white hover:bg-black/80`}
    >
      <svg
        viewBox="0 0 24 24"
        className="size-5"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
      >
        <path d={d} />
      </svg>
    </button>
  )
}
