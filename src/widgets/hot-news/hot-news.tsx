import { useStore } from '@nanostores/react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { copyText } from '../../core/format'
import { $token } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import { Dialog } from '../../ui/dialog'
import type * as On from '../../ui/events'
import { Icon } from '../../ui/icons'
import { InlineLogin, LoggedOut } from '../../ui/logged-out'
import { useEffectEvent } from '../../ui/use-effect-event'
import { MD, SM, useMedia } from '../../ui/use-media'
import { Interpretation } from './interpret'
import { EVENT_HOT_COMMAND, formatHeat, hotListText, loadHotList, loadHotSources, type HotCommand, type HotItem, type HotList, type HotSource } from './state'

export interface HotNewsProps extends ElementProps {
  /** Start on this source (a `sourceId` of hot/sources). */
  source?: string
  /** The page's own controls (the host header on phones) send `lingxi-hot-command`; the widget's copy button hides on phones. */
  externalControls?: boolean
}

/** 'HH:mm' today, else 'M月D日 HH:mm'. */
function when(ms: number | null, now = Date.now()): string {
  if (!ms) return ''
  const d = new Date(ms)
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`
  return new Date(now).toDateString() === d.toDateString() ? hm : `${d.getMonth() + 1}月${d.getDate()}日 ${hm}`
}

/** '刚刚', '12 分钟前', '3 小时前', else the date. */
function ago(ms: number | null, now = Date.now()): string {
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
 * @summary Hot news: the hot lists of Chinese sites (微博, 知乎, 百度, 抖音, B站…) and feeds, one tab
 * per source, ranked with their heat; open the original, copy the list as text, and AI 解读 — a
 * short commentary on one item streamed by the chat model (charged to tokens). Sample data of the
 * offline demo source is marked 示例数据; a source that failed to update shows its last list with a notice.
 * @attr source - The source to start on (a sourceId).
 * @attr external-controls - The page drives the list and copy actions (lingxi-hot-command) on phones.
 * @event lingxi-hot-command - (window, listened) `{command: 'list' | 'copy'}`: show the sources, or copy the current list.
 * @csspart item - One ranked item.
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function HotNews({ source, externalControls }: HotNewsProps) {
  const token = useStore($token)
  return (
    <>
      {token ? (
        <Board initial={source} externalControls={Boolean(externalControls)} />
      ) : (
        <LoggedOut icon={<Icon name="hot" className="size-7" />} title="登录后查看热点" blurb="微博、知乎、抖音等热榜一屏看尽，AI 帮你解读。" />
      )}
      <InlineLogin />
    </>
  )
}

function Board({ initial, externalControls }: { initial?: string; externalControls: boolean }) {
  const wide = useMedia(SM)
  const desktop = useMedia(MD)
  const [sources, setSources] = useState<HotSource[] | null>(null)
  const [current, setCurrent] = useState<string | null>(null)
  const [list, setList] = useState<HotList | null>(null)
  const [loading, setLoading] = useState(false)
  const [picking, setPicking] = useState(false)
  const [reading, setReading] = useState<HotItem | null>(null)
  const ticket = useRef(0)
  const tabs = useRef<HTMLDivElement>(null)
  const listRef = useRef(list)
  listRef.current = list

  // `initial` is where the widget starts: a later change does not move the reader.
  const showSources = useEffectEvent((all: HotSource[]) => {
    setSources(all)
    setCurrent((c) => c ?? (all.find((s) => s.sourceId === initial) ?? all[0])?.sourceId ?? null)
  })
  useEffect(() => {
    loadHotSources().then(showSources, notifyError)
  }, [])

  const load = useCallback(async (sourceId: string) => {
    const mine = ++ticket.current
    setLoading(true)
    try {
      const answer = await loadHotList(sourceId)
      if (mine !== ticket.current) return
      setList(answer)
      // The list carries the source's latest state (updatedTime, stale).
      setSources((all) => all?.map((s) => (s.sourceId === sourceId ? { ...s, ...answer.source } : s)) ?? all)
    } catch (error) {
      if (mine === ticket.current) notifyError(error)
    } finally {
      if (mine === ticket.current) setLoading(false)
    }
  }, [])

  useEffect(() => {
    if (current) void load(current)
  }, [current, load])

  const copyList = useCallback(() => {
    const l = listRef.current
    if (l?.items.length) void copyText(hotListText(l))
  }, [])

  // The host header's buttons on phones.
  useEffect(() => {
    const handle = (event: CustomEvent<{ command: HotCommand }>) => {
      const command = event.detail?.command
      if (command === 'list') setPicking(true)
      else if (command === 'copy') copyList()
    }
    addEventListener(EVENT_HOT_COMMAND, handle)
    return () => removeEventListener(EVENT_HOT_COMMAND, handle)
  }, [copyList])

  function handleTabKey(event: On.Key) {
    if (!sources?.length || !current) return
    const at = sources.findIndex((s) => s.sourceId === current)
    const to =
      event.key === 'ArrowRight'
        ? (at + 1) % sources.length
        : event.key === 'ArrowLeft'
          ? (at - 1 + sources.length) % sources.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? sources.length - 1
              : -1
    if (to < 0) return
    event.preventDefault()
    setCurrent(sources[to]!.sourceId)
    const button = tabs.current?.querySelectorAll<HTMLButtonElement>('[role=tab]')[to]
    button?.focus()
    button?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' })
  }

  const source = sources?.find((s) => s.sourceId === current) ?? list?.source ?? null
  const shown = list && list.source.sourceId === current ? list : null
  const ownCopy = desktop || !externalControls

  return (
    <section aria-labelledby="lx-hot-title" className="max-w-4xl mx-auto">
      <div className="flex items-center gap-3">
        <h2 id="lx-hot-title" className="text-xl font-bold mr-auto">
          热点资讯
        </h2>
        <button
          type="button"
          onClick={() => current && load(current)}
          aria-disabled={loading || undefined}
          className="h-9 px-3 rounded-lg border border-line text-sm text-muted hover:text-ink hover:border-primary"
        >
          {loading ? '刷新中…' : '刷新'}
        </button>
        {ownCopy && (
          <button
            type="button"
            onClick={copyList}
            aria-disabled={!shown?.items.length || undefined}
            className="h-9 px-3 rounded-lg border border-line text-sm text-muted hover:text-ink hover:border-primary inline-flex items-center gap-1.5"
          >
            <Icon name="copy" className="size-4" />
            复制列表
          </button>
        )}
      </div>

      {sources === null ? (
        <div role="status" className="py-16 grid place-items-center gap-3 text-muted text-sm">
          <span className="lx-spinner" />
          加载热榜…
        </div>
      ) : sources.length === 0 ? (
        <p className="py-16 text-center text-muted">暂无可用的热榜来源</p>
      ) : (
        <>
          <div
            ref={tabs}
            role="tablist"
            aria-label="热榜来源"
            onKeyDown={handleTabKey}
            className="mt-4 flex gap-2 overflow-x-auto pb-1 [scrollbar-width:thin] md:flex-wrap"
          >
            {sources.map((s) => (
              <button
                key={s.sourceId}
                type="button"
                role="tab"
                id={`lx-hot-tab-${s.sourceId}`}
                aria-selected={s.sourceId === current}
                aria-controls="lx-hot-panel"
                tabIndex={s.sourceId === current ? 0 : -1}
                onClick={() => setCurrent(s.sourceId)}
                className={`h-8 px-3 rounded-full border text-sm whitespace-nowrap ${
                  s.sourceId === current ? 'border-primary bg-primary/15 text-primary' : 'border-line text-muted hover:text-ink'
                }`}
              >
                {s.name}
              </button>
            ))}
          </div>

          <div
            id="lx-hot-panel"
            role="tabpanel"
            aria-labelledby={current ? `lx-hot-tab-${current}` : undefined}
            aria-busy={loading || undefined}
            className="mt-4"
          >
            {source?.demo && (
              <p
                data-testid="demo-banner"
                className="mb-3 flex items-start gap-2 rounded-lg border border-primary/40 bg-primary/10 px-3 py-2 text-sm text-primary"
              >
                <b className="shrink-0">示例数据</b>
                <span>以下内容是离线演示用的样例，并非真实新闻。配置真实数据源后显示实时热榜。</span>
              </p>
            )}
            {source?.stale && (
              <p data-testid="stale-notice" role="status" className="mb-3 rounded-lg border border-line bg-raised px-3 py-2 text-sm text-muted">
                数据源暂时无法更新，显示的是{source.updatedTime ? ` ${when(source.updatedTime)} ` : '上次'}获取的内容。
              </p>
            )}
            {source && (
              <p className="mb-2 text-xs text-muted">
                {source.name}
                {source.updatedTime ? ` · 更新于 ${when(source.updatedTime)}` : ''}
                {shown ? ` · ${shown.items.length} 条` : ''}
              </p>
            )}
            {!shown && loading && (
              <div role="status" className="py-12 grid place-items-center gap-3 text-muted text-sm">
                <span className="lx-spinner" />
                加载中…
              </div>
            )}
            {shown && shown.items.length === 0 && <p className="py-12 text-center text-muted">这个榜单暂时没有内容</p>}
            {shown && shown.items.length > 0 && (
              <ol aria-label={`${shown.source.name}热榜`} className="flex flex-col divide-y divide-line rounded-card border border-line bg-surface">
                {shown.items.map((item, i) => (
                  <Row key={item.id} item={item} rank={i + 1} demo={shown.source.demo || Boolean(item.demo)} onRead={() => setReading(item)} />
                ))}
              </ol>
            )}
          </div>
        </>
      )}

      <Dialog open={picking} onClose={() => setPicking(false)} title="热榜来源" placement={wide ? 'center' : 'bottom'} width={420}>
        <ul className="grid grid-cols-2 gap-2">
          {sources?.map((s) => (
            <li key={s.sourceId}>
              <button
                type="button"
                aria-current={s.sourceId === current || undefined}
                onClick={() => {
                  setCurrent(s.sourceId)
                  setPicking(false)
                }}
                className={`w-full h-11 px-3 rounded-lg border text-sm text-left ${s.sourceId === current ? 'border-primary bg-primary/15 text-primary' : 'border-line text-ink hover:border-primary'}`}
              >
                {s.name}
                {s.demo && <span className="ml-1 text-[11px] text-primary">示例</span>}
              </button>
            </li>
          ))}
        </ul>
      </Dialog>

      <Dialog open={reading !== null} onClose={() => setReading(null)} title="AI 解读" placement={wide ? 'center' : 'bottom'} width={600}>
        {reading && current && <Interpretation key={reading.id} sourceId={shown?.source.sourceId ?? current} item={reading} />}
      </Dialog>
    </section>
  )
}

function Row({ item, rank, demo, onRead }: { item: HotItem; rank: number; demo: boolean; onRead: () => void }) {
  const heat = formatHeat(item.hot)
  return (
    <li part="item" data-testid="hot-item" className="flex items-start gap-3 px-3 py-3 sm:px-4">
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
        <img src={item.cover} alt="" loading="lazy" className="hidden sm:block size-16 shrink-0 rounded-lg object-cover bg-raised" />
      )}
    </li>
  )
}
