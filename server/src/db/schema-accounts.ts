// Tables of accounts (see schema.ts): accounts, their sessions, SMS codes, allowances and the balance log.
import { sql } from 'drizzle-orm'
import { bigint, check, index, integer, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull()

export const accounts = pgTable(
  'accounts',
  {
    id: text('id').primaryKey(),
    enCode: text('en_code').notNull(),
    /** National significant number, no country code, no punctuation. */
    phone: text('phone').notNull(),
    nickName: text('nick_name').notNull(),
    avatarUrl: text('avatar_url').notNull().default(''),
    /** 1 valid, 0 invalid (expired): such accounts can log in but cannot use tools. */
    state: smallint('state').notNull().default(1),
    permissionCodes: text('permission_codes').array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [uniqueIndex('accounts_phone_unique').on(t.enCode, t.phone), check('accounts_state_check', sql`${t.state} in (0, 1)`)]
)

export const sessions = pgTable(
  'sessions',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** sha256 of the bearer token, hex; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    platform: text('platform').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    revokeReason: text('revoke_reason'),
    /** Opened by a partner's identity assertion (auth/partner.ts): the session works only from that partner's origins. */
    partnerId: text('partner_id')
  },
  (t) => [
    uniqueIndex('sessions_token_hash_unique').on(t.tokenHash),
    index('sessions_account_idx').on(t.accountId),
    check('sessions_platform_check', sql`${t.platform} in ('PC', 'H5')`)
  ]
)

export const smsCodes = pgTable(
  'sms_codes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    enCode: text('en_code').notNull(),
    phone: text('phone').notNull(),
    purpose: text('purpose').notNull(),
    codeHash: text('code_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt()
  },
  (t) => [
    index('sms_codes_lookup_idx').on(t.enCode, t.phone, t.purpose, t.id),
    check('sms_codes_purpose_check', sql`${t.purpose} in ('LOGIN', 'MODIFY_PHONE')`)
  ]
)

/**
 * The ledger: an account's balance of each allowance kind (allowances/registry.ts names the kinds;
 * no row means 0). Changed only through allowances/ledger.ts, which writes the balance log with it.
 */
export const allowances = pgTable(
  'allowances',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    /** What can be spent now. */
    balance: bigint('balance', { mode: 'number' }).notNull().default(0),
    /**
     * Taken from the balance by work still running (a chat reply holds its estimated cost until it
     * is settled): not spendable, but still the account's, so the balance log counts it.
     */
    held: bigint('held', { mode: 'number' }).notNull().default(0)
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.kind] }),
    // The last line of defence for "a balance never goes below zero".
    check('allowances_balance_check', sql`${t.balance} >= 0`),
    check('allowances_held_check', sql`${t.held} >= 0`)
  ]
)

export const balanceLog = pgTable(
  'balance_log',
  {
    // An identity column, so entries created in the same millisecond keep their order.
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** An allowance kind of the registry (tokens, mj, suno, …). */
    kind: text('kind').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    /** The balance of this kind right after the change, what is held included (see allowances.held). */
    balance: bigint('balance', { mode: 'number' }).notNull(),
    reason: text('reason').notNull(),
    createdAt: createdAt()
  },
  (t) => [index('balance_log_account_idx').on(t.accountId, t.id)]
)

export type Account = typeof accounts.$inferSelect
export type SmsPurpose = 'LOGIN' | 'MODIFY_PHONE'
