import type { LoginResponse } from './types'
import { EVENT_CONFIRM, EVENT_ERROR, EVENT_LOGIN, EVENT_LOGOUT, EVENT_TOAST, EVENT_UNAUTHORIZED, EVENT_WX_LOGIN } from './wire'

export type ToastType = 'success' | 'warning' | 'error' | 'info'

export interface ConfirmOptions {
  title?: string
  message: string
  confirmText?: string
  cancelText?: string
}

declare global {
  /**
   * The page-wide events of Lingxi. lingxi-toast, lingxi-confirm, lingxi-unauthorized: on window,
   * so any script can send or hear them. lingxi-login, lingxi-logout, lingxi-error: on every
   * Lingxi element and on document, bubbling to window.
   */
  interface WindowEventMap {
    [EVENT_TOAST]: CustomEvent<{ message: string; type?: ToastType }>
    [EVENT_CONFIRM]: CustomEvent<ConfirmOptions & { resolve: (ok: boolean) => void }>
    [EVENT_UNAUTHORIZED]: CustomEvent<{ code?: number } | null>
    [EVENT_WX_LOGIN]: Event
    [EVENT_LOGIN]: CustomEvent<Pick<LoginResponse, 'accountId' | 'phone'>>
    [EVENT_LOGOUT]: CustomEvent<null>
    [EVENT_ERROR]: CustomEvent<{ code: number; message: string }>
  }
  interface DocumentEventMap {
    [EVENT_LOGIN]: CustomEvent<Pick<LoginResponse, 'accountId' | 'phone'>>
    [EVENT_LOGOUT]: CustomEvent<null>
    [EVENT_ERROR]: CustomEvent<{ code: number; message: string }>
  }
}

/** Dispatches a window CustomEvent (no-op outside a browser). */
export function emit(name: string, detail?: unknown): void {
  if (typeof window !== 'undefined') window.dispatchEvent(new CustomEvent(name, { detail }))
}

/**
 * A public event of the SDK (lingxi-login, lingxi-logout, lingxi-error): on every `lingxi-*`
 * element of the document (not bubbling, so each hears it once), then on `document`, bubbling to
 * `window` (where `lingxi('on', …)` listens).
 */
export function announce(name: string, detail: unknown = null): void {
  if (typeof document === 'undefined') return
  for (const el of document.querySelectorAll('*')) if (el.localName.startsWith('lingxi-')) el.dispatchEvent(new CustomEvent(name, { detail }))
  document.dispatchEvent(new CustomEvent(name, { bubbles: true, detail }))
}

/** Shows a toast through the page-wide `lingxi-toast` event, so any script can do the same. */
export function toast(message: string, type: ToastType = 'info'): void {
  emit(EVENT_TOAST, { message, type })
}

/**
 * Asks through the page-wide `lingxi-confirm` event; resolves true on confirm, false on cancel
 * (and false at once outside a browser).
 */
export function confirm(options: ConfirmOptions): Promise<boolean> {
  if (typeof window === 'undefined') return Promise.resolve(false)
  return new Promise((resolve) => emit(EVENT_CONFIRM, { ...options, resolve }))
}
