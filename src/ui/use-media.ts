import { useEffect, useState } from 'react'

/**
 * Tracks a media query; false during server rendering. For what follows the window: the host
 * page's own layout and where a modal dialog opens (it covers the window, not the widget). A
 * widget's own layout follows its width instead (the cq-* variants of src/styles/lingxi.css; the
 * chat measures itself, chat/dom.ts useWidth).
 */
export function useMedia(query: string): boolean {
  const get = () => typeof matchMedia !== 'undefined' && matchMedia(query).matches
  const [matches, setMatches] = useState(get)
  useEffect(() => {
    const list = matchMedia(query)
    const update = () => setMatches(list.matches)
    update()
    list.addEventListener('change', update)
    return () => list.removeEventListener('change', update)
  }, [query])
  return matches
}

/** Breakpoints of the spec (section 9). */
export const SM = '(min-width: 640px)'
export const MD = '(min-width: 768px)'
