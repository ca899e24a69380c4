import { and, eq, inArray } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { chatMessages } from '../db/schema.js'
import type { Logger } from '../logger.js'

/**
 * The lease of the replies this node generates: a running reply's row is touched every leaseMs / 3,
 * so that other nodes' sweeps leave it alone (runtime.ts, sweep's staleMs). One timer renews every
 * running reply, in one write per tick (per thousand replies), not a timer and a write per reply:
 * 5,000 streams made 1,000 writes a second. `lease(replyId)` returns the function that ends it.
 */
export function createLeases(options: { db: Db; logger: Logger; now: () => number; leaseMs: number }): (replyId: string) => () => void {
  const { db, logger, now, leaseMs } = options
  const leased = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  const renew = async () => {
    const ids = [...leased]
    const at = new Date(now())
    for (let i = 0; i < ids.length; i += 1000) {
      await db
        .update(chatMessages)
        .set({ updatedAt: at })
        .where(and(inArray(chatMessages.id, ids.slice(i, i + 1000)), eq(chatMessages.status, 'streaming')))
        .catch((error: unknown) => logger.error('renewing reply leases failed', { error, replies: ids.length }))
    }
  }
  return (replyId) => {
    leased.add(replyId)
    if (!timer) {
      timer = setInterval(() => void renew(), Math.max(50, Math.floor(leaseMs / 3)))
      timer.unref()
    }
    return () => {
      leased.delete(replyId)
      if (leased.size === 0 && timer) {
        clearInterval(timer)
        timer = undefined
      }
    }
  }
}
