import { useEffect, useRef, useState, type ReactNode } from 'react'
import { notifyError } from '../../core/api'
import type { Paged } from '../../core/paged-list'
import { Spinner } from '../../ui/icons'
import { LOG_PAGE_SIZE } from './state'

/** A paged log: a page at a time with 上一页/下一页. */
export function Log<T extends { id: string }>({
  label,
  load,
  deps,
  empty,
  row
}: {
  label: string
  load: (pageNum: number, pageSize?: number) => Promise<Paged<T>>
  deps: unknown[]
  empty: string
  row: (entry: T) => ReactNode
}) {
  const [pageNum, setPageNum] = useState(1)
  const [page, setPage] = useState<Paged<T> | null>(null)
  const [loading, setLoading] = useState(false)
  const latest = useRef(0)

  useEffect(() => {
    const ticket = ++latest.current
    setLoading(true)
    load(pageNum, LOG_PAGE_SIZE)
      .then((answer) => {
        if (ticket === latest.current) setPage(answer)
      })
      .catch((e) => ticket === latest.current && notifyError(e))
      .finally(() => ticket === latest.current && setLoading(false))
  }, [pageNum, load, ...deps])

  const pages = page ? Math.max(1, Math.ceil(page.total / LOG_PAGE_SIZE)) : 1
  if (!page) return loading ? <Spinner label={`加载${label}`} /> : null
  if (page.total === 0) return <p className="py-10 text-center text-sm text-muted">{empty}</p>
  return (
    <div>
      <ul aria-label={label} aria-busy={loading || undefined} className="rounded-card border border-line bg-surface divide-y divide-line">
        {page.list.map((entry) => (
          <li key={entry.id} data-testid="log-row" className="flex items-center gap-3 px-4 py-3">
            {row(entry)}
          </li>
        ))}
      </ul>
      {pages > 1 && (
        <nav aria-label={`${label}分页`} className="mt-3 flex items-center justify-center gap-3 text-sm">
          <button
            type="button"
            onClick={() => setPageNum((n) => Math.max(1, n - 1))}
            disabled={pageNum <= 1}
            className="h-9 px-4 rounded-lg border border-line disabled:opacity-40 hover:enabled:border-primary"
          >
            上一页
          </button>
          <span aria-live="polite" className="text-muted">
            第 {pageNum} / {pages} 页
          </span>
          <button
            type="button"
            onClick={() => setPageNum((n) => Math.min(pages, n + 1))}
            disabled={pageNum >= pages}
            className="h-9 px-4 rounded-lg border border-line disabled:opacity-40 hover:enabled:border-primary"
          >
            下一页
          </button>
        </nav>
      )}
    </div>
  )
}
