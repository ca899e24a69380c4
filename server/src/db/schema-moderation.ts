// The content safety area (moderation/): what the checks refused or kept for review (see schema.ts).
import { sql } from 'drizzle-orm'
import { bigint, boolean, check, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/**
 * One check that did not simply pass (verdict review or block, or a provider that could not
 * answer): never shown to other users, purged after MODERATION_LOG_DAYS. The text itself is not
 * kept, only its SHA-256 and a short excerpt for the operator.
 */
export const moderationLog = pgTable(
  'moderation_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** chat | prompt | name | reply | image (moderation/types.ts). */
    kind: text('kind').notNull(),
    /** Where the text was going, e.g. chat.message, painting.prompt, user.nickname. */
    source: text('source').notNull(),
    accountId: text('account_id').references(() => accounts.id, { onDelete: 'set null' }),
    /** SHA-256 (hex) of the whole text checked. */
    contentHash: text('content_hash').notNull(),
    /** Its first 200 characters. */
    excerpt: text('excerpt').notNull(),
    /** pass | review | block */
    verdict: text('verdict').notNull(),
    /** The provider that decided (words, aliyun, tencent, openai), none when the fail mode did. */
    provider: text('provider'),
    /** The list entry, label or category that decided. */
    rule: text('rule'),
    /** A provider that could not answer, and why (the fail mode decided). */
    failure: text('failure'),
    createdAt: at('created_at').notNull()
  },
  (t) => [
    index('moderation_log_created_idx').on(t.createdAt),
    index('moderation_log_account_idx').on(t.accountId, t.createdAt),
    check('moderation_log_verdict_check', sql`${t.verdict} in ('pass', 'review', 'block')`)
  ]
)

/**
 * The local word list as the matcher uses it (moderation/word-store.ts): the entries of
 * MODERATION_WORDS_FILE (source `file`, replaced whenever the file is read: at start and on the
 * console's 从文件重新加载) and those an operator added in the console (source `console`). Every
 * node rebuilds its matcher from here when told over the event bus.
 */
export const moderationWords = pgTable(
  'moderation_words',
  {
    word: text('word').primaryKey(),
    /** review | block */
    verdict: text('verdict').notNull(),
    /** Also matches the entry spelled in pinyin (wordlist.ts). */
    pinyin: boolean('pinyin').notNull().default(false),
    /** file | console */
    source: text('source').notNull(),
    createdBy: text('created_by'),
    createdAt: at('created_at').notNull()
  },
  (t) => [
    check('moderation_words_verdict_check', sql`${t.verdict} in ('review', 'block')`),
    check('moderation_words_source_check', sql`${t.source} in ('file', 'console')`)
  ]
)

export type ModerationLogRow = typeof moderationLog.$inferSelect
export type ModerationWordRow = typeof moderationWords.$inferSelect
