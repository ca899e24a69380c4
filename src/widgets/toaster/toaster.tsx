import { useStore } from '@nanostores/react'
import { useLayoutEffect, useRef } from 'react'
import { answerConfirm, dismissToast } from '../../core/events'
import { $confirm, $toasts } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import { Dialog } from '../../ui/dialog'
import { $english, translate } from './translate'

const tone: Record<string, string> = {
  success: 'border-ok/60 text-ink',
  warning: 'border-primary/70 text-ink',
  error: 'border-danger/70 text-ink',
  info: 'border-line text-ink'
}
const dot: Record<string, string> = { success: 'bg-ok', warning: 'bg-primary', error: 'bg-danger', info: 'bg-muted' }

/**
 * @summary Toast messages and confirm dialogs for the whole page. Any script can raise them with
 * `window.dispatchEvent(new CustomEvent('lingxi-toast', {detail: {message, type}}))` or
 * `lingxi-confirm` (detail `{message, title?, resolve}`).
 * @csspart toast - One toast message.
 */
export function Toaster(_: ElementProps) {
  const toasts = useStore($toasts)
  const pending = useStore($confirm)
  const stackRef = useRef<HTMLDivElement>(null)
  const en = useStore($english)
  const tr = (text: string) => translate(text, en)

  // The stack is a manual popover, raised again on every change, so toasts stay above any open
  // modal dialog (those live in the top layer too) instead of under its backdrop.
  useLayoutEffect(() => {
    const stack = stackRef.current
    if (!stack || typeof stack.showPopover !== 'function') return
    const open = stack.matches(':popover-open')
    if (open) stack.hidePopover()
    if (toasts.length) stack.showPopover()
  }, [toasts])

  return (
    <>
      <div
        ref={stackRef}
        popover="manual"
        aria-live="polite"
        className="fixed inset-auto m-0 p-0 border-0 bg-transparent overflow-visible left-1/2 -translate-x-1/2 top-4 flex flex-col items-center gap-2 pointer-events-none w-[min(92vw,420px)]"
      >
        {toasts.map((t) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: a click dismisses a toast early, a mouse shortcut; toasts leave by themselves and take no tab stop (the live region reads them)
          // biome-ignore lint/a11y/noStaticElementInteractions: as above
          <div
            key={t.id}
            part="toast"
            role={t.type === 'error' || t.type === 'warning' ? 'alert' : 'status'}
            onClick={() => dismissToast(t.id)}
            className={`pointer-events-auto flex items-center gap-2 px-4 py-2.5 rounded-xl border bg-raised shadow-xl lx-rise ${tone[t.type] ?? tone.info}`}
          >
            <span className={`size-2 rounded-full shrink-0 ${dot[t.type] ?? dot.info}`} aria-hidden="true" />
            <span>{tr(t.message)}</span>
          </div>
        ))}
      </div>
      <Dialog open={pending !== null} onClose={() => answerConfirm(false)} title={tr(pending?.title ?? '提示')} placement="center" width={380}>
        <p className="text-muted mb-6 whitespace-pre-line">{pending && tr(pending.message)}</p>
        <div className="flex justify-end gap-3">
          <button type="button" onClick={() => answerConfirm(false)} className="h-10 px-4 rounded-lg border border-line hover:bg-raised">
            {tr(pending?.cancelText ?? '取消')}
          </button>
          <button
            type="button"
            onClick={() => answerConfirm(true)}
            className="h-10 px-4 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110"
          >
            {tr(pending?.confirmText ?? '确定')}
          </button>
        </div>
      </Dialog>
    </>
  )
}
