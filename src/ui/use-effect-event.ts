import { useCallback, useLayoutEffect, useRef } from 'react'

/**
 * React 19.2's `useEffectEvent`, for React 18 as well (the npm package supports both): a stable
 * function that always calls the latest `fn`. Effects call it without listing it, so they re-run
 * only for what they really depend on. Call it from effects and event handlers, not while rendering.
 */
export function useEffectEvent<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const latest = useRef(fn)
  useLayoutEffect(() => {
    latest.current = fn
  })
  return useCallback((...args: A) => latest.current(...args), [])
}
