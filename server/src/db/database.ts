import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import type { ExtractTablesWithRelations } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import postgres from 'postgres'
import { paths } from '../paths.js'
import { type LockOwner, lockDataDir } from './data-dir-lock.js'
import { readPgliteTemplate } from './pglite-template.js'
import { trackPool } from './pool-gauge.js'
import { type PgliteWorkerClient, startPgliteWorker } from './pglite-worker.js'
import * as schema from './schema.js'

export type Schema = typeof schema
/** Either driver's database; code never needs to know which one it got. */
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>

export interface Database {
  db: Db
  kind: 'pglite' | 'postgres'
  /** The embedded client, when kind is 'pglite' (tests dump a migrated template from it). */
  pglite?: Pick<PGlite, 'dumpDataDir' | 'exec'> | PgliteWorkerClient
  /** Applies pending migrations from server/drizzle. */
  migrate(): Promise<void>
  /**
   * PGlite only (it has no autovacuum): VACUUM (reclaims dead rows) with `full: true`, and ANALYZE
   * (the planner's statistics: a count in a topic of 10,000 messages takes 31 ms without, 2 ms with).
   */
  maintain?(options?: { vacuum?: boolean }): Promise<void>
  close(): Promise<void>
}

export type DatabaseOptions =
  | {
      /** PostgreSQL through postgres-js. */
      url: string
      /** Puts every table (and the migrations journal) in this schema; used by the test run. */
      schema?: string
      maxConnections?: number
    }
  | {
      /** Embedded PGlite in `${dataDir}/pglite`; omit for an in-memory database. */
      dataDir?: string
      owner?: LockOwner
      /** A dump (PGlite.dumpDataDir) to start from instead of an empty cluster. */
      loadDataDir?: Blob
      /**
       * Run PGlite in a worker thread (default), so that its queries do not stop the event loop
       * (db/pglite-worker.ts); false keeps it on this thread.
       */
      worker?: boolean
    }

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if ('url' in options) return openPostgres(options.url, options.schema, options.maxConnections)
  return openPglite(options.dataDir, options.owner ?? 'server', options.loadDataDir, options.worker ?? true)
}

async function openPostgres(url: string, searchPath: string | undefined, max = 10): Promise<Database> {
  const client = postgres(url, {
    max,
    // Migrations raise NOTICEs ("schema already exists"); they are not worth a log line.
    onnotice: () => {},
    ...(searchPath ? { connection: { search_path: searchPath } } : {})
  })
  const db = drizzlePostgres({ client, schema })
  const untrack = trackPool(max)
  return {
    db,
    kind: 'postgres',
    migrate: () =>
      migratePostgres(db, {
        migrationsFolder: paths.migrations,
        ...(searchPath ? { migrationsSchema: searchPath } : {})
      }),
    close: async () => {
      untrack()
      await client.end({ timeout: 5 })
    }
  }
}

/**
 * Postgres' own buffer cache inside PGlite's WASM memory. Its default (128 MB) is sized for a
 * database server with RAM of its own; embedded, the pages it would hold are in the OS page cache
 * anyway (PGlite reads its files through Node), and every buffer touched stays resident for the
 * life of the process: 128 MB made an idle server 120 MB larger than 16 MB does (docs/benchmarks.md).
 */
export const PGLITE_SHARED_BUFFERS = '16MB'
export const pgliteStartParams = (): string[] => [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`]

async function openPglite(dataDir: string | undefined, owner: LockOwner, loadDataDir: Blob | undefined, inWorker: boolean): Promise<Database> {
  let lock: { release(): void } | undefined
  let options: { dataDir?: string; loadDataDir?: Blob; startParams: string[] } = { startParams: pgliteStartParams(), ...(loadDataDir ? { loadDataDir } : {}) }
  if (dataDir) {
    lock = lockDataDir(dataDir, owner)
    const dir = join(dataDir, 'pglite')
    mkdirSync(dir, { recursive: true })
    const template = existsSync(join(dir, 'PG_VERSION')) ? undefined : readPgliteTemplate()
    options = { startParams: options.startParams, dataDir: dir, ...(template ? { loadDataDir: template } : {}) }
  }
  let client: PGlite | PgliteWorkerClient | undefined
  try {
    if (inWorker && options.dataDir && options.loadDataDir) {
      // A new data directory is unpacked by a worker of its own, which then ends: unpacking leaves
      // about 90 MB of garbage that an idle worker would keep for as long as it runs (its heap is
      // not collected while nothing allocates), and ending the thread frees all of it at once.
      const unpacker = startPgliteWorker(options)
      try {
        await unpacker.waitReady
      } finally {
        await unpacker.close()
      }
      options = { startParams: options.startParams, dataDir: options.dataDir }
    }
    client = inWorker ? startPgliteWorker(options) : new PGlite(options)
    await client.waitReady
  } catch (error) {
    await client?.close().catch(() => {})
    lock?.release()
    throw error
  }
  // The worker's proxy has the part of PGlite's interface the driver uses (db/pglite-worker.ts).
  const db = drizzlePglite({ client: client as PGlite, schema })
  const untrack = trackPool(1)
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(db, { migrationsFolder: paths.migrations }),
    async maintain({ vacuum = true } = {}) {
      await client.exec(vacuum ? 'VACUUM ANALYZE' : 'ANALYZE')
    },
    async close() {
      untrack()
      try {
        await client.close()
      } finally {
        lock?.release()
      }
    },
    pglite: client
  }
}
