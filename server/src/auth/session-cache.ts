import type { ControlMessage, EventBus } from '../events/bus.js'
import type { AuthCache, AuthInfo } from './sessions.js'

/** How long a session read from the database answers requests without being read again. */
export const SESSION_CACHE_MS = 5_000
/** Sessions kept at most; the one read longest ago goes first. */
export const SESSION_CACHE_MAX = 10_000

/**
 * Recently read sessions by token hash, so that a request does not read its session and account
 * from the database each time (docs/decisions/0017-pglite-worker-and-session-cache.md).
 *
 * What a revocation or an account change made by this server does is seen at once on the node that
 * made it and within the bus's delivery time (milliseconds with Redis) on the others:
 * the node that made it drops its entries before it answers (`forgetSessions`, `forgetAccounts`) and
 * announces it on the bus's control channel (`revoke`, `account`), on which every node drops its
 * own. A change made behind the server's back (the CLI, SQL) or an announcement the bus lost is seen
 * within `ttlMs`. The session's expiry is checked on every hit.
 */
export interface SessionCache extends AuthCache {
  forgetSessions(ids: Iterable<number>): void
  forgetAccounts(ids: Iterable<string>): void
  clear(): void
  size(): number
}

interface Entry {
  auth: AuthInfo
  until: number
}

export function createSessionCache(options: { now: () => number; ttlMs?: number; max?: number; bus?: EventBus }): SessionCache {
  const { now, ttlMs = SESSION_CACHE_MS, max = SESSION_CACHE_MAX } = options
  const entries = new Map<string, Entry>()

  const dropWhere = (test: (auth: AuthInfo) => boolean) => {
    for (const [hash, entry] of entries) if (test(entry.auth)) entries.delete(hash)
  }
  const cache: SessionCache = {
    get(tokenHash) {
      if (ttlMs <= 0) return undefined
      const entry = entries.get(tokenHash)
      if (!entry) return undefined
      const t = now()
      if (t >= entry.until || t >= entry.auth.expiresAt) {
        entries.delete(tokenHash)
        return undefined
      }
      return entry.auth
    },
    set(tokenHash, auth) {
      if (ttlMs <= 0) return
      entries.delete(tokenHash)
      if (entries.size >= max) {
        const oldest = entries.keys().next()
        if (!oldest.done) entries.delete(oldest.value)
      }
      entries.set(tokenHash, { auth, until: now() + ttlMs })
    },
    forgetSessions(ids) {
      const set = new Set(ids)
      if (set.size > 0) dropWhere((auth) => set.has(auth.sessionId))
    },
    forgetAccounts(ids) {
      const set = new Set(ids)
      if (set.size > 0) dropWhere((auth) => set.has(auth.account.id))
    },
    clear: () => entries.clear(),
    size: () => entries.size
  }
  // The subscription lives as long as the bus (closing the bus drops its listeners).
  options.bus?.onControl((message: ControlMessage) => {
    if (message.type === 'revoke' && Array.isArray(message.sessionIds)) cache.forgetSessions(message.sessionIds)
    else if (message.type === 'account' && Array.isArray(message.accountIds)) cache.forgetAccounts(message.accountIds)
  })
  return cache
}

/**
 * Tells every node that these accounts changed (state, permissions, phone, profile): their cached
 * sessions are read again. Call it after the change committed.
 */
export async function announceAccountChanged(bus: EventBus, cache: SessionCache | undefined, accountIds: string[]): Promise<void> {
  if (accountIds.length === 0) return
  cache?.forgetAccounts(accountIds)
  await bus.control({ type: 'account', accountIds })
}
