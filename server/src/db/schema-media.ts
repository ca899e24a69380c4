// Tables of the media area: music and hot news (see schema.ts).
import { sql } from 'drizzle-orm'
import { bigint, boolean, check, doublePrecision, index, integer, jsonb, pgTable, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** One music request (1 sunoCount); its clips are music_songs rows. */
export const musicTasks = pgTable(
  'music_tasks',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** 'demo' | 'suno' */
    provider: text('provider').notNull(),
    /** The suno upstream channel (upstream_channels.id) that took it; polls go there. Null: the env's (SUNO_API_URL) or the demo. */
    channelId: integer('channel_id'),
    /** 'describe' | 'custom' */
    mode: text('mode').notNull(),
    /** sunoCount taken for the request. */
    charged: integer('charged').notNull().default(0),
    /** 1 once the charge was given back (every clip failed); set in the refund's transaction. */
    refunded: smallint('refunded').notNull().default(0),
    /** Set when every clip reached complete or error. */
    finishedAt: at('finished_at'),
    createdAt: at('created_at').notNull()
  },
  (t) => [
    index('music_tasks_account_idx').on(t.accountId),
    index('music_tasks_open_idx').on(t.createdAt).where(sql`${t.finishedAt} is null`),
    check('music_tasks_refunded_check', sql`${t.refunded} in (0, 1)`)
  ]
)

export const musicSongs = pgTable(
  'music_songs',
  {
    id: text('id').primaryKey(),
    /** Creation order: "newest first" follows it. */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    taskId: text('task_id')
      .notNull()
      .references(() => musicTasks.id, { onDelete: 'cascade' }),
    /** The provider's clip id. */
    clipId: text('clip_id').notNull(),
    title: text('title').notNull().default(''),
    tags: text('tags').notNull().default(''),
    lyric: text('lyric').notNull().default(''),
    prompt: text('prompt').notNull().default(''),
    instrumental: boolean('instrumental').notNull().default(false),
    status: text('status').notNull(),
    audioUrl: text('audio_url'),
    imageUrl: text('image_url'),
    /** Storage keys of the copies, so deleting a song removes its files. */
    audioKey: text('audio_key'),
    imageKey: text('image_key'),
    duration: doublePrecision('duration'),
    errorMessage: text('error_message'),
    demo: boolean('demo').notNull().default(false),
    /** The read-only share link's token (24 base64url chars), null while not shared; revoking clears it. */
    shareToken: text('share_token'),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull()
  },
  (t) => [
    index('music_songs_account_idx').on(t.accountId, t.seq),
    uniqueIndex('music_songs_share_token_unique').on(t.shareToken),
    index('music_songs_task_idx').on(t.taskId),
    check('music_songs_status_check', sql`${t.status} in ('submitted', 'queued', 'streaming', 'complete', 'error')`)
  ]
)

/** The last good list of each hot-news source, served (flagged stale) while the source fails. */
export const hotCache = pgTable('hot_cache', {
  sourceId: text('source_id').primaryKey(),
  /** Normalised items: {id, title, url, hot, desc, cover, time}[] */
  items: jsonb('items').notNull().default(sql`'[]'::jsonb`),
  /** When `items` was last fetched successfully; null before the first success. */
  fetchedAt: at('fetched_at'),
  /** The last attempt, successful or not. */
  attemptedAt: at('attempted_at'),
  /** Why the last attempt failed; null when it succeeded. */
  lastError: text('last_error')
})

export type MusicTask = typeof musicTasks.$inferSelect
export type MusicSong = typeof musicSongs.$inferSelect
export type HotCacheRow = typeof hotCache.$inferSelect
