// Likes of the gallery's works (issue 22): one row per account and work, so a count is exact
// however many arrive at once (the primary key refuses a second row; no counter to race on).
import { index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'
import { paintingTasks } from './schema-painting.js'

export const galleryLikes = pgTable(
  'gallery_likes',
  {
    taskId: text('task_id')
      .notNull()
      .references(() => paintingTasks.id, { onDelete: 'cascade' }),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull()
  },
  (t) => [
    primaryKey({ columns: [t.taskId, t.accountId] }),
    // "most liked this week": the likes of a recent window, by work
    index('gallery_likes_time_idx').on(t.createdAt, t.taskId)
  ]
)

export type GalleryLike = typeof galleryLikes.$inferSelect
