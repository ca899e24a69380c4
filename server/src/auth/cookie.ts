import type { Context } from 'hono'
import { deleteCookie, setCookie } from 'hono/cookie'
import { parse } from 'hono/utils/cookie'
import type { Db } from '../db/database.js'
import { ApiError } from '../errors.js'
import { checkPartnerOrigin, type PartnerOrigins } from './partner-origin.js'
import { type AuthCache, type AuthInfo, authenticate, renewSession } from './sessions.js'
import { BROWSER_SESSION_TTL_MS, sha256Hex } from './tokens.js'
import { requestHeader } from '../http/request-header.js'

/**
 * The browser session (docs/decisions/0019-session-cookie.md): the token lives only in this
 * HttpOnly, Secure, SameSite=None, Partitioned (CHIPS) cookie of the API origin; no script of the
 * site or of a partner page can read it.
 */
export const SESSION_COOKIE = 'lingxi_session'
/**
 * A request authenticated by the cookie must carry this header. A cross-site form, image or link
 * cannot set it, and a script of another origin can only after a CORS preflight, which only the
 * origins of CORS_ORIGINS pass (http/security.ts): the CSRF guard.
 */
export const CSRF_HEADER = 'X-Lingxi-Request'
export const CSRF_REFUSED = '请求缺少 X-Lingxi-Request 请求头（跨站请求防护），已拒绝'

const COOKIE_PATH = '/api/'

/** A browser page calls (it sends Origin on every cross-origin call and on same-origin POSTs); scripts and the CLI do not. */
export function fromBrowser(c: Context): boolean {
  return Boolean(requestHeader(c, 'origin'))
}

/** The session cookie's value, as hono's getCookie reads it, from the Cookie header(s). */
function sessionCookie(c: Context): string | undefined {
  const header = requestHeader(c, 'cookie')
  return header ? parse(header, SESSION_COOKIE)[SESSION_COOKIE] : undefined
}

export function setSessionCookie(c: Context, token: string, ttlMs = BROWSER_SESSION_TTL_MS): void {
  setCookie(c, SESSION_COOKIE, token, {
    path: COOKIE_PATH,
    httpOnly: true,
    secure: true,
    sameSite: 'None',
    partitioned: true,
    maxAge: Math.max(0, Math.floor(ttlMs / 1000))
  })
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: COOKIE_PATH, httpOnly: true, secure: true, sameSite: 'None', partitioned: true })
}

export interface SessionDeps {
  db: Db
  now: () => number
  sessions?: AuthCache
  /** Where partner sessions may be used from (auth/partner-origin.ts). */
  partnerOrigins?: PartnerOrigins
}

/**
 * Authenticates a request: `Authorization: Bearer` first (scripts, the CLI, tests), else the session
 * cookie, which also needs the CSRF header. A browser session is renewed when due (sliding expiry),
 * and the renewed cookie goes out with the answer.
 */
export async function authenticateRequest(c: Context, deps: SessionDeps): Promise<AuthInfo> {
  const header = requestHeader(c, 'authorization')
  const cookie = header?.trim() ? undefined : sessionCookie(c)
  if (cookie && !requestHeader(c, CSRF_HEADER)) throw new ApiError(40300001, CSRF_REFUSED)
  const token = cookie ? `Bearer ${cookie}` : header
  const now = deps.now()
  const auth = await authenticate(deps.db, token, now, deps.sessions).catch((error: unknown) => {
    // A cookie whose session ended is of no more use: the browser forgets it with this answer.
    if (cookie) clearSessionCookie(c)
    throw error
  })
  checkPartnerOrigin(c, auth, deps.partnerOrigins)
  const expiresAt = await renewSession(deps.db, auth, now)
  if (expiresAt === undefined) return auth
  const renewed = { ...auth, expiresAt }
  const raw = cookie ?? /^Bearer\s+(.*)$/i.exec(header?.trim() ?? '')?.[1]?.trim() ?? ''
  deps.sessions?.set(sha256Hex(raw), renewed)
  if (cookie) setSessionCookie(c, cookie, expiresAt - now)
  return renewed
}

/**
 * Opens a session's cookie for a browser caller and returns the token the answer's body carries:
 * '' for a browser, whose scripts never see the token (the client calls with credentials and the
 * cookie), the token itself for a script or the CLI (no `Origin`), which sends it as a bearer.
 */
export function issueSession(c: Context, token: string, ttlMs: number): string {
  if (!fromBrowser(c)) return token
  setSessionCookie(c, token, ttlMs)
  return ''
}
