import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../src/db/database.js'
import { isUniqueViolation } from '../src/db/errors.js'
import { scheduleMaintenance } from '../src/db/maintenance.js'
import { type PgliteWorkerClient, startPgliteWorker } from '../src/db/pglite-worker.js'
import { memoryLogger } from './helpers/harness.js'

// PGlite in its worker thread (db/pglite-worker.ts), through drizzle as the server uses it.
let database: Database
beforeAll(async () => {
  database = await openDatabase({})
  await database.db.execute(sql.raw("create table t (id int primary key, at timestamptz not null default now(), tags text[] not null default '{}')"))
})
afterAll(async () => {
  await database.close()
})

const rows = async <T>(query: string) => ((await database.db.execute(sql.raw(query))) as unknown as { rows: T[] }).rows
const ids = async () => (await rows<{ id: number }>('select id from t order by id')).map((r) => r.id)

describe('PGlite in a worker thread', () => {
  it('answers queries with the types drizzle expects, and commits or rolls back transactions', async () => {
    await database.db.execute(sql`insert into t (id, tags) values (${1}, ${'{a,b}'})`)
    const [row] = await rows<{ id: number; at: string; tags: string[] }>('select id, at, tags from t')
    expect(row?.id).toBe(1)
    // Dates stay text for drizzle's own mapping (its parsers), arrays are arrays.
    expect(typeof row?.at).toBe('string')
    expect(row?.tags).toEqual(['a', 'b'])

    await database.db.transaction(async (tx) => {
      await tx.execute(sql.raw('insert into t (id) values (2)'))
    })
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql.raw('insert into t (id) values (3)'))
        throw new Error('changed my mind')
      })
    ).rejects.toThrow('changed my mind')
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql.raw('insert into t (id) values (4)'))
        tx.rollback()
      })
    ).rejects.toThrow()
    expect(await ids()).toEqual([1, 2])
  })

  it('keeps SQLSTATE codes on errors, and a query outside a transaction waits for it', async () => {
    const error = await database.db.execute(sql.raw('insert into t (id) values (1)')).catch((e: unknown) => e)
    expect(isUniqueViolation(error)).toBe(true)

    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const tx = database.db.transaction(async (t) => {
      await t.execute(sql.raw('insert into t (id) values (10)'))
      await held
    })
    await new Promise((r) => setTimeout(r, 50))
    const outside = ids()
    let seen: number[] | undefined
    void outside.then((v) => (seen = v))
    await new Promise((r) => setTimeout(r, 50))
    expect(seen).toBeUndefined()
    release()
    await tx
    expect(await outside).toEqual([1, 2, 10])
  })

  it('runs the statements of concurrent transactions inside their own, one transaction at a time', async () => {
    const before = await ids()
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, k) =>
        database.db.transaction(async (tx) => {
          const first = tx.execute(sql.raw(`insert into t (id) values (${100 + k})`))
          const seen = tx.execute(sql.raw(`select count(*)::int as n from t where id between 100 and 199`))
          await first
          const { rows: counted } = (await seen) as unknown as { rows: { n: number }[] }
          await tx.execute(sql.raw(`insert into t (id) values (${200 + k})`))
          if (k % 5 === 4) throw new Error(`transaction ${k} changed its mind`)
          return counted[0]!.n
        })
      )
    )
    // Each saw its own row and the rows of those committed before it: never a row of one still open.
    const committed = results.flatMap((r, k) => (r.status === 'fulfilled' ? [{ k, n: r.value }] : []))
    expect(committed).toHaveLength(16)
    expect(new Set(committed.map((c) => c.n)).size).toBe(16)
    for (const [k, r] of results.entries()) if (r.status === 'rejected') expect(String(r.reason)).toContain(`transaction ${k} changed its mind`)
    const kept = Array.from({ length: 20 }, (_, k) => k).filter((k) => k % 5 !== 4)
    expect(await ids()).toEqual([...before, ...kept.map((k) => 100 + k), ...kept.map((k) => 200 + k)].sort((a, b) => a - b))
  })

  it('runs a long query without stopping this thread', async () => {
    let ticks = 0
    const timer = setInterval(() => ticks++, 5)
    const started = Date.now()
    await database.db.execute(sql.raw('select count(*) from generate_series(1, 3000000)'))
    const ms = Date.now() - started
    clearInterval(timer)
    // On the main thread the timer could not fire at all while the query ran.
    expect(ms).toBeGreaterThan(50)
    expect(ticks).toBeGreaterThan(ms / 5 / 4)
  })

  it('is vacuumed and analysed: at start, then on a schedule', async () => {
    const logger = memoryLogger()
    const maintenance = scheduleMaintenance(database, logger, 100, 0)
    await new Promise((r) => setTimeout(r, 250))
    maintenance.stop()
    await maintenance.running()
    const lines = logger.entries.map((e) => e.message)
    expect(lines[0]).toBe('embedded database analysed')
    expect(lines).toContain('embedded database vacuumed and analysed')
    expect(logger.entries.filter((e) => e.level === 'error')).toEqual([])
  })

  it('keeps a small buffer cache, on a new data directory (unpacked by a worker of its own) and on one it made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lingxi-pglite-'))
    const sharedBuffers = async (d: Database) =>
      ((await d.db.execute(sql.raw('show shared_buffers'))) as unknown as { rows: { shared_buffers: string }[] }).rows[0]?.shared_buffers
    try {
      const first = await openDatabase({ dataDir: dir })
      // Postgres' default is 128MB, all of it resident in PGlite's memory once touched.
      expect(await sharedBuffers(first)).toBe('16MB')
      await first.db.execute(sql.raw('create table kept (id int)'))
      await first.db.execute(sql.raw('insert into kept values (7)'))
      await first.close()
      const again = await openDatabase({ dataDir: dir })
      expect(await sharedBuffers(again)).toBe('16MB')
      expect(((await again.db.execute(sql.raw('select id from kept'))) as unknown as { rows: { id: number }[] }).rows).toEqual([{ id: 7 }])
      await again.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('the worker parses each query once (named statements)', () => {
  // A worker of its own that keeps at most 3 parsed statements, so that the test sees them evicted.
  let client: PgliteWorkerClient
  beforeAll(async () => {
    client = startPgliteWorker({ statementsMax: 3 })
    await client.waitReady
    await client.exec('create table s (id int primary key, name text, meta jsonb, at timestamptz)')
  })
  afterAll(async () => {
    await client.close()
  })

  it('answers repeated, evicted and re-parsed queries with the same rows, parameters of every kind included', async () => {
    const insert = 'insert into s (id, name, meta, at) values ($1, $2, $3, $4)'
    await client.query(insert, [1, 'one', JSON.stringify({ a: 1 }), '2026-11-29T10:00:00Z'])
    await client.query(insert, [2, null, null, null])
    // Five texts through a cache of three: each is parsed again after its eviction.
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < 5; k++) {
        const { rows } = await client.query<{ id: number; n: number }>(`select id, ${k} as n from s where id = $1`, [1 + (k % 2)])
        expect(rows).toEqual([{ id: 1 + (k % 2), n: k }])
      }
    }
    const { rows } = await client.query<unknown[]>('select id, name, meta, at from s order by id', [], { rowMode: 'array' })
    // Timestamps stay text (drizzle maps them), JSON is parsed, nulls stay null.
    expect(rows).toEqual([
      [1, 'one', { a: 1 }, expect.stringMatching(/^2026-11-29 10:00:00/)],
      [2, null, null, null]
    ])
    const updated = await client.query('update s set name = $1 where id > $2', ['x', 0])
    expect(updated.affectedRows).toBe(2)
  })

  it('after a table changes shape, a query parsed before answers with the new shape', async () => {
    const read = 'select * from s where id = $1'
    expect(Object.keys((await client.query<Record<string, unknown>>(read, [1])).rows[0] ?? {})).toEqual(['id', 'name', 'meta', 'at'])
    // Through exec (as migrations run), and through a query inside a transaction.
    await client.exec('alter table s add column extra int not null default 7')
    expect((await client.query<Record<string, unknown>>(read, [1])).rows[0]?.extra).toBe(7)
    await client.transaction(async (tx) => {
      await tx.query('alter table s add column more text')
    })
    expect(Object.keys((await client.query<Record<string, unknown>>(read, [1])).rows[0] ?? {})).toEqual(['id', 'name', 'meta', 'at', 'extra', 'more'])
  })

  it('refuses bad SQL and broken constraints as PGlite does, and a failed statement fails its transaction only', async () => {
    const syntax = await client.query('selec 1').catch((e: unknown) => e)
    expect((syntax as { code?: string }).code).toBe('42601')
    const duplicate = await client.query('insert into s (id) values ($1)', [1]).catch((e: unknown) => e)
    expect(isUniqueViolation(duplicate)).toBe(true)
    const aborted = await client
      .transaction(async (tx) => {
        await tx.query('insert into s (id) values ($1)', [50])
        await tx.query('insert into s (id) values ($1)', [1]).catch(() => {})
        // The transaction is aborted now: its next statement is refused, as Postgres does.
        await tx.query('select 1')
      })
      .catch((e: unknown) => e)
    expect((aborted as { code?: string }).code).toBe('25P02')
    expect((await client.query<{ n: number }>('select count(*)::int as n from s where id = 50')).rows[0]?.n).toBe(0)
    // And the worker goes on.
    expect((await client.query<{ n: number }>('select count(*)::int as n from s')).rows[0]?.n).toBe(2)
  })
})
