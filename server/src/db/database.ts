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
  return {
    db,
    kind: 'postgres',
    migrate: () =>
      migratePostgres(db, {
        migrationsFolder: paths.migrations,
        ...(searchPath ? { migrationsSchema: searchPath } : {})
      }),
    close: () => client.end({ timeout: 5 })
  }
}

async function openPglite(dataDir: string | undefined, owner: LockOwner, loadDataDir: Blob | undefined, inWorker: boolean): Promise<Database> {
  let lock: { release(): void } | undefined
  let options: { dataDir?: string; loadDataDir?: Blob } = loadDataDir ? { loadDataDir } : {}
  if (dataDir) {
    lock = lockDataDir(dataDir, owner)
    const dir = join(dataDir, 'pglite')
    mkdirSync(dir, { recursive: true })
    const template = existsSync(join(dir, 'PG_VERSION')) ? undefined : readPgliteTemplate()
    options = { dataDir: dir, ...(template ? { loadDataDir: template } : {}) }
  }
  const client = inWorker ? startPgliteWorker(options) : new PGlite(options)
  try {
    await client.waitReady
  } catch (error) {
    await client.close().catch(() => {})
    lock?.release()
    throw error
  }
  // The worker's proxy has the part of PGlite's interface the driver uses (db/pglite-worker.ts).
  const db = drizzlePglite({ client: client as PGlite, schema })
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(db, { migrationsFolder: paths.migrations }),
    async maintain({ vacuum = true } = {}) {
      await client.exec(vacuum ? 'VACUUM ANALYZE' : 'ANALYZE')
    },
    async close() {
      try {
        await client.close()
      } finally {
        lock?.release()
      }
    },
    pglite: client
  }
}
