import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db, Tx } from '../db/database.js'
import { type Account, accounts, sessions } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { BROWSER_SESSION_MAX_MS, BROWSER_SESSION_TTL_MS, newToken, SESSION_RENEW_EVERY_MS, sha256Hex, TOKEN_TTL_MS } from './tokens.js'

export type Platform = 'PC' | 'H5'
export type RevokeReason = 'logout' | 'phone-change' | 'admin'

export interface AuthInfo {
  sessionId: number
  platform: Platform
  account: Account
  /** Epoch ms; an open stream ends at its first heartbeat after it (auth/session-streams.ts). */
  expiresAt: number
  /** Epoch ms the session opened (bounds its renewals); absent in hand-made AuthInfos of tests. */
  createdAt?: number
  /** Opened through this partner (auth/partner.ts): the session works only from its origins. */
  partnerId?: string
}

/** Opens a session; `ttlMs` is BROWSER_SESSION_TTL_MS for a browser (cookie) session. */
export async function createSession(
  db: Db | Tx,
  accountId: string,
  platform: Platform,
  now: number,
  ttlMs = TOKEN_TTL_MS,
  partnerId?: string
): Promise<string> {
  const token = newToken()
  await db.insert(sessions).values({
    tokenHash: sha256Hex(token),
    accountId,
    platform,
    partnerId: partnerId ?? null,
    createdAt: new Date(now),
    expiresAt: new Date(now + ttlMs)
  })
  return token
}

/**
 * Sliding expiry of a browser session: pushes the expiry to `now + BROWSER_SESSION_TTL_MS` when it
 * was last set more than SESSION_RENEW_EVERY_MS ago, never past BROWSER_SESSION_MAX_MS after the
 * session opened. A long (bearer) session is past that bound long before its last week, so it is
 * never renewed. Returns the new expiry, or undefined when nothing was renewed.
 */
export async function renewSession(db: Db, auth: AuthInfo, now: number): Promise<number | undefined> {
  if (auth.createdAt === undefined) return undefined
  const left = auth.expiresAt - now
  const until = Math.min(now + BROWSER_SESSION_TTL_MS, auth.createdAt + BROWSER_SESSION_MAX_MS)
  if (left > BROWSER_SESSION_TTL_MS - SESSION_RENEW_EVERY_MS || until <= auth.expiresAt) return undefined
  const expiresAt = until
  const rows = await db
    .update(sessions)
    .set({ expiresAt: new Date(expiresAt) })
    .where(and(eq(sessions.id, auth.sessionId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id })
  return rows.length > 0 ? expiresAt : undefined
}

/** Where authenticate keeps the sessions it read (auth/session-cache.ts). */
export interface AuthCache {
  get(tokenHash: string): AuthInfo | undefined
  set(tokenHash: string, auth: AuthInfo): void
}

/** The session lookup of every authenticated request, built once per database. */
const lookups = new WeakMap<Db, ReturnType<typeof prepareLookup>>()

function prepareLookup(db: Db) {
  return db
    .select({ session: sessions, account: accounts })
    .from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.accountId))
    .where(eq(sessions.tokenHash, sql.placeholder('hash')))
    .limit(1)
    .prepare('lingxi_auth_session')
}

/**
 * Resolves `Authorization: Bearer <token>` (or the session cookie's token, given as `Bearer <token>`
 * by auth/cookie.ts) to its session and account; writes nothing. With a
 * cache, a session read in the last few seconds is not read again (auth/session-cache.ts).
 */
export async function authenticate(db: Db, authorization: string | undefined, now: number, cache?: AuthCache): Promise<AuthInfo> {
  const match = /^Bearer(?:\s+(.*))?$/i.exec(authorization?.trim() ?? '')
  const token = match?.[1]?.trim()
  if (!token) throw new ApiError(50011004, '请先登录')
  // Hashing first makes the lookup time independent of how much of a guessed token is right.
  const hash = sha256Hex(token)
  const cached = cache?.get(hash)
  if (cached) return cached
  let lookup = lookups.get(db)
  if (!lookup) {
    lookup = prepareLookup(db)
    lookups.set(db, lookup)
  }
  const [row] = await lookup.execute({ hash })
  if (!row) throw new ApiError(50011005, '登录已过期，请重新登录')
  if (row.session.revokedAt) throw new ApiError(50011006, '登录状态已失效，请重新登录')
  if (row.session.expiresAt.getTime() <= now) throw new ApiError(50011005, '登录已过期，请重新登录')
  const auth: AuthInfo = {
    sessionId: row.session.id,
    platform: row.session.platform as Platform,
    account: row.account,
    expiresAt: row.session.expiresAt.getTime(),
    createdAt: row.session.createdAt.getTime(),
    ...(row.session.partnerId ? { partnerId: row.session.partnerId } : {})
  }
  cache?.set(hash, auth)
  return auth
}

export async function revokeSession(db: Db | Tx, sessionId: number, reason: RevokeReason, now: number): Promise<void> {
  await db
    .update(sessions)
    .set({ revokedAt: new Date(now), revokeReason: reason })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)))
}

/** Returns the ids of the sessions it ended that had not expired yet: their open streams must close (announceRevoked). */
export async function revokeAccountSessions(db: Db | Tx, accountId: string, reason: RevokeReason, now: number): Promise<number[]> {
  const rows = await db
    .update(sessions)
    .set({ revokedAt: new Date(now), revokeReason: reason })
    .where(and(eq(sessions.accountId, accountId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id, expiresAt: sessions.expiresAt })
  return rows.filter((r) => r.expiresAt.getTime() > now).map((r) => r.id)
}
