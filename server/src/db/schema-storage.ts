// Tables of the storage area (see schema.ts): stored files and uploads waiting for completion.
import { sql } from 'drizzle-orm'
import { bigint, check, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'

export const FILE_SOURCES = ['upload', 'avatar', 'painting', 'music', 'cover'] as const
export type FileSource = (typeof FILE_SOURCES)[number]

/** Every file Lingxi stores for an account: uploads, avatars, generated images, audio and covers. */
export const files = pgTable(
  'files',
  {
    id: text('id').primaryKey(),
    /** Creation order, for "newest first" within one millisecond. */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    thumbKey: text('thumb_key'),
    name: text('name').notNull().default(''),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    width: integer('width'),
    height: integer('height'),
    source: text('source').$type<FileSource>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [
    uniqueIndex('files_key_unique').on(t.key),
    index('files_account_idx').on(t.accountId, t.source, t.seq),
    check('files_source_check', sql`${t.source} in ('upload', 'avatar', 'painting', 'music', 'cover')`),
    check('files_size_check', sql`${t.size} >= 0`)
  ]
)

/** Upload credentials handed out and not yet completed; completion or expiry removes the row. */
export const pendingUploads = pgTable(
  'pending_uploads',
  {
    key: text('key').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    contentType: text('content_type').notNull(),
    /** The size declared when asking; the upload may not be larger. */
    size: integer('size').notNull(),
    purpose: text('purpose').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [
    index('pending_uploads_account_idx').on(t.accountId, t.expiresAt),
    check('pending_uploads_purpose_check', sql`${t.purpose} in ('image', 'avatar', 'painting')`)
  ]
)

export type StoredFile = typeof files.$inferSelect
