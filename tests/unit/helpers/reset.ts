import { configure } from '../../../src/core/config'
import { writeCookie } from './cookie'
import { answerConfirm } from '../../../src/core/events'
import { anchor } from '../../../src/core/shared'
import { $confirm, $loginOpen, $permissionTree, $systemConfig, $toasts, $token, $user } from '../../../src/core/stores'

/** Puts the page and the core back to a first visit (stores, storage, cookies, URL). */
export function resetCore(): void {
  for (const part of document.cookie.split(';')) {
    const name = part.split('=')[0]?.trim()
    if (name) writeCookie(`${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`)
  }
  localStorage.clear()
  sessionStorage.clear()
  $token.set(null)
  $user.set(null)
  $permissionTree.set(null)
  $systemConfig.set(null)
  $loginOpen.set(false)
  $toasts.set([])
  while ($confirm.get()) answerConfirm(false)
  delete anchor().registry.session
  configure({ apiBase: '', cookieDomain: '', platform: undefined })
  history.replaceState(null, '', '/')
}

/** Records the window events of the given names, in order. */
export function recordEvents(...names: string[]) {
  const seen: { type: string; detail: unknown }[] = []
  const listener = (event: Event) => seen.push({ type: event.type, detail: (event as CustomEvent).detail })
  for (const name of names) window.addEventListener(name, listener)
  return {
    seen,
    types: () => seen.map((e) => e.type),
    stop: () => {
      for (const name of names) window.removeEventListener(name, listener)
    }
  }
}

/** The messages currently in `$toasts`, as `type: message`. */
export function toastTexts(): string[] {
  return $toasts.get().map((t) => `${t.type}: ${t.message}`)
}

/** Records every string written to document.cookie (attributes are invisible when reading it back). */
export function spyCookieWrites() {
  let proto: object | null = document
  let descriptor: PropertyDescriptor | undefined
  while (proto && !descriptor) {
    descriptor = Object.getOwnPropertyDescriptor(proto, 'cookie')
    proto = Object.getPrototypeOf(proto)
  }
  const { get, set } = descriptor!
  const writes: string[] = []
  Object.defineProperty(document, 'cookie', {
    configurable: true,
    get: () => get!.call(document),
    set: (value: string) => {
      writes.push(value)
      set!.call(document, value)
    }
  })
  return { writes, restore: () => delete (document as { cookie?: string }).cookie }
}
