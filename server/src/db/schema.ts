import { sql } from 'drizzle-orm'
import {
  bigint,
  check,
  index,
  integer,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex
} from 'drizzle-orm/pg-core'

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
    tokens: bigint('tokens', { mode: 'number' }).notNull().default(0),
    mjCount: integer('mj_count').notNull().default(0),
    sunoCount: integer('suno_count').notNull().default(0),
    permissionCodes: text('permission_codes').array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [
    uniqueIndex('accounts_phone_unique').on(t.enCode, t.phone),
    check('accounts_state_check', sql`${t.state} in (0, 1)`),
    // The last line of defence for "a balance never goes below zero".
    check('accounts_tokens_check', sql`${t.tokens} >= 0`),
    check('accounts_mj_count_check', sql`${t.mjCount} >= 0`),
    check('accounts_suno_count_check', sql`${t.sunoCount} >= 0`)
  ]
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
    revokeReason: text('revoke_reason')
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

export const balanceLog = pgTable(
  'balance_log',
  {
    // An identity column, so entries created in the same millisecond keep their order.
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    /** The balance of this kind right after the change. */
    balance: bigint('balance', { mode: 'number' }).notNull(),
    reason: text('reason').notNull(),
    createdAt: createdAt()
  },
  (t) => [
    index('balance_log_account_idx').on(t.accountId, t.id),
    check('balance_log_kind_check', sql`${t.kind} in ('tokens', 'mj', 'suno')`)
  ]
)

export type Account = typeof accounts.$inferSelect
export type SmsPurpose = 'LOGIN' | 'MODIFY_PHONE'
export type BalanceKind = 'tokens' | 'mj' | 'suno'
