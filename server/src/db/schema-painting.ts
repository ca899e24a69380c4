// Tables of the painting area (see schema.ts): MJ / SD tasks, which are also the gallery's works.
import { sql } from 'drizzle-orm'
import { bigint, boolean, check, index, integer, jsonb, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'

export const paintingTasks = pgTable(
  'painting_tasks',
  {
    id: text('id').primaryKey(),
    /** Creation order: "newest first" follows it. */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    action: text('action').notNull(),
    status: text('status').notNull(),
    /** 0 NOT_START, 1 SUBMITTED, 3 IN_PROGRESS, 4 finished: updates only ever raise (rank, progress). */
    rank: smallint('rank').notNull().default(0),
    progress: integer('progress').notNull().default(0),
    prompt: text('prompt').notNull().default(''),
    promptEn: text('prompt_en').notNull().default(''),
    parentId: text('parent_id'),
    index: smallint('index'),
    /** demo | midjourney-proxy | a1111 */
    provider: text('provider').notNull(),
    upstreamId: text('upstream_id'),
    /** The upstream channel (upstream_channels.id) that took it: polls and actions go there. Null: the env's upstream or the demo. */
    channelId: integer('channel_id'),
    /** What the upstream needs to act on this task later (button customIds, seed …). */
    upstream: jsonb('upstream').$type<Record<string, unknown>>(),
    imageKey: text('image_key'),
    thumbKey: text('thumb_key'),
    width: integer('width'),
    height: integer('height'),
    prompts: jsonb('prompts').$type<string[]>(),
    failReason: text('fail_reason'),
    demo: boolean('demo').notNull().default(false),
    params: jsonb('params').$type<Record<string, unknown>>(),
    /** mjCount taken for this task, and whether it was given back. */
    charged: integer('charged').notNull().default(0),
    refunded: boolean('refunded').notNull().default(false),
    published: boolean('published').notNull().default(false),
    publishTime: timestamp('publish_time', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' })
  },
  (t) => [
    index('painting_tasks_account_idx').on(t.accountId, t.seq),
    index('painting_tasks_account_kind_idx').on(t.accountId, t.kind, t.seq),
    index('painting_tasks_gallery_idx').on(t.publishTime, t.seq).where(sql`${t.published}`),
    index('painting_tasks_unfinished_idx').on(t.provider, t.updatedAt).where(sql`${t.rank} < 4`),
    // Not unique: midjourney-proxy answers code 21 (exists) with the same task for a repeated U.
    index('painting_tasks_upstream_idx').on(t.provider, t.upstreamId),
    check('painting_tasks_kind_check', sql`${t.kind} in ('mj', 'sd')`),
    check('painting_tasks_status_check', sql`${t.status} in ('NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'INTERRPUT', 'TIMEOUT')`),
    check('painting_tasks_progress_check', sql`${t.progress} between 0 and 100`),
    check('painting_tasks_charged_check', sql`${t.charged} >= 0`)
  ]
)

export type PaintingTask = typeof paintingTasks.$inferSelect
