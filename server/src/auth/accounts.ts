import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { grant } from '../allowances/ledger.js'
import type { Db, Tx } from '../db/database.js'
import { accounts } from '../db/schema.js'
import type { Phone } from './phone.js'

export interface NewAccountDefaults {
  /** The starting allowance by kind id (config START_TOKENS, START_MJ_COUNT, …). */
  start: Readonly<Record<string, number>>
  defaultPermissions: string[]
}

export const START_GRANT_REASON = '新用户赠送'

/**
 * The account of a phone, created on first login with the starting allowance. The unique
 * (en_code, phone) index with ON CONFLICT DO NOTHING makes concurrent first logins agree on
 * one account; the grants (with their balance log lines) are made in the same transaction.
 */
export async function findOrCreateAccount(tx: Tx, phone: Phone, defaults: NewAccountDefaults, now: number): Promise<string> {
  const at = new Date(now)
  const [created] = await tx
    .insert(accounts)
    .values({
      id: randomUUID(),
      enCode: phone.enCode,
      phone: phone.phone,
      nickName: `灵犀用户${phone.phone.slice(-4)}`,
      avatarUrl: '',
      state: 1,
      permissionCodes: defaults.defaultPermissions,
      createdAt: at,
      updatedAt: at
    })
    .onConflictDoNothing({ target: [accounts.enCode, accounts.phone] })
    .returning({ id: accounts.id })

  if (created) {
    // A new account: nothing else can touch its rows yet, so no lock order to keep.
    for (const [kind, amount] of Object.entries(defaults.start)) if (amount > 0) await grant(tx, created.id, kind, amount, START_GRANT_REASON, at)
    return created.id
  }

  const [existing] = await tx
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.enCode, phone.enCode), eq(accounts.phone, phone.phone)))
  if (!existing) throw new Error('account vanished between insert and select')
  return existing.id
}

export async function findAccountByPhone(db: Db | Tx, phone: Phone): Promise<{ id: string } | undefined> {
  const [row] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.enCode, phone.enCode), eq(accounts.phone, phone.phone)))
  return row
}
