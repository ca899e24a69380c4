/**
 * Partner single sign-on (issue 16, item 3; docs/decisions/0020-partner-sso.md): the partner page
 * hands over the assertion its backend signed, and this page is logged in without SMS. The server
 * answers with the session cookie of every browser login, usable only from the partner's origins.
 * Its own chunk: loaded by `lingxi.identify()` / `lingxi('identify', …)` (the loader's commands
 * chunk) and the elements' `identify()`, never on first paint.
 */
import { notifyError, request } from './api'
import { loadPermissions, refreshUser, startSession } from './auth'
import { announce } from './emit'
import { deviceKind } from './format'
import { closeLogin, currentSession, type SessionInfo, saveSession } from './stores'
import type { LoginResponse } from './types'
import { EVENT_LOGIN } from './wire'

/**
 * Logs the partner's user in with `assertion` (a compact JWT, HS256, made by the partner's backend).
 * Resolves the session (`{accountId, phone, nickName, avatarUrl}`); rejects with the server's
 * ApiError (an expired, replayed or wrongly signed assertion, a page of another origin) and logs
 * nobody in then. Fires `lingxi-login` `{accountId, phone, via: 'partner'}` on every element and on
 * document.
 */
export async function identify(assertion: unknown): Promise<SessionInfo | null> {
  if (typeof assertion !== 'string' || assertion.trim() === '')
    throw new TypeError('lingxi.identify(assertion): assertion must be the JWT string your backend signed')
  await startSession()
  const session = await request<LoginResponse>('/auth/partner/identify', { assertion: assertion.trim(), platform: deviceKind() })
  saveSession(session)
  const results = await Promise.allSettled([refreshUser(), loadPermissions()])
  closeLogin()
  for (const r of results) if (r.status === 'rejected') notifyError(r.reason)
  // `via: 'partner'`: no phone binding is asked of a partner's user (src/ui/login/wechat-flow.ts).
  announce(EVENT_LOGIN, { accountId: session.accountId, phone: session.phone, via: 'partner' })
  return currentSession()
}
