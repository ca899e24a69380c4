/**
 * What `lingxi(...)` does, loaded by the loader on the first call (and for calls queued before
 * it arrived). Unknown commands are reported on the console, never thrown at the page.
 */
import { logout, openLogin, startSession } from '../core'

type Handler = (...args: unknown[]) => unknown

const handlers: Record<string, Handler> = {
  login: () => openLogin(),
  logout: () => logout(),
  /** `lingxi('on', 'login', fn)` → fn(detail) on every `lingxi-login` event; returns an unsubscribe. */
  on: (name, fn) => {
    if (typeof name !== 'string' || typeof fn !== 'function') return
    const listener = (event: Event) => (fn as (d: unknown) => void)((event as CustomEvent).detail)
    addEventListener(`lingxi-${name}`, listener)
    return () => removeEventListener(`lingxi-${name}`, listener)
  },
  /** Open or close the chat bubble(s) on the page; the chat element listens for these. */
  open: () => dispatchEvent(new CustomEvent('lingxi-command', { detail: { command: 'open' } })),
  close: () => dispatchEvent(new CustomEvent('lingxi-command', { detail: { command: 'close' } })),
}

export function run([command, ...args]: [string, ...unknown[]]): unknown {
  startSession()
  const handler = handlers[command]
  if (!handler) {
    console.warn(`[lingxi] unknown command: ${String(command)}`)
    return undefined
  }
  return handler(...args)
}
