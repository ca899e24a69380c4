// Tables of chat's share links (see schema.ts): a read-only snapshot of a topic, public by its id.
import { bigint, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'
import { chatTopics } from './schema-chat.js'

/** One message of a share's snapshot, as the public page shows it (no ids, no account). */
export interface SharedMessage {
  role: 'user' | 'assistant'
  content: string
  thinking: string | null
  /** complete, or how the reply ended otherwise (interrput, error, timeout). */
  status: string
  createTime: number
}

/**
 * A topic as it was when shared. The messages are copied (jsonb), so later edits, new messages or
 * deletions in the topic never reach the link. Revoking deletes the row: every node reads it from
 * the database on every request, so the link is gone at once everywhere. Deleting the topic or the
 * account deletes its shares.
 */
export const chatShares = pgTable(
  'chat_shares',
  {
    /** 24 base64url characters from 18 random bytes (144 bits): the link's only secret. */
    id: text('id').primaryKey(),
    /** Creation order, for "newest first" within one millisecond. */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    topicId: text('topic_id')
      .notNull()
      .references(() => chatTopics.id, { onDelete: 'cascade' }),
    /** The topic's name and role when shared. */
    title: text('title').notNull(),
    roleName: text('role_name'),
    roleAvatar: text('role_avatar'),
    messageCount: integer('message_count').notNull(),
    messages: jsonb('messages').$type<SharedMessage[]>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [index('chat_shares_account_idx').on(t.accountId, t.seq), index('chat_shares_topic_idx').on(t.topicId)]
)

export type ChatShare = typeof chatShares.$inferSelect
