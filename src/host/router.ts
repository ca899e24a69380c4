import { atom } from 'nanostores'

export interface Location {
  pathname: string
  search: string
}

/** The address bar, as a store (the host page is the only router on its page). */
export const $location = atom<Location>({ pathname: '/', search: '' })

function read(): Location {
  return { pathname: decodeURI(location.pathname), search: location.search }
}

export function navigate(to: string, replace = false): void {
  const url = new URL(to, location.href)
  if (url.pathname + url.search === location.pathname + location.search) return
  history[replace ? 'replaceState' : 'pushState'](null, '', url.pathname + url.search + url.hash)
  $location.set(read())
  if (!replace) window.scrollTo(0, 0)
}

let started = false

/**
 * Follows popstate and takes over same-origin link clicks anywhere on the page, including links
 * inside widgets' shadow roots (found through the composed path).
 */
export function startRouter(): void {
  $location.set(read())
  if (started) return
  started = true
  addEventListener('popstate', () => $location.set(read()))
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    const link = event.composedPath().find((n): n is HTMLAnchorElement => n instanceof HTMLAnchorElement && n.hasAttribute('href'))
    if (!link || (link.target && link.target !== '_self') || link.hasAttribute('download')) return
    const url = new URL(link.href, location.href)
    if (url.origin !== location.origin || /\.\w+$/.test(url.pathname)) return
    event.preventDefault()
    navigate(url.pathname + url.search + url.hash)
  })
}
