import { readFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import { PgPreparedQuery } from 'drizzle-orm/pg-core'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { openDatabase } from '../src/db/database.js'
import { dbPool } from '../src/db/pool-gauge.js'
import { useHarness } from './helpers/database-hooks.js'

// The database pool on /metrics (db/pool-gauge.ts): the pool's size, queries in flight and their
// duration, for PostgreSQL and PGlite alike, counted where every drizzle query passes.

const TOKEN = 'metrics-db-3c1d'

function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const row of text.split('\n')) {
    if (!row.startsWith(`${name}{`) && !row.startsWith(`${name} `)) continue
    if (Object.entries(labels).every(([k, v]) => row.includes(`${k}="${v}"`))) return Number(row.slice(row.lastIndexOf(' ') + 1))
  }
  return Number.NaN
}

beforeEach(() => vi.stubEnv('METRICS_TOKEN', TOKEN))
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness()
const scrape = async () => (await ctx.h.app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } })).text()

/** Runs a query through the counted path whose answer the test releases. */
function heldQuery(): { done: Promise<unknown>; release: () => void } {
  let release = () => {}
  const answer = new Promise<void>((resolve) => {
    release = resolve
  })
  const run = (PgPreparedQuery.prototype as unknown as { queryWithCache: (q: string, p: unknown[], f: () => Promise<unknown>) => Promise<unknown> })
    .queryWithCache
  return { done: run.call({}, 'select held', [], () => answer), release }
}

describe('lingxi_db_* on /metrics', () => {
  it('counts and times every query of the database, transactions included', async () => {
    const before = await scrape()
    expect(before).toMatch(/^# TYPE lingxi_db_query_seconds histogram$/m)
    const count = sample(before, 'lingxi_db_query_seconds_count')
    await ctx.db.db.execute(sql`select 1`)
    await ctx.db.db.transaction(async (tx) => {
      await tx.execute(sql`select 2`)
      await tx.execute(sql`select 3`)
    })
    const after = await scrape()
    expect(sample(after, 'lingxi_db_query_seconds_count') - count).toBeGreaterThanOrEqual(3)
    expect(sample(after, 'lingxi_db_pool_max')).toBe(dbPool.max)
    expect(dbPool.max).toBeGreaterThanOrEqual(1)
  })

  it('shows a query in flight until it answers, and how long it took', async () => {
    const idle = sample(await scrape(), 'lingxi_db_queries_in_flight')
    const slowBefore = sample(await scrape(), 'lingxi_db_query_seconds_count') - sample(await scrape(), 'lingxi_db_query_seconds_bucket', { le: '0.05' })
    const held = heldQuery()
    expect(sample(await scrape(), 'lingxi_db_queries_in_flight')).toBe(idle + 1)
    await new Promise((resolve) => setTimeout(resolve, 80))
    held.release()
    await held.done
    const text = await scrape()
    expect(sample(text, 'lingxi_db_queries_in_flight')).toBe(idle)
    // The held query took more than 50 ms: one more observation above that bucket.
    const slowAfter = sample(text, 'lingxi_db_query_seconds_count') - sample(text, 'lingxi_db_query_seconds_bucket', { le: '0.05' })
    expect(slowAfter - slowBefore).toBeGreaterThanOrEqual(1)
  })

  it('a failed query leaves the in-flight count as it was', async () => {
    const idle = dbPool.inFlight
    await expect(ctx.db.db.execute(sql`select * from no_such_table`)).rejects.toThrow()
    expect(dbPool.inFlight).toBe(idle)
  })

  it('adds an opened database to the pool size (PGlite: 1) and takes it away when closed', async () => {
    const size = sample(await scrape(), 'lingxi_db_pool_max')
    const extra = await openDatabase({ worker: false })
    try {
      expect(sample(await scrape(), 'lingxi_db_pool_max')).toBe(size + 1)
    } finally {
      await extra.close()
    }
    expect(sample(await scrape(), 'lingxi_db_pool_max')).toBe(size)
  }, 60_000)

  it('every lingxi_db_* series is charted on the Grafana dashboard and listed in docs/deployment.md', async () => {
    const names = [...(await scrape()).matchAll(/^# TYPE (lingxi_db_[a-z0-9_]+) /gm)].map((m) => m[1]!)
    expect(names.sort()).toEqual(['lingxi_db_pool_max', 'lingxi_db_queries_in_flight', 'lingxi_db_query_seconds'])
    const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
    const dashboard = JSON.parse(read('deploy/grafana/lingxi.json')) as { panels: { targets: { expr: string }[] }[] }
    const plotted = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n')
    const metricsSection = read('docs/deployment.md').split('### Metrics')[1]!.split('\n### ')[0]!
    for (const name of names) {
      expect(plotted, name).toMatch(new RegExp(`\\b${name}(_bucket|_count|_sum)?\\b`))
      expect(metricsSection, name).toContain(`| \`${name}\` |`)
    }
  })
})
