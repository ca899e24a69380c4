import { createHash } from 'node:crypto'
import { lt } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { moderationLog } from '../db/schema.js'
import type { Logger } from '../logger.js'
import type { ModerationKind, ModerationResult } from './types.js'

/** How often a node purges log rows past their retention (on its next write). */
const PURGE_EVERY_MS = 6 * 60 * 60 * 1000
const EXCERPT_CHARS = 200

export interface ModerationLogEntry {
  kind: ModerationKind
  source: string
  accountId?: string | null
  text: string
  result: ModerationResult
  /** SHA-256 (hex) of what was checked, when that is not `text` (an image: `text` then describes it). */
  contentHash?: string
}

export interface ModerationLogWriter {
  write(entry: ModerationLogEntry): Promise<void>
  /** Deletes the rows older than the retention; returns how many. */
  purge(): Promise<number>
}

/**
 * The moderation log: a row per check that did not simply pass. A failed write is logged and does
 * not fail the request (the verdict stands). Rows older than `retentionDays` are purged by the first
 * write after start and then every 6 hours, on every node (a delete by date is idempotent).
 */
export function createModerationLog(deps: { db: Db; logger: Logger; now: () => number; retentionDays: number }): ModerationLogWriter {
  const { db, logger, now } = deps
  let nextPurge = 0
  const purge = async () => {
    const cutoff = new Date(now() - deps.retentionDays * 24 * 60 * 60 * 1000)
    const gone = await db.delete(moderationLog).where(lt(moderationLog.createdAt, cutoff)).returning({ id: moderationLog.id })
    return gone.length
  }
  return {
    purge,
    async write({ kind, source, accountId, text, result, contentHash }) {
      try {
        await db.insert(moderationLog).values({
          kind,
          source,
          accountId: accountId ?? null,
          contentHash: contentHash ?? createHash('sha256').update(text, 'utf8').digest('hex'),
          excerpt: text.slice(0, EXCERPT_CHARS),
          verdict: result.verdict,
          provider: result.provider ?? null,
          rule: result.rule?.slice(0, 200) ?? null,
          failure: result.failed?.slice(0, 300) ?? null,
          createdAt: new Date(now())
        })
        if (now() >= nextPurge) {
          nextPurge = now() + PURGE_EVERY_MS
          const purged = await purge()
          if (purged > 0) logger.info('moderation log purged', { rows: purged, retentionDays: deps.retentionDays })
        }
      } catch (error) {
        logger.error('writing the moderation log failed', { error, kind, source })
      }
    }
  }
}
