import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import type { Db, Tx } from '../db/database.js'
import { accounts, type BalanceKind, balanceLog } from '../db/schema.js'
import type { Phone } from './phone.js'

export interface NewAccountDefaults {
  start: { tokens: number; mjCount: number; sunoCount: number }
  defaultPermissions: string[]
}

export const START_GRANT_REASON = '新用户赠送'

/**
 * The account of a phone, created on first login with the starting allowance. The unique
 * (en_code, phone) index with ON CONFLICT DO NOTHING makes concurrent first logins agree on
 * one account; the grant's balance log rows are written in the same transaction.
 */
export async function findOrCreateAccount(tx: Tx, phone: Phone, defaults: NewAccountDefaults, now: number): Promise<string> {
  const at = new Date(now)
  const { tokens, mjCount, sunoCount } = defaults.start
  const [created] = await tx
    .insert(accounts)
    .values({
      id: randomUUID(),
      enCode: phone.enCode,
      phone: phone.phone,
      nickName: `灵犀用户${phone.phone.slice(-4)}`,
      avatarUrl: '',
      state: 1,
      tokens,
      mjCount,
      sunoCount,
      permissionCodes: defaults.defaultPermissions,
      createdAt: at,
      updatedAt: at
    })
    .onConflictDoNothing({ target: [accounts.enCode, accounts.phone] })
    .returning({ id: accounts.id })

  if (created) {
    const grants: [BalanceKind, number][] = [
      ['tokens', tokens],
      ['mj', mjCount],
      ['suno', sunoCount]
    ]
    const rows = grants
      .filter(([, amount]) => amount > 0)
      .map(([kind, amount]) => ({ accountId: created.id, kind, amount, balance: amount, reason: START_GRANT_REASON, createdAt: at }))
    if (rows.length > 0) await tx.insert(balanceLog).values(rows)
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
