import { grant, hold, lock, spend } from '../../src/allowances/ledger.js'
import { createAllowanceRegistry } from '../../src/allowances/registry.js'
import type { Db } from '../../src/db/database.js'
import { MODULES } from '../../src/modules/index.js'

/** The kinds of the default module list. */
export const ALLOWANCES = createAllowanceRegistry(MODULES)

type Kind = 'tokens' | 'mj' | 'suno'
interface Balances {
  tokens: number
  mjCount: number
  sunoCount: number
}

export const ADJUSTED = '测试调整'

/** An account's spendable balances by wire field, as user/info shows them. */
export async function balancesOf(db: Db, accountId: string): Promise<Balances> {
  return (await ALLOWANCES.balances(db, accountId)) as unknown as Balances
}

/**
 * Sets a balance the way an operator would, through the ledger: the difference granted or spent in
 * one transaction, logged as 测试调整 (so the log still chains to the balance).
 */
export async function setBalance(db: Db, accountId: string, kind: Kind, value: number, at = new Date()): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await lock(tx, [accountId], [kind])
    const diff = value - (row?.balance ?? 0)
    if (diff > 0) await grant(tx, accountId, kind, diff, ADJUSTED, at)
    if (diff < 0) await spend(tx, accountId, { id: kind, exhausted: ADJUSTED }, -diff, ADJUSTED, at)
  })
}

/** Takes `amount` tokens into held, as a reply does when it starts (tests then insert the reply row). */
export async function holdTokens(db: Db, accountId: string, amount: number): Promise<void> {
  await db.transaction((tx) => hold(tx, accountId, { id: 'tokens', exhausted: '' }, amount))
}
