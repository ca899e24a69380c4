import { useStore } from '@nanostores/react'
import { useState } from 'react'
import { pagedList, type PagedList, type PagedListOptions, type PagedListState } from '../core/paged-list'

/** A component's own paged list (src/core/paged-list.ts): its state, rendered, and its actions. */
export function usePagedList<T, Q = void>(options: PagedListOptions<T, Q>): [PagedListState<T>, PagedList<T, Q>] {
  const [list] = useState(() => pagedList(options))
  return [useStore(list.$state), list]
}
