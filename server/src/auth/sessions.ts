import { and, eq, isNull } from 'drizzle-orm'
import type { Db, Tx } from '../db/database.js'
import { type Account, accounts, sessions } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { newToken, sha256Hex, TOKEN_TTL_MS } from './tokens.js'

export type Platform = 'PC' | 'H5'
export type RevokeReason = 'logout' | 'phone-change' | 'admin'

export interface AuthInfo {
  sessionId: number
  platform: Platform
  account: Account
  /** Epoch ms; an open stream ends at its first heartbeat after it (auth/session-streams.ts). */
  expiresAt: number
}

export async function createSession(db: Db | Tx, accountId: string, platform: Platform, now: number): Promise<string> {
  const token = newToken()
  await db.insert(sessions).values({
    tokenHash: sha256Hex(token),
    accountId,
    platform,
    createdAt: new Date(now),
    expiresAt: new Date(now + TOKEN_TTL_MS)
  })
  return token
}

/** Resolves `Authorization: Bearer <token>` to its session and account; writes nothing. */
export async function authenticate(db: Db, authorization: string | undefined, now: number): Promise<AuthInfo> {
  const match = /^Bearer(?:\s+(.*))?$/i.exec(authorization?.trim() ?? '')
  const token = match?.[1]?.trim()
  if (!token) throw new ApiError(50011004, '请先登录')
  // Hashing first makes the lookup time independent of how much of a guessed token is right.
  const [row] = await db
    .select({ session: sessions, account: accounts })
    .from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.accountId))
    .where(eq(sessions.tokenHash, sha256Hex(token)))
    .limit(1)
  if (!row) throw new ApiError(50011005, '登录已过期，请重新登录')
  if (row.session.revokedAt) throw new ApiError(50011006, '登录状态已失效，请重新登录')
  if (row.session.expiresAt.getTime() <= now) throw new ApiError(50011005, '登录已过期，请重新登录')
  return {
    sessionId: row.session.id,
    platform: row.session.platform as Platform,
    account: row.account,
    expiresAt: row.session.expiresAt.getTime()
  }
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
