import { loadMessages, selectTopic } from '../replies'
import { $messages, call, slot } from '../state'

// Search over the account's topic titles and messages (server: modules/chat/search.ts), and the
// jump from a result to its message.

export interface SearchHit {
  messageId: string
  topicId: string
  topicName: string
  role: 'user' | 'assistant'
  snippet: string
  matchStart: number
  matchLength: number
  createTime: number
}

export interface SearchResult {
  topics: { topicId: string; name: string; updateTime: number }[]
  messages: SearchHit[]
  nextCursor: number | null
}

export function search(keyword: string, cursor?: number | null): Promise<SearchResult> {
  return call<SearchResult>('search', cursor ? { keyword, cursor } : { keyword })
}

/** The snippet in three parts: before, the match, after. */
export function splitSnippet(hit: Pick<SearchHit, 'snippet' | 'matchStart' | 'matchLength'>): [string, string, string] {
  const { snippet: s, matchStart: a, matchLength: n } = hit
  return [s.slice(0, a), s.slice(a, a + n), s.slice(a + n)]
}

/** 14:05 today, else 3月8日 (this year) or 2024/3/8. */
export function when(time: number, now = Date.now()): string {
  const d = new Date(time)
  const today = new Date(now)
  const pad = (n: number) => String(n).padStart(2, '0')
  if (d.toDateString() === today.toDateString()) return `${pad(d.getHours())}:${pad(d.getMinutes())}`
  if (d.getFullYear() === today.getFullYear()) return `${d.getMonth() + 1}月${d.getDate()}日`
  return `${d.getFullYear()}/${d.getMonth() + 1}/${d.getDate()}`
}

/** Resolves once `check` holds (checked on every change of the messages), or after `ms`. */
function until(check: () => boolean, ms = 8000): Promise<boolean> {
  if (check()) return Promise.resolve(true)
  return new Promise((resolve) => {
    const stop = $messages.listen(() => {
      if (!check()) return
      done(true)
    })
    const timer = setTimeout(() => done(false), ms)
    function done(ok: boolean) {
      stop()
      clearTimeout(timer)
      resolve(ok)
    }
  })
}

const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(null)))

/**
 * Opens a topic at one of its messages: loads older pages until the message is there (at most
 * `maxPages`), scrolls it to the middle of the list and highlights it briefly. `root` is where the
 * chat renders (its shadow root, or the document). False when the message could not be shown.
 */
export async function jumpTo(root: ParentNode, topicId: string, messageId: string, maxPages = 100): Promise<boolean> {
  await selectTopic(topicId)
  await until(() => slot(topicId).loaded)
  const has = () => slot(topicId).list.some((m) => m.messageId === messageId)
  for (let i = 0; i < maxPages && !has() && slot(topicId).hasMore; i++) await loadMessages(topicId, { older: true })
  if (!has()) return false
  let el: HTMLElement | null = null
  for (let i = 0; i < 60 && !el; i++) {
    await frame()
    el = root.querySelector<HTMLElement>(`[data-testid="message"][data-id="${CSS.escape(messageId)}"]`)
  }
  if (!el) return false
  // After the list's own scrolling (to the newest message) has happened.
  await frame()
  const found = el
  // Again shortly after: the list's own scrolling (to the newest message, the older pages' anchor)
  // may still move it in the first moments.
  for (const ms of [0, 200, 500]) {
    await new Promise((resolve) => setTimeout(resolve, ms))
    found.scrollIntoView({ block: 'center' })
  }
  found.dataset.found = 'true'
  found.animate?.([{ backgroundColor: 'color-mix(in srgb, var(--color-primary) 22%, transparent)' }, { backgroundColor: 'transparent' }], {
    duration: 2400,
    easing: 'ease-out'
  })
  setTimeout(() => delete found.dataset.found, 2400)
  return true
}
