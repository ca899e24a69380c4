// Saved prompts of the chat's `/` shortcut (see schema.ts): each account's own, edited in the chat.
import { bigint, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'

export const chatPrompts = pgTable(
  'chat_prompts',
  {
    id: text('id').primaryKey(),
    /** Creation order: the list shows the newest first. */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    content: text('content').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [index('chat_prompts_account_idx').on(t.accountId, t.seq)]
)

export type ChatPrompt = typeof chatPrompts.$inferSelect
