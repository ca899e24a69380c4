import { useEffect, useState } from 'react'

/** Tracks a media query; false during server rendering. */
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
