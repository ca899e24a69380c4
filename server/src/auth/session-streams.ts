import { and, inArray, isNotNull } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { sessions } from '../db/schema.js'
import type { ControlMessage, EventBus } from '../events/bus.js'
import type { Logger } from '../logger.js'
import type { AuthInfo } from './sessions.js'

/** How often a node asks the database whether the sessions of its open streams were revoked. */
export const REVOKED_CHECK_MS = 60_000
/** Ids per query of that check. */
const CHECK_BATCH = 500

/**
 * The open event streams of this node by the session that opened them, so that revoking a session
 * (logout, phone change) closes them on every node: the revoking node publishes
 * `{type: 'revoke', sessionIds}` on the bus's control channel once the revocation committed, and
 * every node closes its matching streams. Nothing is checked per event.
 *
 * No gap is left to a stream opened while its session is being revoked: it registers first and
 * then reads its session once more. A revocation committed before that read is seen by it; one
 * committed after it is announced after it, when the stream is already registered. A message
 * the bus loses (Redis reconnecting) is caught by a batched check every `checkMs` while streams
 * are open.
 */
export interface SessionStreams {
  /** Registers an open stream; `close` ends it. Returns the function that unregisters it. */
  add(auth: AuthInfo, close: () => void): () => void
  /** Whether the session's 365 days are over (a stream checks at each heartbeat: no query). */
  expired(auth: AuthInfo): boolean
  /** Open streams registered here (tests). */
  size(): number
}

export function createSessionStreams(options: { bus: EventBus; db: Db; now: () => number; logger: Logger; checkMs?: number }): SessionStreams {
  const { bus, db, now, logger, checkMs = REVOKED_CHECK_MS } = options
  const bySession = new Map<number, Set<() => void>>()
  let count = 0
  let timer: NodeJS.Timeout | undefined

  const closeSessions = (ids: Iterable<number>) => {
    for (const id of ids) {
      const closers = bySession.get(id)
      if (!closers) continue
      // Each close unregisters its stream from the set, hence the copy.
      for (const close of [...closers]) close()
    }
  }

  /** Closes the streams of those sessions (of `ids`) that the database says are revoked. */
  const closeRevoked = async (ids: number[]) => {
    for (let i = 0; i < ids.length; i += CHECK_BATCH) {
      const rows = await db
        .select({ id: sessions.id })
        .from(sessions)
        .where(and(inArray(sessions.id, ids.slice(i, i + CHECK_BATCH)), isNotNull(sessions.revokedAt)))
      closeSessions(rows.map((r) => r.id))
    }
  }
  const check = (ids: number[]) => closeRevoked(ids).catch((error: unknown) => logger.error('checking the sessions of open streams failed', { error }))

  // The subscription lives as long as the bus (closing the bus drops its listeners).
  bus.onControl((message: ControlMessage) => {
    if (message.type === 'revoke' && Array.isArray(message.sessionIds)) closeSessions(message.sessionIds)
  })

  return {
    add(auth, close) {
      let closers = bySession.get(auth.sessionId)
      if (!closers) {
        closers = new Set()
        bySession.set(auth.sessionId, closers)
      }
      // A closer of its own: the same function registered twice must count twice.
      const entry = () => close()
      closers.add(entry)
      count++
      timer ??= setInterval(() => void check([...bySession.keys()]), checkMs).unref()
      void check([auth.sessionId])
      let removed = false
      return () => {
        if (removed) return
        removed = true
        count--
        const current = bySession.get(auth.sessionId)
        current?.delete(entry)
        if (current?.size === 0) bySession.delete(auth.sessionId)
        if (count === 0) {
          clearInterval(timer)
          timer = undefined
        }
      }
    },
    expired: (auth) => now() >= auth.expiresAt,
    size: () => count
  }
}

/**
 * Tells every node (this one included) to close the streams of these sessions. Call it after the
 * revocation committed; a node that misses the message closes them at its next periodic check.
 */
export async function announceRevoked(bus: EventBus, sessionIds: number[]): Promise<void> {
  if (sessionIds.length === 0) return
  await bus.control({ type: 'revoke', sessionIds })
}
