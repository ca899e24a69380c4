import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import postgres from 'postgres'
import { inject } from 'vitest'
import { type Database, openDatabase } from '../../src/db/database.js'

export const TABLES = ['balance_log', 'sessions', 'sms_codes', 'accounts'] as const

export interface TestDatabase extends Database {
  /** Empties every table: each test starts from a fresh, migrated database. */
  reset(): Promise<void>
  /** Closes the connection and, on PostgreSQL, drops the file's schema. */
  destroy(): Promise<void>
}

/**
 * One database per test file: in-memory PGlite by default; with DATABASE_URL, a schema of
 * its own (lingxi_t_<random>) on that server, so files can run in parallel.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL
  let database: Database
  let dropSchema = async () => {}
  if (url) {
    const schema = `lingxi_t_${randomBytes(6).toString('hex')}`
    const admin = postgres(url, { max: 1, onnotice: () => {} })
    await admin.unsafe(`create schema "${schema}"`)
    database = await openDatabase({ url, schema, maxConnections: 5 })
    await database.migrate()
    dropSchema = async () => {
      await admin.unsafe(`drop schema "${schema}" cascade`)
      await admin.end()
    }
  } else {
    const dump = readFileSync(inject('pgliteTemplate'))
    database = await openDatabase({ loadDataDir: new Blob([dump]) })
  }
  return {
    ...database,
    async reset() {
      await database.db.execute(sql.raw(`truncate ${TABLES.join(', ')} restart identity cascade`))
    },
    async destroy() {
      await database.close()
      await dropSchema()
    }
  }
}
