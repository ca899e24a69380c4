import type { Logger } from '../logger.js'
import type { Database } from './database.js'

/** How often the embedded database is vacuumed and analysed while the server runs. */
export const MAINTENANCE_EVERY_MS = 6 * 60 * 60 * 1000
/** The first ANALYZE, this long after start: not while the start itself is busy. */
export const FIRST_ANALYZE_MS = 10_000

/**
 * PGlite has no autovacuum: ANALYZE once shortly after start (after the migrations; quick), then
 * VACUUM ANALYZE on a schedule. It runs in the database's worker thread, between queries; a failure is
 * logged and the next run tries again. PostgreSQL does this itself: nothing is scheduled for it.
 */
export function scheduleMaintenance(
  database: Database,
  logger: Logger,
  everyMs = MAINTENANCE_EVERY_MS,
  firstMs = FIRST_ANALYZE_MS
): { stop(): void; running(): Promise<void> } {
  const maintain = database.maintain?.bind(database)
  if (!maintain) return { stop() {}, running: async () => {} }
  let current: Promise<void> = Promise.resolve()
  const run = (vacuum: boolean) => {
    current = current
      .then(async () => {
        const started = Date.now()
        await maintain({ vacuum })
        logger.info(vacuum ? 'embedded database vacuumed and analysed' : 'embedded database analysed', { ms: Date.now() - started })
      })
      .catch((error: unknown) => logger.error('maintaining the embedded database failed', { error }))
  }
  const first = setTimeout(() => run(false), firstMs)
  const timer = setInterval(() => run(true), everyMs)
  first.unref()
  timer.unref()
  return {
    stop() {
      clearTimeout(first)
      clearInterval(timer)
    },
    running: () => current
  }
}
