/**
 * The one way a balance changes. Every function runs in the caller's transaction, so the change
 * commits or rolls back with the work it pays for, and every change that moves allowance to or
 * from the account writes its balance-log line with the balance after it.
 *
 * The log's balance counts what is held (allowances.held: chat replies still running) as the
 * account's own, so each kind's log chains — every line is the previous line's balance plus its
 * amount — however many holds are open. Holding and releasing write no line; settling writes the
 * charge.
 *
 * Locks: a call that changes one kind locks that one row (the conditional UPDATE is the check, so
 * two requests racing for the last use cannot both pass). A transaction that changes several kinds
 * or accounts calls lock() first, which locks their rows in (account, kind) order: two transactions
 * then never wait on each other in a circle. Rows of other tables are locked after the allowance
 * rows (see replies/accounting.ts).
 *
 * Every write notes its account on the transaction (balance-cache.ts): once the transaction has
 * ended, user/info's cached balances of those accounts are dropped on every node.
 */
import { and, eq, inArray, sql } from 'drizzle-orm'
import { PgTransaction } from 'drizzle-orm/pg-core'
import type { Db, Tx } from '../db/database.js'
import { accounts, allowances, balanceLog } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { publishAllowanceChange } from '../metrics/channels.js'
import { noteBalanceChange } from './balance-cache.js'
import type { AllowanceKind } from './kinds.js'

/** A kind by its id, or its definition. Spending and holding need the definition (its refusal message). */
type KindRef = string | Pick<AllowanceKind, 'id'>

/** A kind that can refuse: its id and its 40200001 message. */
type Refusing = Pick<AllowanceKind, 'id' | 'exhausted'>

const idOf = (kind: KindRef) => (typeof kind === 'string' ? kind : kind.id)

interface Balance {
  /** What can be spent now. */
  balance: number
  /** Taken by work still running; not spendable, still the account's. */
  held: number
}

const returned = { balance: allowances.balance, held: allowances.held }
const row = (accountId: string, kind: string) => and(eq(allowances.accountId, accountId), eq(allowances.kind, kind))

function positive(amount: number, what: string): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error(`${what}: the amount must be a whole number above 0, not ${amount}`)
}

async function log(tx: Tx, accountId: string, kind: string, amount: number, after: Balance, reason: string, at: Date): Promise<void> {
  await tx.insert(balanceLog).values({ accountId, kind, amount, balance: after.balance + after.held, reason, createdAt: at })
  publishAllowanceChange({ kind, amount })
}

/**
 * Locks the rows of these accounts and kinds in (account, kind) order, making the missing ones
 * (balance 0) as it goes, and returns them in that order: one statement, whose upsert takes each
 * row's lock (by inserting it, or by the no-op update of the one there) in the order of its SELECT.
 */
export async function lock(tx: Tx, accountIds: readonly string[], kinds: readonly KindRef[]): Promise<(Balance & { accountId: string; kind: string })[]> {
  const ids = [...new Set(accountIds)].sort()
  const names = [...new Set(kinds.map(idOf))].sort()
  if (ids.length === 0 || names.length === 0) return []
  const values = sql.join(
    names.map((n) => sql`(${n})`),
    sql`, `
  )
  const idList = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `
  )
  // From accounts, so no row is made for an account that is gone (its replies went with it).
  const result: unknown = await tx.execute(sql`
    insert into ${allowances} (account_id, kind)
    select a.id, k.kind from ${accounts} a cross join (values ${values}) as k(kind)
    where a.id in (${idList})
    order by a.id collate "C", k.kind collate "C"
    on conflict (account_id, kind) do update set balance = ${allowances}.balance
    returning account_id, kind, balance, held`)
  // PGlite answers {rows}, postgres-js the rows; bigint comes back as text.
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
    account_id: string
    kind: string
    balance: string | number
    held: string | number
  }[]
  return rows
    .map((r) => ({ accountId: r.account_id, kind: r.kind, balance: Number(r.balance), held: Number(r.held) }))
    .sort((a, b) => (a.accountId === b.accountId ? (a.kind < b.kind ? -1 : 1) : a.accountId < b.accountId ? -1 : 1))
}

/** Adds to a balance (a card, a new account's start, an operator's adjustment) and logs it; returns the balance. */
export async function grant(tx: Tx, accountId: string, kind: KindRef, amount: number, reason: string, at: Date): Promise<number> {
  positive(amount, 'grant')
  const [after] = await tx
    .insert(allowances)
    .values({ accountId, kind: idOf(kind), balance: amount })
    .onConflictDoUpdate({ target: [allowances.accountId, allowances.kind], set: { balance: sql`${allowances.balance} + ${amount}` } })
    .returning(returned)
  if (!after) throw new Error(`grant: no account ${accountId}`)
  noteBalanceChange(tx, accountId)
  await log(tx, accountId, idOf(kind), amount, after, reason, at)
  return after.balance
}

/** Gives back what a spend took (a failed painting, a song whose clips all failed) and logs it; returns the balance. */
export function refund(tx: Tx, accountId: string, kind: KindRef, amount: number, reason: string, at: Date): Promise<number> {
  return grant(tx, accountId, kind, amount, reason, at)
}

/**
 * Takes from a balance and logs it; returns the balance. Refuses with 40200001 and the kind's
 * message when the balance is short, changing nothing.
 */
export async function spend(tx: Tx, accountId: string, kind: Refusing, amount: number, reason: string, at: Date): Promise<number> {
  positive(amount, 'spend')
  const [after] = await tx
    .update(allowances)
    .set({ balance: sql`${allowances.balance} - ${amount}` })
    .where(and(row(accountId, kind.id), sql`${allowances.balance} >= ${amount}`))
    .returning(returned)
  if (!after) throw new ApiError(40200001, kind.exhausted)
  noteBalanceChange(tx, accountId)
  await log(tx, accountId, kind.id, -amount, after, reason, at)
  return after.balance
}

/**
 * Moves `amount` from the balance to held for work that is about to start (no log line: the
 * account still owns it). Refuses with 40200001 and the kind's message when the balance is short.
 * The work's own row records what it holds; it ends with settle() or release().
 */
export async function hold(tx: Tx, accountId: string, kind: Refusing, amount: number): Promise<void> {
  positive(amount, 'hold')
  const [after] = await tx
    .update(allowances)
    .set({ balance: sql`${allowances.balance} - ${amount}`, held: sql`${allowances.held} + ${amount}` })
    .where(and(row(accountId, kind.id), sql`${allowances.balance} >= ${amount}`))
    .returning(returned)
  if (!after) throw new ApiError(40200001, kind.exhausted)
  noteBalanceChange(tx, accountId)
}

/**
 * Ends a hold: `charged` (at most what was held) is taken and logged with `reason`, the rest goes
 * back to the balance. Nothing charged: no line. Returns the balance and what is still held.
 */
export async function settle(tx: Tx, accountId: string, kind: KindRef, held: number, charged: number, reason: string, at: Date): Promise<Balance> {
  if (!Number.isSafeInteger(held) || !Number.isSafeInteger(charged) || held < 0 || charged < 0 || charged > held) {
    throw new Error(`settle: cannot charge ${charged} of a hold of ${held}`)
  }
  const id = idOf(kind)
  if (held === 0) return balanceOf(tx, accountId, id)
  const [after] = await tx
    .update(allowances)
    .set({ balance: sql`${allowances.balance} + ${held - charged}`, held: sql`${allowances.held} - ${held}` })
    .where(row(accountId, id))
    .returning(returned)
  if (!after) throw new Error(`settle: account ${accountId} holds no ${id}`)
  noteBalanceChange(tx, accountId)
  if (charged > 0) await log(tx, accountId, id, -charged, after, reason, at)
  return after
}

/** Ends a hold free of charge: all of it goes back to the balance, without a log line. */
export async function release(tx: Tx, accountId: string, kind: KindRef, held: number): Promise<Balance> {
  return settle(tx, accountId, kind, held, 0, '', new Date(0))
}

/** One kind's balance of an account (0 when it never had any). */
export async function balanceOf(db: Db | Tx, accountId: string, kind: KindRef): Promise<Balance> {
  const [found] = await db
    .select(returned)
    .from(allowances)
    .where(row(accountId, idOf(kind)))
  return found ?? { balance: 0, held: 0 }
}

/** Every kind the account has a row of, by kind id: what can be spent now. */
export async function readBalances(db: Db | Tx, accountIds: readonly string[]): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>()
  if (accountIds.length === 0) return out
  const rows = await db
    .select({ accountId: allowances.accountId, kind: allowances.kind, balance: allowances.balance })
    .from(allowances)
    .where(inArray(allowances.accountId, [...new Set(accountIds)]))
  for (const r of rows) {
    const mine = out.get(r.accountId) ?? new Map<string, number>()
    mine.set(r.kind, r.balance)
    out.set(r.accountId, mine)
  }
  return out
}

/** user/info's read, on every page: built and prepared once per database, not per request. */
function prepareBalanceRead(db: Db) {
  return db
    .select({ kind: allowances.kind, balance: allowances.balance })
    .from(allowances)
    .where(eq(allowances.accountId, sql.placeholder('accountId')))
    .prepare('lingxi_account_balances')
}
const balanceReads = new WeakMap<Db, ReturnType<typeof prepareBalanceRead>>()

/** One account's balances by kind id (readBalances for one account; prepared outside a transaction). */
export async function accountBalances(db: Db | Tx, accountId: string): Promise<Map<string, number>> {
  if (db instanceof PgTransaction) return (await readBalances(db, [accountId])).get(accountId) ?? new Map()
  let read = balanceReads.get(db as Db)
  if (!read) {
    read = prepareBalanceRead(db as Db)
    balanceReads.set(db as Db, read)
  }
  const rows = await read.execute({ accountId })
  return new Map(rows.map((r) => [r.kind, r.balance]))
}
