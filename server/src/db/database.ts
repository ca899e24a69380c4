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
import * as schema from './schema.js'

export type Schema = typeof schema
/** Either driver's database; code never needs to know which one it got. */
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>

export interface Database {
  db: Db
  kind: 'pglite' | 'postgres'
  /** The embedded client, when kind is 'pglite' (tests dump a migrated template from it). */
  pglite?: PGlite
  /** Applies pending migrations from server/drizzle. */
  migrate(): Promise<void>
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
    }

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if ('url' in options) return openPostgres(options.url, options.schema, options.maxConnections)
  return openPglite(options.dataDir, options.owner ?? 'server', options.loadDataDir)
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

async function openPglite(dataDir: string | undefined, owner: LockOwner, loadDataDir: Blob | undefined): Promise<Database> {
  let lock: { release(): void } | undefined
  let client: PGlite
  if (dataDir) {
    lock = lockDataDir(dataDir, owner)
    const dir = join(dataDir, 'pglite')
    mkdirSync(dir, { recursive: true })
    const template = existsSync(join(dir, 'PG_VERSION')) ? undefined : readPgliteTemplate()
    client = new PGlite({ dataDir: dir, ...(template ? { loadDataDir: template } : {}) })
  } else {
    client = new PGlite(loadDataDir ? { loadDataDir } : {})
  }
  try {
    await client.waitReady
  } catch (error) {
    lock?.release()
    throw error
  }
  const db = drizzlePglite({ client, schema })
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(db, { migrationsFolder: paths.migrations }),
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
