// Tables of the content area (moderation/takedowns.ts, moderation/reports.ts): what operators took
// down, the files no longer served because of it, and what users reported (see schema.ts).
import { sql } from 'drizzle-orm'
import { bigint, boolean, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** What can be taken down: a painting (gallery work), a song, an image of the image host. */
export const TAKEDOWN_KINDS = ['painting', 'song', 'image'] as const
export type TakedownKind = (typeof TAKEDOWN_KINDS)[number]
/** What can be reported: the above, and a chat reply. */
export const REPORT_KINDS = ['painting', 'song', 'image', 'reply'] as const
export type ReportKind = (typeof REPORT_KINDS)[number]

/**
 * One takedown by an operator. While `restored_at` is null the item is hidden everywhere (gallery,
 * lists of others) and its files answer 410; the owner sees it as 已下架 with `reason`.
 */
export const contentTakedowns = pgTable(
  'content_takedowns',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    kind: text('kind').$type<TakedownKind>().notNull(),
    itemId: text('item_id').notNull(),
    /** The item's owner. */
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    reason: text('reason').notNull(),
    /** The storage keys of the item's files when it was taken down. */
    keys: jsonb('keys').$type<string[]>().notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: at('created_at').notNull(),
    restoredBy: text('restored_by'),
    restoredAt: at('restored_at')
  },
  (t) => [
    uniqueIndex('content_takedowns_active_unique').on(t.kind, t.itemId).where(sql`${t.restoredAt} is null`),
    index('content_takedowns_account_idx').on(t.accountId),
    check('content_takedowns_kind_check', sql`${t.kind} in ('painting', 'song', 'image')`)
  ]
)

/** A stored file of an item taken down: GET /files/{key} answers 410 while the row is here. */
export const blockedFiles = pgTable('blocked_files', {
  key: text('key').primaryKey(),
  takedownId: bigint('takedown_id', { mode: 'number' })
    .notNull()
    .references(() => contentTakedowns.id, { onDelete: 'cascade' })
})

/** A user's report of a reply, painting, song or image; one open report per reporter and item. */
export const contentReports = pgTable(
  'content_reports',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    kind: text('kind').$type<ReportKind>().notNull(),
    itemId: text('item_id').notNull(),
    reporterId: text('reporter_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The item's owner, when known (kept as text: the report outlives the account). */
    ownerId: text('owner_id'),
    reason: text('reason').notNull(),
    /** What the item said when reported (prompt, title, reply), first 200 characters. */
    excerpt: text('excerpt').notNull().default(''),
    /** open | confirmed | dismissed */
    status: text('status').notNull().default('open'),
    handledBy: text('handled_by'),
    handledAt: at('handled_at'),
    note: text('note'),
    createdAt: at('created_at').notNull()
  },
  (t) => [
    uniqueIndex('content_reports_open_unique').on(t.reporterId, t.kind, t.itemId).where(sql`${t.status} = 'open'`),
    index('content_reports_status_idx').on(t.status, t.id),
    index('content_reports_reporter_idx').on(t.reporterId, t.createdAt),
    check('content_reports_kind_check', sql`${t.kind} in ('painting', 'song', 'image', 'reply')`),
    check('content_reports_status_check', sql`${t.status} in ('open', 'confirmed', 'dismissed')`)
  ]
)

/** An operator's notice: shown once to every visitor of the site between its start and end (and in embeds when `embeds`). */
export const announcements = pgTable(
  'announcements',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    startsAt: at('starts_at').notNull(),
    endsAt: at('ends_at').notNull(),
    /** Also shown in embedded widgets (the chat bubble on partner pages). */
    embeds: boolean('embeds').notNull().default(false),
    createdBy: text('created_by').notNull(),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
    /** Taken back early by an operator: shown no more. */
    withdrawnAt: at('withdrawn_at')
  },
  (t) => [index('announcements_window_idx').on(t.startsAt, t.endsAt), check('announcements_window_check', sql`${t.endsAt} > ${t.startsAt}`)]
)

export type ContentTakedown = typeof contentTakedowns.$inferSelect
export type Announcement = typeof announcements.$inferSelect
export type ContentReport = typeof contentReports.$inferSelect
