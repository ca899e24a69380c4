import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react'
import type * as On from '../../../ui/events'
import { Spinner } from '../../../ui/icons'
import { deferred } from '../deferred'
import { composingEnter } from '../dom'
import { t } from '../i18n'

// The search field over the topic list (part of topic-list.tsx's chunk); the results (panel.tsx)
// load when the field is first focused.
const loadPanel = () => deferred(import('./panel'))
const SearchPanel = lazy(() => loadPanel().then((m) => ({ default: m.SearchPanel })))
/** The longest search the server takes (server/src/modules/chat/search.ts). */
const SEARCH_MAX = 100
/** Typing pauses this long before a search is sent. */
const SEARCH_DELAY_MS = 300

interface SearchBoxProps {
  onPick: (topicId: string) => void
  /** The classes of the scrolling area below the field. */
  className: string
  /** The topic list, shown while nothing is searched. */
  children: ReactNode
}

/** The field, then the topic list or, while a search is typed, its results. Escape empties the field. */
export function SearchBox({ onPick, className, children }: SearchBoxProps) {
  const [input, setInput] = useState('')
  const [query, setQuery] = useState('')
  const typed = input.trim()
  useEffect(() => {
    if (!typed) return setQuery('')
    const timer = setTimeout(() => setQuery(typed), SEARCH_DELAY_MS)
    return () => clearTimeout(timer)
  }, [typed])

  function handleKeyDown(event: On.Key) {
    if (event.key === 'Enter' && !composingEnter(event)) {
      event.preventDefault()
      setQuery(typed)
    } else if (event.key === 'Escape' && input) {
      // Only the field: a drawer around the list stays open.
      event.preventDefault()
      event.stopPropagation()
      setInput('')
    }
  }

  return (
    <>
      <search className="block px-3 pb-3 shrink-0">
        <div className="relative">
          <svg
            viewBox="0 0 24 24"
            aria-hidden="true"
            fill="none"
            stroke="currentColor"
            strokeWidth={2}
            className="pointer-events-none absolute left-3 top-3 size-4 text-muted"
          >
            <path d="M11 18a7 7 0 100-14 7 7 0 000 14z M16 16l4 4" />
          </svg>
          <input
            type="search"
            value={input}
            maxLength={SEARCH_MAX}
            aria-label={t('搜索话题和消息')}
            placeholder={t('搜索话题和消息')}
            data-testid="chat-search"
            onFocus={() => void loadPanel().catch(() => {})}
            onInput={(e) => setInput((e.target as HTMLInputElement).value)}
            onKeyDown={handleKeyDown}
            className="w-full h-10 pl-9 pr-2 rounded-lg border border-line bg-surface text-sm text-ink placeholder:text-muted outline-none focus:border-primary"
          />
        </div>
      </search>
      <nav aria-label={t(query ? '搜索结果' : '话题列表')} className={className}>
        {query ? (
          <Suspense fallback={<Spinner label={t('加载搜索')} />}>
            <SearchPanel query={query} onPick={onPick} />
          </Suspense>
        ) : (
          children
        )}
      </nav>
    </>
  )
}
