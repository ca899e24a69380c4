import { atom, computed, type WritableAtom } from 'nanostores'
import type { ConfirmOptions, ToastType } from './emit'
import { shared } from './shared'
import { readJson, removeItem, writeJson } from './storage'
import type { LoginResponse, LoginUser, PermissionNode, SystemConfig } from './types'
import { COOKIE_TOKEN, PREMISSION_MENUS_KEY, USER_INFO_KEY } from './wire'

export interface Toast {
  id: number
  message: string
  type: ToastType
}

export interface PendingConfirm extends ConfirmOptions {
  resolve: (ok: boolean) => void
}

export type LoginDialogMode = false | 'login' | 'modify-phone'

/** An atom that reads its first value on first use (never at import: SSR-safe, test-friendly). */
function lazyAtom<T>(read: () => T, initial: T): WritableAtom<T> {
  const $store = atom<T>(initial)
  let fresh = true
  const { listen, set } = $store
  $store.listen = (listener) => {
    if (fresh) {
      fresh = false
      set(read()) // no listener yet: nobody is notified
    }
    return listen(listener)
  }
  $store.set = (value) => {
    fresh = false
    set(value)
  }
  return $store
}

/** The page still has an older client's readable token (startSession trades it: src/core/legacy-session.ts). */
export const hasLegacyToken = (): boolean => typeof document !== 'undefined' && `; ${document.cookie}`.includes(`; ${COOKIE_TOKEN}=`)

/** What `$token` holds in a browser: a cookie session is open (never the token itself). */
export const SESSION_MARKER = 'session:'

/** A marker of its own for each login, so a change of session is a change of `$token`. */
const marker = () => SESSION_MARKER + Math.random().toString(36).slice(2)

/**
 * Whether a session is open. In a browser an opaque marker (`session:…`): the token is the API's
 * HttpOnly cookie and never exists in JavaScript (docs/decisions/0019-session-cookie.md). After a
 * reload the stored user info is the hint that a session may still be open (user/info confirms
 * it); a page with an older client's readable token has none until `startSession` has traded it.
 * Any other value is a bearer a script or a test set explicitly, sent as `Authorization`.
 */
export const $token = shared('$token', () => lazyAtom<string | null>(() => (readJson(USER_INFO_KEY) && !hasLegacyToken() ? marker() : null), null))

/** The logged-in user, from stored user info. */
export const $user = shared('$user', () => lazyAtom<LoginUser | null>(() => readJson<LoginUser>(USER_INFO_KEY), null))

/** The AI_TOOLS permission tree (bodyList); null until loaded or without a token. */
export const $permissionTree = shared('$permissionTree', () => atom<PermissionNode[] | null>(null))

/** `/config/system.json`; null until loaded. */
export const $systemConfig = shared('$systemConfig', () => atom<SystemConfig | null>(null))

/** Which dialog of the login widget is open. */
export const $loginOpen = shared('$loginOpen', () => atom<LoginDialogMode>(false))

/**
 * The account has no phone yet (made by WeChat login): the change-phone dialog is titled 绑定手机号.
 * A store, not only an event, so a dialog whose code loads after the login still sees it.
 */
export const $bindPhone = shared('ui.loginDialog.bindPhone', () => atom(false))

export const $toasts = shared('$toasts', () => atom<Toast[]>([]))

/** The confirm being asked (the first of the queue), or null. */
export const $confirm = shared('$confirm', () => atom<PendingConfirm | null>(null))

/** Opens the login dialog; calling it again while open changes nothing. */
export function openLogin(mode: 'login' | 'modify-phone' = 'login'): void {
  $loginOpen.set(mode)
}

export function closeLogin(): void {
  $loginOpen.set(false)
}

/**
 * A login answered: `$token` becomes a new marker (the server set its cookie and answered a
 * browser `accessToken: ''`). Outside a browser (a script) the bearer answered is kept in memory.
 */
export function saveSession(session: LoginResponse): void {
  $token.set(typeof document === 'undefined' && session.accessToken ? session.accessToken : marker())
}

/** A cookie session may be open (a reload, another tab's login, a WeChat popup): user/info confirms it. */
export function markSession(): void {
  $token.set(marker())
}

/** Who is logged in, as this page may read it (the phone as the server shows it to this origin). */
export interface SessionInfo {
  accountId: string
  phone: string
  nickName: string
  avatarUrl: string
}

/** Who is logged in (`element.session`, `lingxi('session')`, `useSession()`), or null when logged out. */
export const $session = shared('$session', () =>
  computed([$token, $user], (token, user): SessionInfo | null =>
    token && user ? { accountId: user.accountId, phone: user.phone, nickName: user.nickName, avatarUrl: user.avatarUrl } : null
  )
)

/** The current session, or null when logged out. */
export function currentSession(): SessionInfo | null {
  return $session.get()
}

export function saveUser(user: LoginUser | null): void {
  if (user) writeJson(USER_INFO_KEY, user)
  else removeItem(USER_INFO_KEY)
  $user.set(user)
}

/** Forgets the session on this page: stored user info, permission codes, stores (the server ends the cookie). */
export function clearSession(): void {
  removeItem(USER_INFO_KEY)
  removeItem(PREMISSION_MENUS_KEY)
  $token.set(null)
  $user.set(null)
  $permissionTree.set(null)
}
