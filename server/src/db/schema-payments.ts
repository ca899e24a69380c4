// Tables of online recharge (see schema.ts): the packages the operator sells and the orders that buy them.
import { sql } from 'drizzle-orm'
import { type AnyPgColumn, bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'
import type { Grants } from './schema-tools.js'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
const grantsCheck = (name: string, column: AnyPgColumn) =>
  check(name, sql`jsonb_typeof(${column}) = 'object' and not jsonb_path_exists(${column}, '$.* ? (@.type() != "number" || @ < 0 || @ != @.floor())')`)

/** A recharge package: what it costs and what it grants, by allowance kind. */
export const payPackages = pgTable(
  'pay_packages',
  {
    id: text('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    priceFen: integer('price_fen').notNull(),
    grants: jsonb('grants').$type<Grants>().notNull(),
    /** Shown to the user; the ledger has no expiry yet, so nothing enforces it. */
    validityDays: integer('validity_days'),
    /** A short tag such as 推荐. */
    badge: text('badge'),
    sort: integer('sort').notNull().default(0),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull()
  },
  (t) => [
    index('pay_packages_list_idx').on(t.enabled, t.sort, t.seq),
    check('pay_packages_price_check', sql`${t.priceFen} > 0`),
    check('pay_packages_validity_check', sql`${t.validityDays} is null or ${t.validityDays} > 0`),
    grantsCheck('pay_packages_grants_check', t.grants)
  ]
)

/**
 * One attempt to buy a package. Its id is the out_trade_no given to the provider. The status moves
 * pending → paid → refunded, or pending → closed; each move is one conditional UPDATE, and the
 * move to paid credits the grants in the same transaction.
 */
export const payOrders = pgTable(
  'pay_orders',
  {
    id: text('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    idempotencyKey: text('idempotency_key').notNull(),
    packageId: text('package_id').notNull(),
    /** The package as it was bought (name and grants), so a later edit changes no order. */
    packageName: text('package_name').notNull(),
    grants: jsonb('grants').$type<Grants>().notNull(),
    amountFen: integer('amount_fen').notNull(),
    provider: text('provider').notNull(),
    scene: text('scene').notNull(),
    status: text('status').notNull(),
    /** What the browser needs to pay (a QR text, a URL, JSAPI parameters), as the provider answered. */
    payment: jsonb('payment').$type<Record<string, string>>(),
    providerTradeNo: text('provider_trade_no'),
    refundedFen: integer('refunded_fen').notNull().default(0),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    paidAt: at('paid_at'),
    closedAt: at('closed_at'),
    refundedAt: at('refunded_at'),
    updatedAt: at('updated_at').notNull()
  },
  (t) => [
    uniqueIndex('pay_orders_idempotency_unique').on(t.accountId, t.idempotencyKey),
    index('pay_orders_account_idx').on(t.accountId, t.seq),
    index('pay_orders_pending_idx').on(t.status, t.expiresAt),
    check('pay_orders_status_check', sql`${t.status} in ('pending', 'paid', 'closed', 'refunded')`),
    check('pay_orders_amount_check', sql`${t.amountFen} > 0 and ${t.refundedFen} >= 0 and ${t.refundedFen} <= ${t.amountFen}`),
    grantsCheck('pay_orders_grants_check', t.grants)
  ]
)

export type PayPackage = typeof payPackages.$inferSelect
export type PayOrder = typeof payOrders.$inferSelect
