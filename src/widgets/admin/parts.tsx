import { type ReactNode, useEffect, useState } from 'react'
import { ApiError, notifyError } from '../../core/api'
import { UNAUTHORIZED_CODES } from '../../core/wire'
import { Dialog } from '../../ui/dialog'
import { SM, useMedia } from '../../ui/use-media'
import { adminCall } from './state'

// What the console's tabs share: a table that becomes cards on phones, form fields, buttons,
// a pager and the dialog placement.

export const input = 'w-full min-w-0 h-10 px-3 rounded-lg border border-line bg-raised text-ink placeholder:text-muted outline-none focus:border-primary'
export const button = 'h-10 px-4 rounded-lg border border-line hover:border-primary whitespace-nowrap disabled:opacity-40'
export const primary = 'h-10 px-5 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110 whitespace-nowrap disabled:opacity-50'
export const small = 'h-8 px-3 rounded-md border border-line text-sm hover:border-primary whitespace-nowrap'
export const danger = 'h-8 px-3 rounded-md border border-danger/50 text-danger text-sm hover:bg-danger/10 whitespace-nowrap'
/** A dialog's destructive submit: a red frame, its text in the ink colour so it keeps AA contrast in both themes. */
export const dangerSubmit = 'h-10 px-5 rounded-lg border border-danger text-ink font-semibold hover:bg-danger/10 whitespace-nowrap'

export interface Column<T> {
  label: string
  cell: (row: T) => ReactNode
  /** Right-aligned numbers. */
  num?: boolean
  /** Kept on one line on wider screens (times, phones). */
  nowrap?: boolean
}

/**
 * A table on wider screens; on phones each row is a card of label–value lines (the header row is
 * then left to screen readers, the labels drawn from `data-label`).
 */
export function Table<T>({
  label,
  columns,
  rows,
  rowKey,
  empty
}: {
  label: string
  columns: Column<T>[]
  rows: T[]
  rowKey: (row: T) => string | number
  empty: string
}) {
  if (rows.length === 0) return <p className="py-8 text-center text-sm text-muted">{empty}</p>
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a table wider than the screen scrolls; the keyboard must reach it
    <section aria-label={label} tabIndex={0} className="sm:overflow-x-auto sm:rounded-card sm:border sm:border-line sm:bg-surface">
      <table className="w-full text-sm max-sm:block">
        <thead className="max-sm:sr-only">
          <tr>
            {columns.map((c) => (
              <th
                key={c.label}
                scope="col"
                className={`px-3 py-2.5 font-medium text-muted border-b border-line whitespace-nowrap ${c.num ? 'text-right' : 'text-left'}`}
              >
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="max-sm:flex max-sm:flex-col max-sm:gap-3">
          {rows.map((row) => (
            <tr
              key={rowKey(row)}
              data-testid="admin-row"
              className="max-sm:block max-sm:rounded-card max-sm:border max-sm:border-line max-sm:bg-surface max-sm:px-4 max-sm:py-2 sm:border-b sm:border-line sm:last:border-b-0"
            >
              {columns.map((c) => (
                <td
                  key={c.label}
                  data-label={c.label}
                  className={`px-3 py-2.5 align-top max-sm:flex max-sm:gap-3 max-sm:px-0 max-sm:py-1 max-sm:before:content-[attr(data-label)] max-sm:before:w-20 max-sm:before:shrink-0 max-sm:before:text-muted ${c.num ? 'sm:text-right tabular-nums' : ''} ${c.nowrap ? 'sm:whitespace-nowrap' : ''}`}
                >
                  <div className="min-w-0 break-words">{c.cell(row)}</div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

/** A labelled form field; `hint` under it. */
export function Field({ id, label, hint, children, className = '' }: { id: string; label: string; hint?: string; children: ReactNode; className?: string }) {
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium mb-1">
        {label}
      </label>
      {children}
      {hint && <p className="mt-1 text-xs text-muted">{hint}</p>}
    </div>
  )
}

/** 上一页 / 第 n / m 页 / 下一页. */
export function Pager({ label, page, pages, onPage }: { label: string; page: number; pages: number; onPage: (n: number) => void }) {
  if (pages <= 1) return null
  return (
    <nav aria-label={`${label}分页`} className="mt-3 flex items-center justify-center gap-3 text-sm">
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1} className={button}>
        上一页
      </button>
      <span aria-live="polite" className="text-muted">
        第 {page} / {pages} 页
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= pages} className={button}>
        下一页
      </button>
    </nav>
  )
}

/** A modal form: centred on wider screens, a bottom sheet on phones. */
export function Modal({
  open,
  title,
  onClose,
  children,
  width = 480
}: {
  open: boolean
  title: string
  onClose: () => void
  children: ReactNode
  width?: number
}) {
  const wide = useMedia(SM)
  return (
    <Dialog open={open} onClose={onClose} title={title} placement={wide ? 'center' : 'bottom'} width={width}>
      {children}
    </Dialog>
  )
}

/** A form's error, said where the form is. */
export function FormError({ id, error }: { id: string; error: string | null }) {
  return error ? (
    <p id={id} role="alert" className="text-sm text-danger">
      {error}
    </p>
  ) : null
}

export function Badge({ tone, children }: { tone: 'ok' | 'danger' | 'muted' | 'primary'; children: ReactNode }) {
  const tones = { ok: 'bg-ok/15 text-ok', danger: 'bg-danger/15 text-danger', muted: 'bg-raised text-muted', primary: 'bg-primary/15 text-primary' }
  return <span className={`inline-block px-2 rounded-full text-xs leading-5 whitespace-nowrap ${tones[tone]}`}>{children}</span>
}

/** A section's heading with its actions on the right. */
export function Heading({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="mt-6 mb-3 flex flex-wrap items-center justify-between gap-2">
      <h3 className="font-semibold">{title}</h3>
      {children && <div className="flex flex-wrap gap-2">{children}</div>}
    </div>
  )
}

/** A tab's list from `path` (`{list}`), loaded when the tab opens; `load` reads it again after a change. */
export function useAdminList<T>(path: string) {
  const [list, setList] = useState<T[] | null>(null)
  async function load() {
    try {
      setList((await adminCall<{ list: T[] }>(path)).list)
    } catch (e) {
      notifyError(e)
    }
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: loaded once, when the tab opens
  useEffect(() => {
    load()
  }, [])
  return { list, load }
}

/** Runs a form's call: its error next to the form, a lost session the usual way. */
export function useSubmit() {
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  async function run(call: () => Promise<void>) {
    if (busy) return
    setBusy(true)
    setError(null)
    try {
      await call()
    } catch (e) {
      if (e instanceof ApiError && !UNAUTHORIZED_CODES.includes(e.code)) setError(e.message)
      else notifyError(e)
    } finally {
      setBusy(false)
    }
  }
  return { error, setError, busy, run }
}
