import { useEffect, useState, type RefObject } from 'react'
import type * as On from '../../ui/events'

/**
 * Whether an Enter keydown belongs to an IME composition (pinyin candidates are confirmed with
 * Enter): `isComposing`, or keyCode 229 (Safari sends the confirming keydown after
 * compositionend). Reads the native event under React and under preact alike.
 */
export function composingEnter(event: On.Key): boolean {
  // preact/compat passes the DOM event itself
  const native = (event.nativeEvent ?? event) as KeyboardEvent
  return native.isComposing || native.keyCode === 229
}

/** Width of an element (0 until measured; never measured during server rendering). */
export function useWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0)
  useEffect(() => {
    const el = ref.current
    if (!el) return
    setWidth(el.getBoundingClientRect().width)
    if (typeof ResizeObserver === 'undefined') return
    const observer = new ResizeObserver(([entry]) => entry && setWidth(entry.contentRect.width))
    observer.observe(el)
    return () => observer.disconnect()
  }, [ref])
  return width
}

/** The breakpoints of ui/use-media (SM, MD). */
export const SM = '(min-width: 640px)'
export const MD = '(min-width: 768px)'

/**
 * Tracks a media query, as ui/use-media's useMedia does: a copy, because that module is shared by
 * many elements and so makes a chunk of its own, one more file (under 1 KB, so sent uncompressed)
 * for the panel to download.
 */
export function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => typeof matchMedia !== 'undefined' && matchMedia(query).matches)
  useEffect(() => {
    const list = matchMedia(query)
    const update = () => setMatches(list.matches)
    update()
    list.addEventListener('change', update)
    return () => list.removeEventListener('change', update)
  }, [query])
  return matches
}
