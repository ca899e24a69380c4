// Tables of the tools area (see schema.ts): recharge cards and their redemptions.
import { sql } from 'drizzle-orm'
import { bigint, check, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { accounts } from './schema.js'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

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
    tokens: bigint('tokens', { mode: 'number' }).notNull().default(0),
    mjCount: integer('mj_count').notNull().default(0),
    sunoCount: integer('suno_count').notNull().default(0),
    expiresAt: at('expires_at'),
    redeemedAt: at('redeemed_at'),
    redeemedBy: text('redeemed_by').references(() => accounts.id, { onDelete: 'set null' }),
    createdAt: at('created_at').notNull()
  },
  (t) => [
    uniqueIndex('recharge_cards_code_unique').on(t.codeHash),
    check('recharge_cards_amounts_check', sql`${t.tokens} >= 0 and ${t.mjCount} >= 0 and ${t.sunoCount} >= 0`)
  ]
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
    tokens: bigint('tokens', { mode: 'number' }).notNull(),
    mjCount: integer('mj_count').notNull(),
    sunoCount: integer('suno_count').notNull(),
    createdAt: at('created_at').notNull()
  },
  (t) => [index('recharge_log_account_idx').on(t.accountId, t.id), uniqueIndex('recharge_log_card_unique').on(t.cardId)]
)

export type RechargeCard = typeof rechargeCards.$inferSelect
