import type { Store, StoreValue } from 'nanostores'
import { useCallback, useRef, useSyncExternalStore } from 'react'

/**
 * `useStore` of @nanostores/react without its `keys` option (which no Lingxi code uses), for the
 * CDN build (rollup.config.mjs aliases the package here): the option pulls in nanostores'
 * listenKeys and deep-map paths, about 0.5 KB gzip on every page that embeds a widget. The same
 * logic otherwise: the value seen while rendering is kept, and a change between render and
 * subscription re-renders. The npm build keeps the real package.
 */
export function useStore<S extends Store>(store: S): StoreValue<S> {
  const seen = useRef<StoreValue<S>>(undefined as StoreValue<S>)
  seen.current = store.get()
  const subscribe = useCallback(
    (onChange: () => void) => {
      const emit = (value: StoreValue<S>) => {
        if (seen.current === value) return
        seen.current = value
        onChange()
      }
      emit(store.value)
      return store.listen(emit)
    },
    [store]
  )
  const get = () => seen.current
  return useSyncExternalStore(subscribe, get, get)
}
