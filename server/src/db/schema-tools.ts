// Tables of the tools area (see schema.ts): recharge cards and their redemptions.
import { sql } from 'drizzle-orm'
import { type AnyPgColumn, bigint, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** Amounts by allowance kind, e.g. `{"tokens": 5000, "mj": 3}`; a kind not named gives nothing. */
export type Grants = Record<string, number>
const grants = () => jsonb('grants').$type<Grants>().notNull()
// An object of whole numbers ≥ 0: the last line of defence behind the code's checks.
const grantsCheck = (name: string, column: AnyPgColumn) =>
  check(name, sql`jsonb_typeof(${column}) = 'object' and not jsonb_path_exists(${column}, '$.* ? (@.type() != "number" || @ < 0 || @ != @.floor())')`)

/**
 * Cards the operator creates with `lingxi-admin cards create`. Only a hash of the code is kept:
 * the code is printed once, and a copy of this table redeems nothing.
 */
export const rechargeCards = pgTable(
  'recharge_cards',
  {
    id: text('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    /** sha256 of the normalised code (16 characters, no dashes), hex. */
    codeHash: text('code_hash').notNull(),
    /** The code masked for display, e.g. `7K3M-****-****-Q2XD`. */
    codeMask: text('code_mask').notNull(),
    /** What redeeming it gives, by allowance kind. */
    grants: grants(),
    expiresAt: at('expires_at'),
    redeemedAt: at('redeemed_at'),
    redeemedBy: text('redeemed_by').references(() => accounts.id, { onDelete: 'set null' }),
    createdAt: at('created_at').notNull()
  },
  (t) => [uniqueIndex('recharge_cards_code_unique').on(t.codeHash), grantsCheck('recharge_cards_grants_check', t.grants)]
)

/** One row per redeemed card, written in the same transaction as the balances and the balance log. */
export const rechargeLog = pgTable(
  'recharge_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    cardId: text('card_id')
      .notNull()
      .references(() => rechargeCards.id, { onDelete: 'cascade' }),
    codeMask: text('code_mask').notNull(),
    /** What it gave, by allowance kind (the card's grants when redeemed). */
    grants: grants(),
    createdAt: at('created_at').notNull()
  },
  (t) => [
    index('recharge_log_account_idx').on(t.accountId, t.id),
    uniqueIndex('recharge_log_card_unique').on(t.cardId),
    grantsCheck('recharge_log_grants_check', t.grants)
  ]
)

export type RechargeCard = typeof rechargeCards.$inferSelect
