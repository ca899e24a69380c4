import { useStore } from '@nanostores/react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { copyText } from '../../core/format'
import { $token } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import { Dialog } from '../../ui/dialog'
import type * as On from '../../ui/events'
import { Icon } from '../../ui/icons'
import { Canvas } from '../../ui/canvas'
import { InlineLogin, LoggedOut } from '../../ui/logged-out'
import { useEffectEvent } from '../../ui/use-effect-event'
import { MD, SM, useMedia } from '../../ui/use-media'
import { Interpretation } from './interpret'
import { ago, Row, when } from './row'
import { SearchResults } from './search-results'
import { SourceManager } from './sources-dialog'
import {
  arrangeSources,
  EVENT_HOT_COMMAND,
  type HotCommand,
  type HotItem,
  type HotList,
  type HotSource,
  hotListText,
  loadHotList,
  loadHotSources,
  readSourceChoice,
  type SourceChoice,
  saveSourceChoice
} from './state'

export interface HotNewsProps extends ElementProps {
  /** Start on this source (a `sourceId` of hot/sources). */
  source?: string
  /** The page's own controls (the host header on phones) send `lingxi-hot-command`; the widget's copy button hides on phones. */
  externalControls?: boolean
}

/**
 * @summary Hot news: the hot lists of Chinese sites (微博, 知乎, 百度, 抖音, B站…) and feeds, one tab
 * per source, ranked with their heat; open the original, copy the list as text, and AI 解读 — a
 * short commentary on one item streamed by the chat model (charged to tokens). Sample data of the
 * offline demo source is marked 示例数据; a source that failed to update shows its last list with a notice.
 * @attr source - The source to start on (a sourceId).
 * @attr external-controls - The page drives the list and copy actions (lingxi-hot-command) on phones.
 * @event lingxi-hot-command - (window, listened) `{command: 'list' | 'copy'}`: show the sources, or copy the current list.
 * @csspart base - The element's root, painted with --lingxi-bg over its whole height (padding, corners…).
 * @csspart item - One ranked item.
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function HotNews({ source, externalControls }: HotNewsProps) {
  const token = useStore($token)
  return (
    <Canvas>
      {token ? (
        <Board initial={source} externalControls={Boolean(externalControls)} />
      ) : (
        <LoggedOut icon={<Icon name="hot" className="size-7" />} title="登录后查看热点" blurb="微博、知乎、抖音等热榜一屏看尽，AI 帮你解读。" />
      )}
      <InlineLogin />
    </Canvas>
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
  const [managing, setManaging] = useState(false)
  const [choice, setChoice] = useState<SourceChoice>(readSourceChoice)
  const [typed, setTyped] = useState('')
  const [query, setQuery] = useState('')
  const [reading, setReading] = useState<{ sourceId: string; item: HotItem } | null>(null)
  const ticket = useRef(0)
  const tabs = useRef<HTMLDivElement>(null)
  const listRef = useRef(list)
  listRef.current = list

  // `initial` is where the widget starts: a later change does not move the reader.
  const showSources = useEffectEvent((all: HotSource[]) => {
    setSources(all)
    const first = arrangeSources(all, choice)
    setCurrent((c) => c ?? (all.find((s) => s.sourceId === initial) ?? first[0])?.sourceId ?? null)
  })

  // A search runs 300 ms after the reader stops typing.
  useEffect(() => {
    const wait = setTimeout(() => setQuery(typed.trim()), 300)
    return () => clearTimeout(wait)
  }, [typed])

  function arrange(next: SourceChoice) {
    setChoice(next)
    saveSourceChoice(next)
    if (sources && current && next.hidden.includes(current)) setCurrent(arrangeSources(sources, next)[0]?.sourceId ?? null)
  }
  useEffect(() => {
    loadHotSources().then(showSources, notifyError)
  }, [])

  const load = useCallback(async (sourceId: string, refresh = false) => {
    const mine = ++ticket.current
    setLoading(true)
    try {
      const answer = await loadHotList(sourceId, refresh)
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

  const visible = sources ? arrangeSources(sources, choice) : null

  function handleTabKey(event: On.Key) {
    if (!visible?.length || !current) return
    const at = visible.findIndex((s) => s.sourceId === current)
    const to =
      event.key === 'ArrowRight'
        ? (at + 1) % visible.length
        : event.key === 'ArrowLeft'
          ? (at - 1 + visible.length) % visible.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? visible.length - 1
              : -1
    if (to < 0) return
    event.preventDefault()
    setCurrent(visible[to]!.sourceId)
    const button = tabs.current?.querySelectorAll<HTMLButtonElement>('[role=tab]')[to]
    button?.focus()
    button?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' })
  }

  const source = sources?.find((s) => s.sourceId === current) ?? list?.source ?? null
  const shown = list && list.source.sourceId === current ? list : null
  const ownCopy = desktop || !externalControls

  return (
    <section aria-labelledby="lx-hot-title" className="@container max-w-4xl mx-auto">
      <div className="flex items-center gap-3">
        <h2 id="lx-hot-title" className="text-xl font-bold mr-auto">
          热点资讯
        </h2>
        <button
          type="button"
          onClick={() => current && load(current, true)}
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

      <div className="mt-4 flex items-center gap-2">
        <label className="relative flex-1">
          <span className="sr-only">搜索全部热榜</span>
          <Icon name="search" className="size-4 absolute left-3 top-1/2 -translate-y-1/2 text-muted pointer-events-none" />
          <input
            type="search"
            value={typed}
            maxLength={50}
            onInput={(event) => setTyped(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape' && typed) {
                event.preventDefault()
                setTyped('')
              }
            }}
            placeholder="搜索全部热榜"
            className="w-full h-10 pl-9 pr-3 rounded-lg border border-line bg-surface text-sm text-ink placeholder:text-muted focus:border-primary outline-none"
          />
        </label>
        <button
          type="button"
          onClick={() => setManaging(true)}
          className="h-10 px-3 rounded-lg border border-line text-sm text-muted hover:text-ink hover:border-primary inline-flex items-center gap-1.5 whitespace-nowrap"
        >
          管理来源
        </button>
      </div>

      {query ? (
        <SearchResults query={query} onRead={(hit) => setReading({ sourceId: hit.source.sourceId, item: hit.item })} />
      ) : sources === null ? (
        <div role="status" className="py-16 grid place-items-center gap-3 text-muted text-sm">
          <span className="lx-spinner" />
          加载热榜…
        </div>
      ) : !visible || visible.length === 0 ? (
        <p className="py-16 text-center text-muted">暂无可用的热榜来源</p>
      ) : (
        <>
          <div
            ref={tabs}
            role="tablist"
            aria-label="热榜来源"
            onKeyDown={handleTabKey}
            className="mt-4 flex gap-2 overflow-x-auto pb-1 [scrollbar-width:thin] cq-md:flex-wrap"
          >
            {visible.map((s) => (
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
                {source.updatedTime ? ` · 更新于 ${when(source.updatedTime)}（${ago(source.updatedTime)}）` : ''}
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
                  <Row
                    key={item.id}
                    item={item}
                    rank={i + 1}
                    demo={shown.source.demo || Boolean(item.demo)}
                    onRead={() => setReading({ sourceId: shown.source.sourceId, item })}
                  />
                ))}
              </ol>
            )}
          </div>
        </>
      )}

      <Dialog open={picking} onClose={() => setPicking(false)} title="热榜来源" placement={wide ? 'center' : 'bottom'} width={420}>
        <ul className="grid grid-cols-2 gap-2">
          {visible?.map((s) => (
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

      <Dialog open={managing} onClose={() => setManaging(false)} title="管理来源" placement={wide ? 'center' : 'bottom'} width={420}>
        {sources && <SourceManager sources={sources} choice={choice} onChange={arrange} />}
      </Dialog>

      <Dialog open={reading !== null} onClose={() => setReading(null)} title="AI 解读" placement={wide ? 'center' : 'bottom'} width={600}>
        {reading && <Interpretation key={`${reading.sourceId}:${reading.item.id}`} sourceId={reading.sourceId} item={reading.item} />}
      </Dialog>
    </section>
  )
}
