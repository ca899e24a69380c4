import { atom, type ReadableAtom } from 'nanostores'
import { notifyError } from './api'

/** One page of a paged call (`pageNum` from 1): what every `…/list` endpoint answers. */
export interface Paged<T> {
  list: T[]
  total: number
  pageNum: number
  pageSize: number
}

export interface PagedListState<T> {
  /** The items of the pages loaded so far, in the server's order, each once. */
  list: T[]
  /** How many the server holds in all. */
  total: number
  /** The last page loaded; 0 before the first. */
  pageNum: number
  /** A page is on its way. */
  loading: boolean
  /** The first page has arrived. */
  loaded: boolean
  /** Why the last load of the first page failed (null when it did not). */
  error: unknown
}

export interface PagedList<T, Q = void> {
  $state: ReadableAtom<PagedListState<T>>
  /** Loads the first page for `query` (kept for the next pages); an answer to an earlier load is then ignored. */
  reload(query: Q): Promise<void>
  /** Loads the next page, unless one is on its way or every item is loaded. */
  more(): Promise<void>
  /** Changes the loaded items here (an item added, removed or updated) and the total by `delta`. */
  update(change: (list: T[]) => T[], delta?: number): void
}

export interface PagedListOptions<T, Q> {
  load: (pageNum: number, query: Q) => Promise<Paged<T>>
  /** What makes an item the same item on another page (pages shift as items come and go). */
  key: (item: T) => string
  /** Each page that is taken, before it is shown. */
  onPage?: (items: T[]) => void
}

const EMPTY = { list: [], total: 0, pageNum: 0, loading: false, loaded: false, error: null }

/**
 * A list loaded a page at a time (infinite scroll, 加载更多): answers to a superseded load are
 * ignored, a page never repeats an item already shown, and failures are reported through
 * notifyError. Framework-free: a component keeps one per list and renders `$state`.
 */
export function pagedList<T, Q = void>({ load, key, onPage }: PagedListOptions<T, Q>): PagedList<T, Q> {
  const $state = atom<PagedListState<T>>(EMPTY)
  let ticket = 0
  let query: Q
  const patch = (p: Partial<PagedListState<T>>) => $state.set({ ...$state.get(), ...p })

  async function fetchPage(pageNum: number): Promise<void> {
    const mine = ++ticket
    patch({ loading: true })
    try {
      const answer = await load(pageNum, query)
      if (mine !== ticket) return
      const items = answer.list ?? []
      onPage?.(items)
      const kept = pageNum === 1 ? [] : $state.get().list
      const seen = new Set(kept.map(key))
      $state.set({ list: [...kept, ...items.filter((i) => !seen.has(key(i)))], total: answer.total ?? 0, pageNum, loading: false, loaded: true, error: null })
    } catch (error) {
      if (mine !== ticket) return
      notifyError(error)
      patch(pageNum === 1 ? { loading: false, error } : { loading: false })
    }
  }

  return {
    $state,
    reload(next) {
      query = next
      return fetchPage(1)
    },
    more() {
      const s = $state.get()
      if (s.loading || !s.loaded || s.list.length >= s.total) return Promise.resolve()
      return fetchPage(s.pageNum + 1)
    },
    update(change, delta = 0) {
      const s = $state.get()
      $state.set({ ...s, list: change(s.list), total: Math.max(0, s.total + delta) })
    }
  }
}
