import { request } from '../../core/api'
import { formatCount } from '../../core/format'
import { followToolReply, stopToolReply, type ToolReplyResult, type ToolReplyStart, type ToolReplyStatus } from '../../core/tool-reply'

// Shapes and calls: docs/tools-wire.md (Hot news); the wire objects are the server's
// (`@lingxi/server/wire`, type-only). A source's updatedTime is when its items were fetched (null:
// never), stale: the last fetch failed; an item's hot is its heat (null when the source gives none),
// cover an http(s) URL or a Lingxi path, demo: sample data shipped with the server, not real news.

import type { HotItem, HotList, HotSearchHit, HotSource } from '@lingxi/server/wire'

export type { HotItem, HotList, HotSearchHit, HotSource }

/**
 * How an AI 解读 ended:
 * - `complete`: the commentary is whole.
 * - `interrput`: stopped by the person (wire spelling).
 * - `error`: the model failed (`message` says why).
 * - `timeout`: the model took too long.
 */
export type InterpretStatus = ToolReplyStatus

export type InterpretStart = ToolReplyStart

export interface InterpretOptions {
  /** The commentary so far, each time it grows. */
  onText: (text: string) => void
  /** The server accepted the request (stop needs its requestId). */
  onStart?: (start: InterpretStart) => void
  /** Aborting stops following (it does not stop the server: see stopInterpret). */
  signal?: AbortSignal
}

export type InterpretResult = ToolReplyResult

/**
 * - `list`: show the list of sources (the phone header's 列表 button).
 * - `copy`: copy the current list as text (the phone header's 复制 button).
 */
export type HotCommand = 'list' | 'copy'

/**
 * detail `{command}`: the host's header buttons on phones drive the widget (the manifest's
 * `header`, tool.ts, names the same event).
 */
export const EVENT_HOT_COMMAND = 'lingxi-hot-command'

declare global {
  interface WindowEventMap {
    [EVENT_HOT_COMMAND]: CustomEvent<{ command: HotCommand }>
  }
}

const call = <T>(path: string, body: object) => request<T>(`/hot/${path}`, body)

export async function loadHotSources(): Promise<HotSource[]> {
  const answer = await call<HotSource[]>('sources', {})
  return Array.isArray(answer) ? answer : []
}

/** `refresh`: the reader pressed 刷新 — the server fetches a list over a minute old again before answering. */
export async function loadHotList(sourceId: string, refresh = false): Promise<HotList> {
  const answer = await call<HotList>('list', refresh ? { sourceId, refresh } : { sourceId })
  return { source: answer.source, items: Array.isArray(answer.items) ? answer.items : [] }
}

/** Items of every fetched list holding `q` in their title or description (at most 50, in source then rank order). */
export async function searchHot(q: string): Promise<HotSearchHit[]> {
  const answer = await call<HotSearchHit[]>('search', { q })
  return Array.isArray(answer) ? answer : []
}

/** localStorage: the reader's sources, in their order, and the ones they hid (`{order, hidden}` of sourceIds). */
export const SOURCES_KEY = 'lingxi-hot-sources'

export interface SourceChoice {
  order: string[]
  hidden: string[]
}

export function readSourceChoice(): SourceChoice {
  try {
    const saved = JSON.parse(localStorage.getItem(SOURCES_KEY) ?? 'null') as Partial<SourceChoice> | null
    const ids = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [])
    return { order: ids(saved?.order), hidden: ids(saved?.hidden) }
  } catch {
    return { order: [], hidden: [] }
  }
}

export function saveSourceChoice(choice: SourceChoice): void {
  try {
    localStorage.setItem(SOURCES_KEY, JSON.stringify(choice))
  } catch {
    // Storage refused (private mode, quota): the choice lasts this page only.
  }
}

/**
 * The sources as the reader arranged them: their saved order first (ids the server no longer has
 * dropped), new sources after in the server's order; hidden ones left out unless `all`. At least
 * one source always shows.
 */
export function arrangeSources(sources: HotSource[], choice: SourceChoice, all = false): HotSource[] {
  const rank = new Map(choice.order.map((id, i) => [id, i]))
  const ordered = [...sources].sort(
    (a, b) => (rank.get(a.sourceId) ?? sources.length + sources.indexOf(a)) - (rank.get(b.sourceId) ?? sources.length + sources.indexOf(b))
  )
  if (all) return ordered
  const shown = ordered.filter((s) => !choice.hidden.includes(s.sourceId))
  return shown.length > 0 ? shown : ordered.slice(0, 1)
}

/** Heat as the spec shows counts: 9999 → '9999', 123456 → '12.3w+'; none → ''. */
export function formatHeat(hot: number | null | undefined): string {
  return typeof hot === 'number' && Number.isFinite(hot) && hot > 0 ? formatCount(Math.floor(hot)) : ''
}

/** The list as plain text for the clipboard: a heading, then one numbered line (and link) per item. */
export function hotListText(list: HotList): string {
  const name = /榜$/.test(list.source.name) ? list.source.name : `${list.source.name}热榜`
  const head = `${name}${list.source.demo ? '（示例数据，非真实新闻）' : ''}`
  const lines = list.items.map((item, i) => {
    const heat = formatHeat(item.hot)
    return `${i + 1}. ${item.title}${heat ? `（热度 ${heat}）` : ''}${item.url ? `\n   ${item.url}` : ''}`
  })
  return [head, ...lines].join('\n')
}

/**
 * AI 解读 of one item: a short commentary written by the chat pipeline (charged to tokens) and
 * streamed from `/ai-chat/sse/subscribe/{requestId}`. Resolves with how it ended and the whole
 * text; rejects with ApiError when the server refuses (no tokens, no permission…).
 */
export async function interpretHotItem(sourceId: string, itemId: string, opts: InterpretOptions): Promise<InterpretResult> {
  const start = await call<InterpretStart>('interpret', { sourceId, itemId })
  opts.onStart?.(start)
  return followToolReply(start.requestId, opts)
}

/** Stops an AI 解读 on the server; the stream then ends with `stopped`. Resolves the saved text. */
export const stopInterpret = stopToolReply
