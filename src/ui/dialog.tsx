import { useEffect, useRef, type ReactNode } from 'react'
import type * as On from './events'

export type DialogPlacement = 'center' | 'bottom' | 'right'

interface DialogProps {
  open: boolean
  onClose: () => void
  /** Accessible name; also shown as the heading unless `hideTitle`. */
  title: string
  hideTitle?: boolean
  placement: DialogPlacement
  /** Width in px for center and right placements. */
  width: number
  children: ReactNode
  part?: string
}

const placementClass: Record<DialogPlacement, string> = {
  center: 'm-auto rounded-2xl lx-rise',
  bottom: 'mt-auto mb-0 mx-0 w-full max-w-full rounded-t-2xl lx-slide-up',
  right: 'ml-auto mr-0 my-0 h-full max-h-full lx-slide-left'
}

/**
 * A modal on the native `<dialog>`: top layer (nothing on a partner page can cover it), focus
 * kept inside, Esc and a backdrop click close it, and focus returns to where it was. On opening,
 * focus goes to the element marked `data-autofocus` (else the first focusable one).
 */
export function Dialog({ open, onClose, title, hideTitle, placement, width, children, part }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null)

  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) {
      dialog.showModal()
      // showModal() focuses the first focusable (often 关闭): the content names its first field instead.
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus()
    }
    if (!open && dialog.open) dialog.close()
  }, [open])

  useEffect(() => () => ref.current?.close(), [])

  function handleCancel(event: On.Any) {
    event.preventDefault()
    onClose()
  }

  function handleClick(event: On.Click) {
    if (event.target === ref.current) onClose()
  }

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop is the mouse's Escape; the keyboard closes the dialog with Escape (the cancel event)
    <dialog
      ref={ref}
      part={part}
      aria-label={title}
      onCancel={handleCancel}
      onClick={handleClick}
      style={placement === 'bottom' ? undefined : { width: `min(${width}px, 100vw)` }}
      className={`p-0 border border-line bg-surface text-ink shadow-2xl backdrop:bg-black/60 overflow-visible ${placementClass[placement]}`}
    >
      {open && (
        <div className="relative p-6 pb-[max(1.5rem,env(safe-area-inset-bottom))] h-full overflow-y-auto">
          <div className="flex items-center justify-between mb-5">
            <h2 className={hideTitle ? 'sr-only' : 'text-lg font-semibold'}>{title}</h2>
            <button
              type="button"
              onClick={onClose}
              aria-label="关闭"
              className="ml-auto -mr-2 size-9 grid place-items-center rounded-full text-muted hover:text-ink hover:bg-raised"
            >
              <svg viewBox="0 0 24 24" className="size-5" aria-hidden="true">
                <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
              </svg>
            </button>
          </div>
          {children}
        </div>
      )}
    </dialog>
  )
}
