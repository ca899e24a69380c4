import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { count, isNull, sql } from 'drizzle-orm'
import postgres from 'postgres'
import { inject } from 'vitest'
import { readRoleSeed, seedRoles } from '../../src/modules/chat/roles.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { chatRoles } from '../../src/db/schema.js'

/** Emptied by truncation before each test (accounts and own roles are deleted row by row, see reset). */
// Tables whose rows belong to no account (deleting accounts below clears the rest by cascade).
export const TABLES = [
  'chat_shares',
  'chat_messages',
  'chat_topics',
  'balance_log',
  'sessions',
  'sms_codes',
  'recharge_log',
  'recharge_cards',
  'hot_cache',
  'moderation_log',
  'upstream_channels',
  'model_prices',
  'moderation_words'
] as const

export interface TestDatabase extends Database {
  /** Empties every table and seeds the public roles: each test starts from a fresh, migrated database. */
  reset(): Promise<void>
  /** Closes the connection and, on PostgreSQL, drops the file's schema. */
  destroy(): Promise<void>
}

/**
 * One database per test file: in-memory PGlite by default; with DATABASE_URL, a schema of
 * its own (lingxi_t_<random>) on that server, so files can run in parallel.
 */
const roleSeed = readRoleSeed()

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
      // The public roles stay (seeding them again costs a few hundred ms per test); accounts and
      // their own roles go. Truncating accounts would cascade to the whole roles table.
      await database.db.execute(sql.raw('delete from chat_roles where account_id is not null'))
      await database.db.execute(sql.raw('delete from accounts'))
      const [row] = await database.db.select({ n: count() }).from(chatRoles).where(isNull(chatRoles.accountId))
      if (row?.n !== roleSeed.roles.length) await seedRoles(database.db, roleSeed)
    },
    async destroy() {
      await database.close()
      await dropSchema()
    }
  }
}
