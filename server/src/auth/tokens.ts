import { createHash, randomBytes } from 'node:crypto'

/** Sessions opened without a browser (scripts, the CLI, tests: no Origin header) keep the long bearer lifetime. */
export const TOKEN_TTL_MS = 365 * 24 * 60 * 60 * 1000
/** Sessions opened in a browser (the HttpOnly session cookie): short, renewed on use (docs/decisions/0019-session-cookie.md). */
export const BROWSER_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000
/** A browser session is never renewed past this long after it opened: log in again after 30 days. */
export const BROWSER_SESSION_MAX_MS = 30 * 24 * 60 * 60 * 1000
/** A browser session is renewed (expiry pushed to now + its lifetime) at most this often. */
export const SESSION_RENEW_EVERY_MS = 60 * 60 * 1000

/** 32 random bytes (256 bits) as base64url: 43 characters. */
export function newToken(): string {
  return randomBytes(32).toString('base64url')
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}
