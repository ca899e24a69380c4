import { task } from 'nanostores'
import { api, notifyError } from './api'
import { announce, toast } from './emit'
import { installGlobalListeners } from './events'
import { MSG_LOGGED_OUT, MSG_LOGIN_OK, MSG_MODIFY_OK } from './messages'
import { loadPermissions, loadSystemConfig } from './permissions'
import { shared } from './shared'
import { $bindPhone, $token, $user, clearSession, closeLogin, hasLegacyToken, markSession, openLogin, saveSession, saveUser } from './stores'
import type { LoginResponse, LoginUser, SendCodeResponse } from './types'
import { EVENT_LOGIN, EVENT_LOGOUT, LOGIN_PARAM } from './wire'

export { loadPermissions, loadSystemConfig } from './permissions'
export { closeLogin, openLogin } from './stores'

export interface CodeLoginInput {
  /** Calling code without '+', e.g. '86'. */
  enCode: string
  phone: string
  code: string
}

/** Reports every distinct failure of background loads (a dead network fails them all). */
function report(results: PromiseSettledResult<unknown>[]): void {
  for (const r of results) if (r.status === 'rejected') notifyError(r.reason)
}

/** Loads user info into `$user` and the stored user info. */
export async function refreshUser(): Promise<LoginUser> {
  const user = await api.user.info()
  saveUser(user)
  return user
}

async function completeLogin(session: LoginResponse, message: string): Promise<void> {
  saveSession(session)
  const results = await Promise.allSettled([refreshUser(), loadPermissions()])
  closeLogin()
  toast(message, 'success')
  announce(EVENT_LOGIN, { accountId: session.accountId, phone: session.phone })
  report(results)
}

/** Sends a login code. Resolves `{withoutCode}`: 1 = call loginWithoutCode instead. Throws ApiError/NetworkError. */
export function sendSmsCode(enCode: string, phone: string): Promise<SendCodeResponse> {
  return api.auth.sendSmsCode({ enCode, phone: phone.trim() })
}

/** Logs in with a code: the session cookie (set by the server) + `$token`, user + permissions, dialog closed, 登录成功！, lingxi-login. */
export async function login({ enCode, phone, code }: CodeLoginInput): Promise<void> {
  const session = await api.auth.login({ enCode, phone: phone.trim(), code: code.trim() })
  await completeLogin(session, MSG_LOGIN_OK)
}

/** Logs in an allowlisted phone (send-code answered withoutCode 1). */
export async function loginWithoutCode({ enCode, phone }: { enCode: string; phone: string }): Promise<void> {
  const session = await api.auth.loginWithoutCode({ enCode, phone: phone.trim() })
  await completeLogin(session, MSG_LOGIN_OK)
}

/**
 * Forgets the session locally first (so the page is logged out even offline, and other tabs with
 * it through the stored user info), then revokes it on the server, which clears its cookie (a
 * failure there changes nothing for the user).
 */
export async function logout(): Promise<void> {
  const token = $token.get()
  clearSession()
  closeLogin()
  if (token) await api.auth.logout({ token }).catch(() => {})
  toast(MSG_LOGGED_OUT, 'success')
  announce(EVENT_LOGOUT)
}

/** Sends a code to the new phone number (logged in). */
export function sendModifyPhoneCode(enCode: string, phone: string): Promise<void> {
  return api.auth.modifyPhoneSmsCode({ enCode, phone: phone.trim() }).then(() => {})
}

/** Changes the phone number. The server revokes old sessions and answers a fresh one, stored like a login. */
export async function modifyPhone({ enCode, phone, code }: CodeLoginInput): Promise<void> {
  const session = await api.auth.modifyPhone({ enCode, phone: phone.trim(), code: code.trim() })
  saveSession(session)
  const results = await Promise.allSettled([refreshUser()])
  closeLogin()
  toast(MSG_MODIFY_OK, 'success')
  report(results)
}

/**
 * Decodes a `?login=` payload: base64 (standard or URL-safe, UTF-8) of JSON `{accessToken, accountId,
 * phone}`. The server's WeChat callback sends `accessToken: ''` (the session is its cookie).
 */
export function parseLoginPayload(raw: string): LoginResponse | null {
  try {
    // A '+' that was not percent-encoded arrives as a space.
    const b64 = raw.trim().replace(/ /g, '+').replace(/-/g, '+').replace(/_/g, '/')
    const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4))
    const value = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))))
    const { accessToken, accountId, phone } = value ?? {}
    if (typeof accessToken === 'string' && (typeof accountId === 'string' || typeof accountId === 'number') && String(accountId) && typeof phone === 'string') {
      return { accessToken, accountId: String(accountId), phone }
    }
  } catch {
    // falls through: not base64 or not JSON
  }
  return null
}

/**
 * Takes a redirect login (`?login=`) off the address bar (other parameters and the hash stay)
 * and, when valid, marks a session open (boot confirms it with user/info). Returns it or null.
 */
export function consumeRedirectLogin(): LoginResponse | null {
  if (typeof location === 'undefined') return null
  const params = new URLSearchParams(location.search)
  const raw = params.get(LOGIN_PARAM)
  if (raw === null) return null
  params.delete(LOGIN_PARAM)
  const query = params.toString()
  history.replaceState(history.state, '', `${location.pathname}${query ? `?${query}` : ''}${location.hash}`)
  const session = parseLoginPayload(raw)
  if (!session) {
    console.warn('[lingxi] ignored an invalid ?login= payload')
    return null
  }
  markSession()
  return session
}

async function boot(): Promise<void> {
  const redirected = consumeRedirectLogin()
  const system = loadSystemConfig()
  // An older client's readable token: traded for the session cookie first (its own chunk).
  if (hasLegacyToken()) await import('./legacy-session').then((m) => m.tradeLegacyToken(system))
  const jobs: Promise<unknown>[] = [system]
  if ($token.get()) jobs.push(refreshUser(), loadPermissions())
  const results = await Promise.allSettled(jobs)
  report(results)
  const user = $user.get()
  if (redirected && $token.get() && user) {
    toast(MSG_LOGIN_OK, 'success')
    // A WeChat account without a phone binds one: asked through the stores, so the login dialog
    // opens with it even when its code arrives after this.
    if (user.phone === '') {
      $bindPhone.set(true)
      openLogin('modify-phone')
    }
    announce(EVENT_LOGIN, { accountId: user.accountId, phone: user.phone })
  }
}

/**
 * The one call a page or widget makes at boot (every element calls it; only the first call per
 * page does the work): installs the window listeners, takes a redirect login, trades an older
 * client's readable token for the session cookie, loads system config and, when a session may be
 * open, user info (which confirms it) and permissions. Never rejects: failures are reported
 * through notifyError.
 */
export function startSession(): Promise<void> {
  if (typeof window === 'undefined') return Promise.resolve()
  installGlobalListeners()
  return shared('session', () => task(boot))
}
