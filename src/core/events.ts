import { notifyError } from './api'
import { announce, type ToastType } from './emit'
import { loadPermissions } from './permissions'
import { shared } from './shared'
import { readJson, readRaw } from './storage'
import { $confirm, $permissionTree, $toasts, $token, $user, clearSession, closeLogin, markSession, openLogin, type PendingConfirm } from './stores'
import type { LoginUser } from './types'
import {
  EVENT_CONFIRM,
  EVENT_LOGIN,
  EVENT_LOGOUT,
  EVENT_TOAST,
  EVENT_UNAUTHORIZED,
  EVENT_WX_LOGIN,
  ICT_AUTH_FLAG,
  ICT_USER_INFO_KEY,
  USER_INFO_KEY
} from './wire'

export { confirm, toast, type ConfirmOptions, type ToastType } from './emit'

/** How long a toast stays. */
export const TOAST_MS = 3000
const TYPES: ToastType[] = ['success', 'warning', 'error', 'info']

const seq = () => shared('toast.seq', () => ({ n: 0 }))
const queue = () => shared('confirm.queue', () => [] as PendingConfirm[])

export function dismissToast(id: number): void {
  $toasts.set($toasts.get().filter((t) => t.id !== id))
}

/** Adds a toast for TOAST_MS; the same message already showing is not repeated. */
function addToast(message: string, type: ToastType): void {
  if ($toasts.get().some((t) => t.message === message && t.type === type)) return
  const id = ++seq().n
  $toasts.set([...$toasts.get(), { id, message, type }])
  setTimeout(() => dismissToast(id), TOAST_MS)
}

/** Answers the confirm on screen; the next queued one (if any) takes its place. */
export function answerConfirm(ok: boolean): void {
  const current = $confirm.get()
  if (!current) return
  const pending = queue()
  pending.shift()
  $confirm.set(pending[0] ?? null)
  current.resolve(ok)
}

function detailOf(event: Event): Record<string, unknown> {
  const detail = (event as CustomEvent).detail
  return typeof detail === 'object' && detail !== null ? detail : {}
}

/**
 * The server refused the token. Inside an ICT-authenticated shell (sessionStorage flag) the
 * shell's user stays and no login opens; otherwise the session is forgotten and login opens.
 */
export function handleUnauthorized(): void {
  if (readRaw(ICT_AUTH_FLAG, 'sessionStorage')) {
    $user.set(readJson<LoginUser>(ICT_USER_INFO_KEY))
    return
  }
  clearSession()
  openLogin('login')
}

/** The WeChat login popup got the session cookie set: the session is open (the dialog loads the user). */
export function handleWxLogin(): void {
  // A bind (already logged in) keeps its session.
  if (!$token.get()) markSession()
  closeLogin()
  loadPermissions().catch(notifyError)
}

/**
 * Another tab of this page's origin logged in or out (the stored user info changed): the cookie
 * session is shared by the tabs, so this page follows without asking the server.
 */
export function handleStorage(event: StorageEvent): void {
  if (event.key !== USER_INFO_KEY && event.key !== null) return
  const user = readJson<LoginUser>(USER_INFO_KEY)
  if (!user) {
    if (!$token.get()) return
    $token.set(null)
    $user.set(null)
    $permissionTree.set(null)
    announce(EVENT_LOGOUT)
  } else if (!$token.get()) {
    markSession()
    $user.set(user)
    closeLogin()
    loadPermissions().catch(notifyError)
    announce(EVENT_LOGIN, { accountId: user.accountId, phone: user.phone })
  } else {
    $user.set(user)
  }
}

/**
 * Turns the page-wide window events into stores, once per page whichever bundle calls it first:
 * lingxi-toast → `$toasts`, lingxi-confirm → `$confirm`, lingxi-unauthorized,
 * wx_login_success and another tab's login or logout (storage) → the session handlers above.
 */
export function installGlobalListeners(): void {
  if (typeof window === 'undefined') return
  shared('listeners', () => {
    window.addEventListener(EVENT_TOAST, (event) => {
      const { message, type } = detailOf(event)
      if (message) addToast(String(message), TYPES.includes(type as ToastType) ? (type as ToastType) : 'info')
    })
    window.addEventListener(EVENT_CONFIRM, (event) => {
      const detail = detailOf(event)
      if (typeof detail.resolve !== 'function') return
      const pending = queue()
      pending.push({ ...detail, message: String(detail.message ?? '') } as PendingConfirm)
      if (!$confirm.get()) $confirm.set(pending[0] ?? null)
    })
    window.addEventListener(EVENT_UNAUTHORIZED, () => handleUnauthorized())
    window.addEventListener(EVENT_WX_LOGIN, () => handleWxLogin())
    window.addEventListener('storage', handleStorage)
    return true
  })
}
