// Tables of the operator area (see schema.ts): the audit log and recharge-card batches.
import { bigint, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'
import type { Grants } from './schema-tools.js'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/**
 * Every operator action through /api/admin (who, when, what, before, after). Only ever inserted:
 * the API has no route that changes or deletes a line.
 */
export const adminAudit = pgTable(
  'admin_audit',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** The operator's account; kept as text, so the line outlives the account. */
    actorId: text('actor_id').notNull(),
    /** The operator's phone when acting, e.g. `+86 13800138000`. */
    actorPhone: text('actor_phone').notNull(),
    /** `allowance.adjust`, `account.disable`, `account.enable`, `permission.grant`, `permission.revoke`, `cards.create`, `cards.void`. */
    action: text('action').notNull(),
    /** What it acted on: an account id, a card batch id. */
    target: text('target').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    /** The operator's reason, when the action takes one. */
    reason: text('reason'),
    /** The HTTP request id (X-Request-Id): the line's access-log and log lines. */
    requestId: text('request_id'),
    createdAt: at('created_at').notNull()
  },
  (t) => [index('admin_audit_target_idx').on(t.target, t.id), index('admin_audit_created_idx').on(t.createdAt)]
)

/** A batch of recharge cards made through the operator API (the CLI's cards have none). */
export const cardBatches = pgTable('card_batches', {
  id: text('id').primaryKey(),
  note: text('note').notNull().default(''),
  grants: jsonb('grants').$type<Grants>().notNull(),
  count: integer('count').notNull(),
  expiresAt: at('expires_at'),
  createdBy: text('created_by').references(() => accounts.id, { onDelete: 'set null' }),
  createdAt: at('created_at').notNull()
})

/** Which batch a card belongs to, and when it was voided (a voided card is also expired, so it redeems nothing). */
export const cardBatchCards = pgTable(
  'card_batch_cards',
  {
    // No foreign key: recharge_cards is truncated on its own by the tests and by nothing else.
    cardId: text('card_id').primaryKey(),
    batchId: text('batch_id')
      .notNull()
      .references(() => cardBatches.id, { onDelete: 'cascade' }),
    voidedAt: at('voided_at')
  },
  (t) => [index('card_batch_cards_batch_idx').on(t.batchId)]
)

/** Accounts an operator disabled: login is refused while a row is here (the account's state is 0 too). */
export const disabledAccounts = pgTable('disabled_accounts', {
  accountId: text('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  reason: text('reason').notNull(),
  disabledBy: text('disabled_by').notNull(),
  disabledAt: at('disabled_at').notNull()
})
