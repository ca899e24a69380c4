import { useEffect, useState } from 'react'
import type * as On from '../../ui/events'
import { Icon } from '../../ui/icons'
import { usePagedList } from '../../ui/use-paged-list'
import { ActivityStatusBadge, detailHref, refusal, SessionStatusBadge } from './parts'
import { formatWindow, formatYuan, KEYWORD_MAX, listActivities, PLATFORMS, type Activity, type ActivityPlatform, type ActivityStatus } from './state'

const STATUSES: [ActivityStatus | '', string][] = [
  ['', '全部状态'],
  ['open', '进行中'],
  ['upcoming', '未开始'],
  ['ended', '已结束']
]

const selectClass = 'h-9 pl-3 pr-8 rounded-lg border border-line bg-raised text-sm text-ink outline-none focus:border-primary'

/** 任务大厅: the activities of one platform with filters, a card each, more on demand. */
export function ActivityList({ quality, base }: { quality: boolean; base: string }) {
  const [platform, setPlatform] = useState<ActivityPlatform | ''>('')
  const [status, setStatus] = useState<ActivityStatus | ''>('')
  const [keyword, setKeyword] = useState('')
  const [typed, setTyped] = useState('')
  const [state, activities] = usePagedList({
    load: (pageNum, query: { platform: ActivityPlatform | ''; status: ActivityStatus | ''; keyword: string }) =>
      listActivities({ quality, platform: query.platform || undefined, status: query.status || undefined, keyword: query.keyword, pageNum }),
    key: (a: Activity) => a.activityId
  })
  // null until the first page answered (or failed: then empty, with why in place of the list)
  const items = state.loaded || state.error ? state.list : null
  const { total, loading } = state
  const refused = refusal(state.error)
  const id = quality ? 'lx-mo' : 'lx-o'

  useEffect(() => {
    void activities.reload({ platform, status, keyword })
  }, [platform, status, keyword])

  const filtered = Boolean(platform || status || keyword)
  return (
    <div>
      <search aria-label="筛选任务">
        <form
          onSubmit={(e: On.Submit) => {
            e.preventDefault()
            // The field itself: an edit in the same tick as the submit is not rendered yet.
            const field = (e.target as HTMLFormElement).querySelector('input[type=search]') as HTMLInputElement | null
            setKeyword((field?.value ?? typed).trim())
          }}
          className="flex flex-wrap items-center gap-2"
        >
          <label className="sr-only" htmlFor={`${id}-platform`}>
            发布平台
          </label>
          <select
            id={`${id}-platform`}
            value={platform}
            onChange={(e) => setPlatform((e.target as HTMLSelectElement).value as ActivityPlatform | '')}
            className={selectClass}
          >
            <option value="">全部平台</option>
            {PLATFORMS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
          <label className="sr-only" htmlFor={`${id}-status`}>
            任务状态
          </label>
          <select
            id={`${id}-status`}
            value={status}
            onChange={(e) => setStatus((e.target as HTMLSelectElement).value as ActivityStatus | '')}
            className={selectClass}
          >
            {STATUSES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <div className="flex-1 min-w-48 flex">
            <label className="sr-only" htmlFor={`${id}-keyword`}>
              关键词
            </label>
            <input
              id={`${id}-keyword`}
              type="search"
              value={typed}
              maxLength={KEYWORD_MAX}
              onInput={(e) => {
                const v = (e.target as HTMLInputElement).value
                setTyped(v)
                if (!v.trim() && keyword) setKeyword('')
              }}
              placeholder="搜索任务标题或要求"
              className="flex-1 min-w-0 h-9 px-3 rounded-l-lg border border-line bg-raised text-sm text-ink placeholder:text-muted outline-none focus:border-primary"
            />
            <button
              type="submit"
              aria-label="搜索"
              className="h-9 px-3 rounded-r-lg border border-l-0 border-line text-muted hover:text-ink hover:border-primary"
            >
              <Icon name="search" className="size-4" />
            </button>
          </div>
        </form>
      </search>

      <div aria-live="polite" aria-busy={loading || undefined} className="mt-4">
        {items === null ? (
          <div role="status" className="py-16 grid place-items-center gap-3 text-muted text-sm">
            <span className="lx-spinner" />
            加载任务…
          </div>
        ) : items.length === 0 && refused ? (
          <p role="alert" data-testid="list-refused" className="py-16 text-center text-danger">
            {refused}
          </p>
        ) : items.length === 0 ? (
          <p className="py-16 text-center text-muted">{filtered ? '没有符合条件的任务，换个筛选试试' : '暂时没有任务，稍后再来看看'}</p>
        ) : (
          <>
            <p className="mb-2 text-xs text-muted">共 {total} 个任务</p>
            <ul className="grid grid-cols-1 gap-3 cq-md:grid-cols-2" aria-label="任务列表">
              {items.map((a) => (
                <ActivityCard key={a.activityId} activity={a} base={base} />
              ))}
            </ul>
            {items.length < total && (
              <div className="mt-4 text-center">
                <button
                  type="button"
                  onClick={() => activities.more()}
                  aria-disabled={loading || undefined}
                  className="h-9 px-6 rounded-lg border border-line text-sm text-muted hover:text-ink hover:border-primary"
                >
                  {loading ? '加载中…' : '加载更多'}
                </button>
              </div>
            )}
          </>
        )}
      </div>
    </div>
  )
}

function ActivityCard({ activity: a, base }: { activity: Activity; base: string }) {
  const titleId = `lx-act-${a.activityId}`
  const places = a.sessions.reduce((n, s) => n + Math.max(0, s.placesLeft), 0)
  const budgetLeft = Math.max(0, a.budgetFen - a.spentFen)
  return (
    <li data-testid="activity-card" aria-labelledby={titleId} className="min-w-0 flex flex-col rounded-card border border-line bg-surface p-4">
      <div className="flex flex-wrap items-center gap-1.5">
        <span className="inline-flex items-center h-5 px-1.5 rounded bg-raised text-[11px] text-ink">{a.platformName}</span>
        {a.quality && <span className="inline-flex items-center h-5 px-1.5 rounded bg-primary text-primary-ink text-[11px] font-semibold">优质</span>}
        <ActivityStatusBadge status={a.status} />
      </div>
      <h3 id={titleId} className="mt-2 font-semibold text-base break-words">
        {a.title}
      </h3>
      <div className="mt-2 flex items-end gap-4">
        <p className="text-primary">
          <span className="sr-only">每篇奖励</span>
          <span className="text-xs">¥</span>
          <span data-testid="reward" className="text-2xl font-bold tabular-nums">
            {formatYuan(a.rewardFen)}
          </span>
          <span className="text-xs text-muted"> 元/篇</span>
        </p>
        <p className="pb-1 text-xs text-muted">
          剩余名额{' '}
          <b data-testid="places-left" className="text-ink tabular-nums">
            {places}
          </b>
        </p>
        <p className="pb-1 text-xs text-muted hidden cq-md:block">剩余预算 ¥{formatYuan(budgetLeft)}</p>
      </div>
      <p className="mt-1 text-xs text-muted">
        <span className="sr-only">活动时间：</span>
        {formatWindow(a.startTime, a.endTime)}
      </p>
      {a.sessions.length > 0 ? (
        <ul className="mt-3 flex flex-col gap-1.5" aria-label={`${a.title}的场次`}>
          {a.sessions.map((s) => (
            <li key={s.activitySessionId}>
              <a
                href={detailHref(base, a.activityId, s.activitySessionId)}
                data-testid="session-link"
                className="flex items-center gap-2 min-h-10 px-3 py-1.5 rounded-lg border border-line bg-raised hover:border-primary text-sm"
              >
                <span className="font-medium shrink-0">{s.name}</span>
                <span className="min-w-0 flex-1 truncate text-xs text-muted">{formatWindow(s.startTime, s.endTime)}</span>
                <span className="text-xs text-muted tabular-nums whitespace-nowrap">
                  余 {Math.max(0, s.placesLeft)}/{s.places}
                </span>
                <SessionStatusBadge status={s.status} />
                <svg viewBox="0 0 24 24" className="size-4 text-muted shrink-0" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
                  <path d="M9 6l6 6-6 6" />
                </svg>
              </a>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-3 text-xs text-muted">暂无场次</p>
      )}
    </li>
  )
}
