import { ApiError, api } from './api'
import { getCookie, removeCookie } from './cookies'
import { readJson } from './storage'
import { $config } from './config'
import { markSession, saveSession } from './stores'
import { COOKIE_ACCOUNT_ID, COOKIE_PHONE, COOKIE_TOKEN, USER_INFO_KEY } from './wire'

// Loaded by startSession only on a page that still has an older client's readable token
// (docs/decisions/0019-session-cookie.md), so no other page pays for it.

/** Deletes the readable session cookies older clients wrote on this page's domain. */
function removeLegacyCookies(): void {
  for (const name of [COOKIE_TOKEN, COOKIE_ACCOUNT_ID, COOKIE_PHONE]) removeCookie(name, $config.get().cookieDomain)
}

/**
 * Trades the readable `lingxi_token` once for the session cookie (`auth/session-cookie` ends that
 * token's session, as it may have been copied), then deletes the readable cookies. A refused trade
 * (the token ended, or another tab traded it first) deletes them too, and the stored user info, if
 * any, makes the page check with user/info whether that other tab's cookie session is there.
 * Offline, it is tried again on the next load.
 */
export async function tradeLegacyToken(system: Promise<unknown>): Promise<void> {
  const legacy = getCookie(COOKIE_TOKEN)
  if (!legacy) return
  try {
    saveSession(await api.auth.sessionCookie(legacy))
  } catch (error) {
    if (!(error instanceof ApiError)) return
    if (readJson(USER_INFO_KEY)) markSession()
  }
  removeLegacyCookies()
  // system.json may name the parent domain those cookies were written on.
  await system.catch(() => {})
  removeLegacyCookies()
}
