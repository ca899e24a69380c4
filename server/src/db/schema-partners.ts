// Partner single sign-on (auth/partner.ts): which account a partner's user is. Scoped by partner:
// the same `sub` of two partners is two people, two accounts.
import { index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'

export const partnerIdentities = pgTable(
  'partner_identities',
  {
    partnerId: text('partner_id').notNull(),
    /** The partner's own user id (the assertion's `sub`). */
    sub: text('sub').notNull(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The phone the partner last vouched for (not verified by Lingxi: never used to find an account). */
    phone: text('phone').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.sub] }), index('partner_identities_account_idx').on(t.accountId)]
)
