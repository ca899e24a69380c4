import { PgPreparedQuery } from 'drizzle-orm/pg-core'

/**
 * How busy the databases of this process are, for /metrics (lingxi_db_*; metrics/registry.ts).
 * postgres.js exposes no pool statistics, so every query drizzle runs (both drivers, transactions
 * included) is counted where they all pass: PgPreparedQuery.queryWithCache. A query waiting for a
 * free connection counts as in flight: in flight above the pool's size means queries queue.
 * Per query: two increments and one histogram observation, no labels.
 */
export const dbPool = {
  /** The connections the open databases may use (postgres.js `max`; PGlite: 1). */
  max: 0,
  inFlight: 0,
  /** Set by the metrics registry: the query's duration in seconds. */
  observe: undefined as ((seconds: number) => void) | undefined
}

type Run = (queryString: string, params: unknown[], query: () => Promise<unknown>) => Promise<unknown>

let installed = false
function install(): void {
  if (installed) return
  installed = true
  const proto = PgPreparedQuery.prototype as unknown as { queryWithCache: Run }
  const original = proto.queryWithCache
  proto.queryWithCache = async function (this: unknown, queryString, params, query) {
    dbPool.inFlight++
    const start = performance.now()
    try {
      return await original.call(this, queryString, params, query)
    } finally {
      dbPool.inFlight--
      dbPool.observe?.((performance.now() - start) / 1000)
    }
  }
}

/** Counts a database of `max` connections from now on; the answer forgets it (on close). */
export function trackPool(max: number): () => void {
  install()
  dbPool.max += max
  let open = true
  return () => {
    if (open) dbPool.max -= max
    open = false
  }
}
