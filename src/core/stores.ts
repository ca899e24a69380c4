import { atom, type WritableAtom } from 'nanostores'
import { $config } from './config'
import { getCookie, removeCookie, setCookie } from './cookies'
import type { ConfirmOptions, ToastType } from './emit'
import { shared } from './shared'
import { readJson, removeItem, writeJson } from './storage'
import type { LoginResponse, LoginUser, PermissionNode, SystemConfig } from './types'
import { COOKIE_ACCOUNT_ID, COOKIE_PHONE, COOKIE_TOKEN, PREMISSION_MENUS_KEY, USER_INFO_KEY } from './wire'

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

/** The access token, from the token cookie. */
export const $token = shared('$token', () => lazyAtom<string | null>(() => getCookie(COOKIE_TOKEN) || null, null))

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

const DAYS = 365

/** Writes the session cookies and sets `$token`. */
export function saveSession(session: LoginResponse): void {
  const domain = $config.get().cookieDomain
  setCookie(COOKIE_TOKEN, session.accessToken, { days: DAYS, domain })
  setCookie(COOKIE_ACCOUNT_ID, String(session.accountId), { days: DAYS, domain })
  setCookie(COOKIE_PHONE, session.phone, { days: DAYS, domain })
  $token.set(session.accessToken)
}

export function saveUser(user: LoginUser | null): void {
  if (user) writeJson(USER_INFO_KEY, user)
  else removeItem(USER_INFO_KEY)
  $user.set(user)
}

/** Forgets the session everywhere: stored user info, permission codes, cookies, stores. */
export function clearSession(): void {
  const domain = $config.get().cookieDomain
  removeItem(USER_INFO_KEY)
  removeItem(PREMISSION_MENUS_KEY)
  for (const name of [COOKIE_TOKEN, COOKIE_ACCOUNT_ID, COOKIE_PHONE]) removeCookie(name, { domain })
  $token.set(null)
  $user.set(null)
  $permissionTree.set(null)
}
