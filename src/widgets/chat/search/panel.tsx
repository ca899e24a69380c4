import { useEffect, useRef, useState } from 'react'
import { toast } from '../../../core/emit'
import { t } from '../i18n'
import { errorInfo } from '../state'
import { jumpTo, type SearchHit, type SearchResult, search, splitSnippet, when } from './search'

interface SearchPanelProps {
  /** The trimmed query (1–100 characters). */
  query: string
  /** Opens a topic (closing a drawer around the list). */
  onPick: (topicId: string) => void
}

type State = { status: 'loading' | 'more' | 'ready'; result: SearchResult } | { status: 'error'; message: string; result?: SearchResult }

const EMPTY: SearchResult = { topics: [], messages: [], nextCursor: null }

/** Search results in place of the topic list: matching topics, then messages, more on demand. */
export function SearchPanel({ query, onPick }: SearchPanelProps) {
  const [state, setState] = useState<State>({ status: 'loading', result: EMPTY })
  const ref = useRef<HTMLDivElement>(null)
  const asked = useRef(0)

  useEffect(() => {
    const n = ++asked.current
    setState({ status: 'loading', result: EMPTY })
    search(query).then(
      (result) => n === asked.current && setState({ status: 'ready', result }),
      (error) => n === asked.current && setState({ status: 'error', message: errorInfo(error).message })
    )
  }, [query])

  function more() {
    if (state.status !== 'ready' || state.result.nextCursor === null) return
    const n = asked.current
    const { result } = state
    setState({ status: 'more', result })
    search(query, result.nextCursor).then(
      (next) =>
        n === asked.current &&
        setState({ status: 'ready', result: { topics: result.topics, messages: [...result.messages, ...next.messages], nextCursor: next.nextCursor } }),
      (error) => n === asked.current && setState({ status: 'error', message: errorInfo(error).message, result })
    )
  }

  function open(hit: SearchHit) {
    const root = (ref.current?.getRootNode() as ParentNode | undefined) ?? document
    onPick(hit.topicId)
    // A message on a branch not shown (an edited question's older replies) is not in the list.
    void jumpTo(root, hit.topicId, hit.messageId).then((ok) => ok || toast('这条消息不在当前显示的对话分支中，或已被删除', 'info'))
  }

  const result = state.result ?? EMPTY
  const nothing = state.status === 'ready' && result.topics.length === 0 && result.messages.length === 0 && result.nextCursor === null
  return (
    <div ref={ref} data-testid="search-results" className="flex flex-col gap-1">
      <p role="status" className="sr-only">
        {state.status === 'loading'
          ? t('搜索中')
          : state.status === 'ready'
            ? t('找到 {n} 条结果').replace('{n}', String(result.topics.length + result.messages.length))
            : ''}
      </p>
      {result.topics.length > 0 && (
        <section>
          <h3 className="px-2 py-1.5 text-xs text-muted">{t('话题')}</h3>
          <ul className="flex flex-col gap-0.5">
            {result.topics.map((t) => (
              <li key={t.topicId}>
                <button type="button" onClick={() => onPick(t.topicId)} className="w-full rounded-lg px-2.5 py-2 text-left text-ink hover:bg-raised">
                  <span className="block truncate">
                    <Marked text={t.name} query={query} />
                  </span>
                  <span className="block text-xs text-muted">{when(t.updateTime)}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {result.messages.length > 0 && (
        <section>
          <h3 className="px-2 py-1.5 text-xs text-muted">{t('消息')}</h3>
          <ul className="flex flex-col gap-0.5">
            {result.messages.map((hit) => {
              const [before, match, after] = splitSnippet(hit)
              return (
                <li key={hit.messageId}>
                  <button type="button" data-testid="search-hit" onClick={() => open(hit)} className="w-full rounded-lg px-2.5 py-2 text-left hover:bg-raised">
                    <span className="flex items-center gap-2 text-xs text-muted">
                      <span className="min-w-0 flex-1 truncate">{hit.topicName}</span>
                      <span className="shrink-0">{when(hit.createTime)}</span>
                    </span>
                    <span className="mt-0.5 block text-sm text-ink break-words line-clamp-2">
                      {t(hit.role === 'assistant' ? 'AI：' : '我：')}
                      {before}
                      <mark className="rounded bg-primary/15 text-ink">{match}</mark>
                      {after}
                    </span>
                  </button>
                </li>
              )
            })}
          </ul>
        </section>
      )}
      {state.status === 'loading' && <p className="px-3 py-6 text-center text-sm text-muted">{t('搜索中…')}</p>}
      {nothing && <p className="px-3 py-8 text-center text-sm text-muted">{t('没有找到「{s}」相关的话题或消息').replace('{s}', query)}</p>}
      {state.status === 'error' && (
        <p role="alert" className="px-3 py-4 text-center text-sm text-danger">
          {state.message}
        </p>
      )}
      {(state.status === 'ready' || state.status === 'more') && result.nextCursor !== null && (
        <button
          type="button"
          onClick={more}
          disabled={state.status === 'more'}
          className="mt-1 h-9 rounded-lg border border-line text-sm text-muted hover:text-ink disabled:opacity-40"
        >
          {t(state.status === 'more' ? '搜索中…' : result.messages.length ? '加载更多' : '继续搜索更早的消息')}
        </button>
      )}
    </div>
  )
}

/** `text` with the first occurrence of `query` (case-insensitive) marked. */
function Marked({ text, query }: { text: string; query: string }) {
  const at = text.toLowerCase().indexOf(query.toLowerCase())
  if (at < 0) return <>{text}</>
  return (
    <>
      {text.slice(0, at)}
      <mark className="rounded bg-primary/15 text-ink">{text.slice(at, at + query.length)}</mark>
      {text.slice(at + query.length)}
    </>
  )
}
