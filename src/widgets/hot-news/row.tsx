import { Icon } from '../../ui/icons'
import { formatHeat, type HotItem } from './state'

/** 'HH:mm' today, else 'M月D日 HH:mm'. */
export function when(ms: number | null, now = Date.now()): string {
  if (!ms) return ''
  const d = new Date(ms)
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`
  return new Date(now).toDateString() === d.toDateString() ? hm : `${d.getMonth() + 1}月${d.getDate()}日 ${hm}`
}

/** '刚刚', '12 分钟前', '3 小时前', else the date. */
export function ago(ms: number | null, now = Date.now()): string {
  if (!ms) return ''
  const minutes = Math.floor((now - ms) / 60_000)
  if (minutes < 1) return '刚刚'
  if (minutes < 60) return `${minutes} 分钟前`
  if (minutes < 24 * 60) return `${Math.floor(minutes / 60)} 小时前`
  return when(ms, now)
}

/** Covers are shown only when Lingxi hosts them: the page loads nothing from foreign hosts. */
const ownCover = (url: string) => /^\/(?!\/)/.test(url)

/**
 * One ranked item: its title (the original, in a new tab), heat, age and AI 解读. `from` names its
 * list where items of several lists show together (search results).
 */
export function Row({ item, rank, demo, onRead, from }: { item: HotItem; rank: number; demo: boolean; onRead: () => void; from?: string }) {
  const heat = formatHeat(item.hot)
  return (
    <li part="item" data-testid="hot-item" className="flex items-start gap-3 px-3 py-3 cq-md:px-4">
      {/* The list is an <ol>: assistive technology reads the rank from it. */}
      <span
        aria-hidden="true"
        className={`shrink-0 mt-0.5 w-6 h-6 grid place-items-center rounded-md text-xs font-bold tabular-nums ${rank <= 3 ? 'bg-primary text-primary-ink' : 'bg-raised text-muted'}`}
      >
        {rank}
      </span>
      <div className="min-w-0 flex-1">
        <a href={item.url} target="_blank" rel="noopener noreferrer" className="font-medium text-ink hover:text-primary break-words">
          {item.title}
          <span className="sr-only">（在新标签页打开原文）</span>
        </a>
        {demo && <span className="ml-1.5 align-middle px-1 rounded border border-primary/50 text-primary text-[10px]">示例</span>}
        {from && (
          <span data-testid="hit-source" className="ml-1.5 inline-block whitespace-nowrap align-middle px-1.5 rounded bg-raised text-muted text-[11px]">
            {from} 第 {rank} 名
          </span>
        )}
        {item.desc && <p className="mt-0.5 text-xs text-muted line-clamp-2">{item.desc}</p>}
        <div className="mt-1.5 flex items-center gap-3 text-xs">
          {item.time ? (
            <time dateTime={new Date(item.time).toISOString()} className="text-muted">
              {ago(item.time)}
            </time>
          ) : null}
          {heat && (
            <span data-testid="heat" className="inline-flex items-center gap-1 text-danger" title="热度">
              <Icon name="hot" className="size-3.5" />
              <span className="sr-only">热度</span>
              {heat}
            </span>
          )}
          <button type="button" onClick={onRead} className="inline-flex items-center gap-1 text-primary hover:underline" aria-label={`AI 解读：${item.title}`}>
            <Icon name="spark" className="size-3.5" />
            AI 解读
          </button>
        </div>
      </div>
      {item.cover && ownCover(item.cover) && (
        <img src={item.cover} alt="" loading="lazy" className="hidden cq-md:block size-16 shrink-0 rounded-lg object-cover bg-raised" />
      )}
    </li>
  )
}
