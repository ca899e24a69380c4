import { useStore } from '@nanostores/react'
import { useEffect, useState } from 'react'
import { Spinner } from '../../ui/icons'
import { usePagedList } from '../../ui/use-paged-list'
import { $paintingTasks, ACTION_TEXT, addToWorkList, painting, PAINTING_LIMITS, putTask, STATUS_TEXT, type PaintingTask } from './state'
import { togglePublish } from './task-card'

export function PublishButton({ task }: { task: PaintingTask }) {
  const [busy, setBusy] = useState(false)
  if (task.status !== 'SUCCESS' || !task.imageUrl || task.action === 'DESCRIBE') return null
  return (
    <button
      type="button"
      disabled={busy}
      aria-busy={busy || undefined}
      onClick={async () => {
        setBusy(true)
        await togglePublish(task)
        setBusy(false)
      }}
      className="h-10 px-4 rounded-lg border border-line hover:border-primary hover:text-primary disabled:opacity-50"
    >
      {task.published ? '从画廊撤下' : '发布到画廊'}
    </button>
  )
}

/** Earlier jobs, newest first, a page at a time; a job's card can be brought back to the working list. */
export function History({ kind, onOpen }: { kind: 'mj' | 'sd'; onOpen(task: PaintingTask): void }) {
  const tasks = useStore($paintingTasks)
  const [state, history] = usePagedList({
    load: (pageNum, of: 'mj' | 'sd') => painting.list(pageNum, PAINTING_LIMITS.historyPageSize, of),
    key: (t: PaintingTask) => t.taskId,
    // The cards read the task store, which channel events and polls keep current.
    onPage: (list) => list.forEach(putTask)
  })
  const page = state.loaded ? { ids: state.list.map((t) => t.taskId), total: state.total } : null
  const { loading } = state

  useEffect(() => {
    void history.reload(kind)
  }, [kind])

  // New jobs of this page appear at the top of the history too.
  const known = new Set(page?.ids ?? [])
  const fresh = Object.values(tasks)
    .filter((t) => t.kind === kind && !known.has(t.taskId) && page && t.createTime > 0)
    .sort((a, b) => b.createTime - a.createTime)
    .map((t) => t.taskId)
  const ids = page ? [...fresh, ...page.ids] : []

  return (
    <section aria-labelledby={`lx-history-${kind}`}>
      <div className="flex items-center gap-2">
        <h2 id={`lx-history-${kind}`} className="text-lg font-semibold">
          历史记录
        </h2>
        {page && <span className="text-xs text-muted">共 {page.total + fresh.length} 个</span>}
        <button type="button" onClick={() => history.reload(kind)} className="ml-auto h-8 px-3 rounded-md text-sm text-muted hover:text-ink hover:bg-raised">
          刷新
        </button>
      </div>
      {!page && loading && <Spinner label="加载历史记录" />}
      {page && ids.length === 0 && <p className="mt-3 text-sm text-muted">还没有作品。</p>}
      <ul className="mt-3 grid gap-3 grid-cols-2 cq-md:grid-cols-3 cq-xl:grid-cols-4" aria-busy={loading || undefined} data-testid={`history-${kind}`}>
        {ids.map((id) => {
          const t = tasks[id]
          if (!t) return null
          return (
            <li key={id} className="rounded-lg border border-line bg-surface overflow-hidden flex flex-col" data-testid="history-item" data-task-id={id}>
              <button
                type="button"
                onClick={() => (t.imageUrl ? onOpen(t) : kind === 'mj' && addToWorkList(t.taskId))}
                aria-label={t.imageUrl ? `查看大图：${t.prompt}` : `${ACTION_TEXT[t.action]} ${STATUS_TEXT[t.status]}`}
                className="block aspect-square bg-raised"
              >
                {t.thumbUrl || t.imageUrl ? (
                  <img src={t.thumbUrl ?? t.imageUrl!} alt="" width={160} loading="lazy" className="size-full object-cover" />
                ) : (
                  <span className={`size-full grid place-items-center text-xs ${t.takedown ? 'text-danger' : 'text-muted'}`}>
                    {t.takedown ? '已下架' : STATUS_TEXT[t.status]}
                  </span>
                )}
              </button>
              <div className="p-2 flex-1 flex flex-col gap-1">
                <p className="text-xs text-ink/90 line-clamp-2 break-words" title={t.prompt}>
                  {t.prompt || ACTION_TEXT[t.action]}
                </p>
                {t.takedown && <p className="text-xs text-danger break-words">已下架：{t.takedown}</p>}
                <p className="mt-auto flex items-center gap-1 text-[11px] text-muted">
                  <span>{ACTION_TEXT[t.action]}</span>·<span>{STATUS_TEXT[t.status]}</span>
                  {t.published && <span className="text-primary">· 已发布</span>}
                  {kind === 'mj' && (
                    <button type="button" onClick={() => addToWorkList(t.taskId)} className="ml-auto px-1.5 rounded text-primary hover:bg-primary/10">
                      继续
                    </button>
                  )}
                </p>
              </div>
            </li>
          )
        })}
      </ul>
      {page && page.ids.length < page.total && (
        <div className="mt-4 text-center">
          <button
            type="button"
            onClick={() => history.more()}
            aria-disabled={loading}
            className="h-10 px-6 rounded-lg border border-line hover:border-primary hover:text-primary"
          >
            {loading ? '加载中…' : '加载更多'}
          </button>
        </div>
      )}
    </section>
  )
}
