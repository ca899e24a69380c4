/**
 * Migration 0004 on a database from before it: accounts with balances in their old columns, a reply
 * still holding tokens, recharge cards and a redemption. Migrated to 0003, filled the old way, then
 * migrated to the end: every balance is in the ledger (what was held as held), every card's amounts
 * in its grants, the old columns gone, and the ledger works on the result. PGlite by default, a
 * schema of its own on PostgreSQL with DATABASE_URL.
 */
import { randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { eq, sql } from 'drizzle-orm'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grant, release, spend } from '../src/allowances/ledger.js'
import type { Db } from '../src/db/database.js'
import * as schema from '../src/db/schema.js'
import { allowances, balanceLog, rechargeCards, rechargeLog } from '../src/db/schema.js'
import { paths } from '../src/paths.js'
import { ALLOWANCES } from './helpers/allowances.js'

const BEFORE = '0003_reply_holds'

let db: Db
let migrateFrom: (folder: string) => Promise<void>
let close: () => Promise<void>
let before: string

/** The migrations folder as it was up to and including `tag`. */
function migrationsUpTo(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lingxi-migrations-'))
  cpSync(paths.migrations, dir, { recursive: true })
  const journalFile = join(dir, 'meta', '_journal.json')
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] }
  const keep = journal.entries.findIndex((e) => e.tag === tag)
  if (keep < 0) throw new Error(`no migration ${tag}`)
  journal.entries = journal.entries.slice(0, keep + 1)
  writeFileSync(journalFile, JSON.stringify(journal))
  return dir
}

beforeAll(async () => {
  before = migrationsUpTo(BEFORE)
  const url = process.env.DATABASE_URL
  if (url) {
    const name = `lingxi_m_${randomBytes(6).toString('hex')}`
    const admin = postgres(url, { max: 1, onnotice: () => {} })
    await admin.unsafe(`create schema "${name}"`)
    const client = postgres(url, { max: 2, onnotice: () => {}, connection: { search_path: name } })
    const pg = drizzlePostgres({ client, schema })
    db = pg as unknown as Db
    migrateFrom = (folder) => migratePostgres(pg, { migrationsFolder: folder, migrationsSchema: name })
    close = async () => {
      await client.end()
      await admin.unsafe(`drop schema "${name}" cascade`)
      await admin.end()
    }
  } else {
    const client = new PGlite()
    const lite = drizzlePglite({ client, schema })
    db = lite as unknown as Db
    migrateFrom = (folder) => migratePglite(lite, { migrationsFolder: folder })
    close = () => client.close()
  }
}, 60_000)

afterAll(async () => {
  await close?.()
  if (before) rmSync(before, { recursive: true, force: true })
})

const at = '2026-01-02T03:04:05Z'

describe(`migration 0004 (allowances) on a database at ${BEFORE}`, () => {
  it('moves every balance, hold and card amount into the ledger and grants, then drops the old columns', { timeout: 60_000 }, async () => {
    await migrateFrom(before)
    // Two accounts the old way: balances in columns, their log lines, a reply holding 700 tokens
    // (already taken from accounts.tokens, as holds were), a card, a redeemed card.
    const old = `
      insert into accounts (id, en_code, phone, nick_name, tokens, mj_count, suno_count, created_at, updated_at) values
        ('acc-a', '86', '13800138000', 'A', 4300, 3, 0, '${at}', '${at}'),
        ('acc-b', '86', '13900139000', 'B', 0, 0, 12, '${at}', '${at}');
      insert into balance_log (account_id, kind, amount, balance, reason, created_at) values
        ('acc-a', 'tokens', 5000, 5000, '新用户赠送', '${at}'),
        ('acc-a', 'mj', 3, 3, '新用户赠送', '${at}'),
        ('acc-b', 'suno', 10, 10, '新用户赠送', '${at}'),
        ('acc-b', 'suno', 2, 12, '充值卡 AAAA-****-****-BBBB', '${at}');
      insert into chat_topics (id, account_id, name, model, temperature, created_at, updated_at) values
        ('topic-a', 'acc-a', '话题', 'demo', 0.7, '${at}', '${at}');
      insert into chat_messages (id, account_id, topic_id, role, status, held, created_at, updated_at) values
        ('reply-a', 'acc-a', 'topic-a', 'assistant', 'streaming', 700, '${at}', '${at}'),
        ('reply-old', 'acc-a', 'topic-a', 'assistant', 'complete', 0, '${at}', '${at}');
      insert into recharge_cards (id, code_hash, code_mask, tokens, mj_count, suno_count, created_at) values
        ('card-new', 'hash-new', 'CCCC-****-****-DDDD', 5000, 0, 2, '${at}'),
        ('card-used', 'hash-used', 'AAAA-****-****-BBBB', 0, 0, 2, '${at}');
      update recharge_cards set redeemed_at = '${at}', redeemed_by = 'acc-b' where id = 'card-used';
      insert into recharge_log (account_id, card_id, code_mask, tokens, mj_count, suno_count, created_at) values
        ('acc-b', 'card-used', 'AAAA-****-****-BBBB', 0, 0, 2, '${at}')`
    for (const statement of old.split(';')) await db.execute(sql.raw(statement))

    await migrateFrom(paths.migrations)

    const rows = await db.select().from(allowances).orderBy(allowances.accountId, allowances.kind)
    expect(rows).toEqual([
      { accountId: 'acc-a', kind: 'mj', balance: 3, held: 0 },
      { accountId: 'acc-a', kind: 'suno', balance: 0, held: 0 },
      { accountId: 'acc-a', kind: 'tokens', balance: 4300, held: 700 },
      { accountId: 'acc-b', kind: 'mj', balance: 0, held: 0 },
      { accountId: 'acc-b', kind: 'suno', balance: 12, held: 0 },
      { accountId: 'acc-b', kind: 'tokens', balance: 0, held: 0 }
    ])
    expect(await ALLOWANCES.balances(db, 'acc-a')).toEqual({ tokens: 4300, mjCount: 3, sunoCount: 0 })
    expect(await ALLOWANCES.balances(db, 'acc-b')).toEqual({ tokens: 0, mjCount: 0, sunoCount: 12 })
    const cards = await db.select({ id: rechargeCards.id, grants: rechargeCards.grants }).from(rechargeCards).orderBy(rechargeCards.id)
    expect(cards).toEqual([
      { id: 'card-new', grants: { tokens: 5000, suno: 2 } },
      { id: 'card-used', grants: { suno: 2 } }
    ])
    const [redeemed] = await db.select().from(rechargeLog)
    expect(redeemed?.grants).toEqual({ suno: 2 })
    expect(ALLOWANCES.fields(redeemed!.grants)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 2 })

    const columns: unknown = await db.execute(sql`
      select table_name, column_name from information_schema.columns
      where table_schema = current_schema() and table_name in ('accounts', 'recharge_cards', 'recharge_log')
        and column_name in ('tokens', 'mj_count', 'suno_count')`)
    // PGlite answers {rows}, postgres-js the rows themselves.
    const found = typeof columns === 'object' && columns !== null && 'rows' in columns ? columns.rows : columns
    expect(found).toEqual([])

    // The ledger carries on from the moved balances: the old log chains into the new lines.
    const now = new Date(at)
    await db.transaction(async (tx) => {
      await release(tx, 'acc-a', 'tokens', 700)
      await spend(tx, 'acc-a', { id: 'mj', exhausted: '绘画次数不足，请充值后再试' }, 1, '绘画：文生图', now)
      await grant(tx, 'acc-b', 'tokens', 100, '充值卡 CCCC-****-****-DDDD', now)
    })
    expect(await ALLOWANCES.balances(db, 'acc-a')).toEqual({ tokens: 5000, mjCount: 2, sunoCount: 0 })
    const log = await db.select().from(balanceLog).where(eq(balanceLog.accountId, 'acc-a')).orderBy(balanceLog.id)
    expect(log.map((l) => [l.kind, l.amount, l.balance])).toEqual([
      ['tokens', 5000, 5000],
      ['mj', 3, 3],
      ['mj', -1, 2]
    ])

    // The checks hold in the new shape: no balance below zero, no card granting nonsense; any kind
    // the registry names may be logged.
    await expect(db.execute(sql`update allowances set balance = -1 where account_id = 'acc-b' and kind = 'suno'`)).rejects.toThrow()
    await expect(db.execute(sql`update allowances set held = -1 where account_id = 'acc-b' and kind = 'suno'`)).rejects.toThrow()
    for (const bad of ['{"tokens": -1}', '{"tokens": 1.5}', '{"tokens": "5"}', '[1]']) {
      await expect(db.execute(sql`update recharge_cards set grants = ${bad}::jsonb where id = 'card-new'`), bad).rejects.toThrow()
    }
    await db.execute(sql`insert into balance_log (account_id, kind, amount, balance, reason, created_at) values ('acc-b', 'echo', 1, 1, '新种类', now())`)
  })
})
