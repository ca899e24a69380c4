// Tables of chat (see schema.ts): role-play personas and tags, topics and their messages.
import { sql } from 'drizzle-orm'
import {
  bigint,
  check,
  doublePrecision,
  index,
  integer,
  type AnyPgColumn,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex
} from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull()

/** Role-play personas: public ones (account_id null) seeded from data/roles.json, plus each account's own. */
export const chatRoles = pgTable(
  'chat_roles',
  {
    /** Seeded roles keep their stable key from roles.json as id; an account's roles get a UUID. */
    id: text('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    avatar: text('avatar').notNull(),
    description: text('description').notNull().default(''),
    systemPrompt: text('system_prompt').notNull(),
    welcomeMessage: text('welcome_message'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [index('chat_roles_account_idx').on(t.accountId, t.seq)]
)

export const chatTags = pgTable('chat_tags', {
  /** The stable key from roles.json. */
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  sort: integer('sort').notNull().default(0)
})

export const chatRoleTags = pgTable(
  'chat_role_tags',
  {
    roleId: text('role_id')
      .notNull()
      .references(() => chatRoles.id, { onDelete: 'cascade' }),
    tagId: text('tag_id')
      .notNull()
      .references(() => chatTags.id, { onDelete: 'cascade' })
  },
  (t) => [primaryKey({ columns: [t.roleId, t.tagId] }), index('chat_role_tags_tag_idx').on(t.tagId)]
)

export const chatTopics = pgTable(
  'chat_topics',
  {
    id: text('id').primaryKey(),
    /** Creation order, for ties in updated_at. */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    topFlag: smallint('top_flag').notNull().default(0),
    /** Null once the role is deleted; the snapshots below keep the topic working. */
    roleId: text('role_id').references((): AnyPgColumn => chatRoles.id, { onDelete: 'set null' }),
    roleName: text('role_name'),
    roleAvatar: text('role_avatar'),
    /** The role's system prompt when the topic was created. */
    systemPrompt: text('system_prompt'),
    model: text('model').notNull(),
    temperature: doublePrecision('temperature').notNull(),
    contextEnabled: smallint('context_enabled').notNull().default(1),
    /**
     * 'auto': the first exchange names the topic (modules/chat/titles.ts; `titled_at` set once it
     * did); 'user': the name stays (set by the user, at creation, or a tool's topic).
     */
    titleSource: text('title_source').notNull().default('user'),
    titledAt: timestamp('titled_at', { withTimezone: true, mode: 'date' }),
    /**
     * The newest message of the branch shown (modules/chat/branches.ts); null or gone: the topic's
     * newest message, which keeps every topic made before branches one linear branch.
     */
    leafId: text('leaf_id'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [
    index('chat_topics_account_idx').on(t.accountId, t.topFlag, t.updatedAt),
    check('chat_topics_title_source_check', sql`${t.titleSource} in ('auto', 'user')`),
    check('chat_topics_top_flag_check', sql`${t.topFlag} in (0, 1)`),
    check('chat_topics_context_check', sql`${t.contextEnabled} in (0, 1)`)
  ]
)

export const chatMessages = pgTable(
  'chat_messages',
  {
    id: text('id').primaryKey(),
    /** Creation order: "newest first" and the history sent upstream follow it. */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    topicId: text('topic_id')
      .notNull()
      .references(() => chatTopics.id, { onDelete: 'cascade' }),
    role: text('role').notNull(),
    content: text('content').notNull().default(''),
    thinking: text('thinking'),
    status: text('status').notNull(),
    /** Assistant replies: the id of their event stream (from the client, or made by the server). */
    requestId: text('request_id'),
    /** Assistant replies: the user message they answer. */
    parentId: text('parent_id'),
    /**
     * The message before this one on its branch (the topic's id: the first message). Null: the
     * message before it by seq (every row made before branches, and rows of code that knows none).
     */
    prevId: text('prev_id'),
    model: text('model'),
    errorCode: integer('error_code'),
    errorMessage: text('error_message'),
    /** Tokens of `content` (gpt-tokenizer), so history trimming need not count old messages again. */
    contentTokens: bigint('content_tokens', { mode: 'number' }),
    // bigint: an upstream's usage is validated, but a column that cannot overflow is the last line of defence.
    promptTokens: bigint('prompt_tokens', { mode: 'number' }),
    completionTokens: bigint('completion_tokens', { mode: 'number' }),
    /** usage × price; `charged` is what was taken (at most `held`). */
    cost: bigint('cost', { mode: 'number' }),
    charged: bigint('charged', { mode: 'number' }),
    /**
     * Tokens taken from the account when the reply started (the estimate of its cost, or the whole
     * balance when that was less); the reply's end charges from it and gives the rest back.
     */
    held: bigint('held', { mode: 'number' }).notNull().default(0),
    /** The node generating a streaming reply: a node that restarts ends its own orphans at once. */
    nodeId: text('node_id'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [
    index('chat_messages_topic_idx').on(t.topicId, t.seq),
    // Search (modules/chat/search.ts) reads an account's messages newest first.
    index('chat_messages_account_idx').on(t.accountId, t.seq),
    uniqueIndex('chat_messages_request_unique').on(t.accountId, t.requestId),
    index('chat_messages_streaming_idx').on(t.status).where(sql`${t.status} = 'streaming'`),
    check('chat_messages_role_check', sql`${t.role} in ('user', 'assistant', 'system')`),
    check('chat_messages_status_check', sql`${t.status} in ('streaming', 'complete', 'error', 'interrput', 'timeout')`),
    check('chat_messages_held_check', sql`${t.held} >= 0`),
    // Only a reply being generated holds tokens: every way a reply ends gives its hold back.
    check('chat_messages_held_streaming_check', sql`${t.held} = 0 or ${t.status} = 'streaming'`)
  ]
)

export type ChatTopic = typeof chatTopics.$inferSelect
export type ChatMessage = typeof chatMessages.$inferSelect
export type ChatRole = typeof chatRoles.$inferSelect
