// Tables of the order platforms (see schema.ts): activities, their sessions (场次), orders taken
// in them, the WeChat red packets that pay approved orders, and WeChat identities linked to accounts.
import { sql } from 'drizzle-orm'
import { bigint, boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { accounts } from './schema-accounts.js'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** A paid content task published by the operator (`lingxi-admin orders activity create`). */
export const orderActivities = pgTable(
  'order_activities',
  {
    id: text('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    title: text('title').notNull(),
    brief: text('brief').notNull(),
    requirements: text('requirements').notNull().default(''),
    platform: text('platform').notNull(),
    quality: boolean('quality').notNull().default(false),
    /** Reward per approved submission, in 分. */
    rewardFen: integer('reward_fen').notNull(),
    budgetFen: bigint('budget_fen', { mode: 'number' }).notNull(),
    /** Rewards of orders that are live (taken, submitted, rejected-and-resubmittable, approved). */
    reservedFen: bigint('reserved_fen', { mode: 'number' }).notNull().default(0),
    /** Rewards of approved orders. */
    spentFen: bigint('spent_fen', { mode: 'number' }).notNull().default(0),
    cover: text('cover'),
    startTime: at('start_time').notNull(),
    endTime: at('end_time').notNull(),
    createdAt: at('created_at').notNull()
  },
  (t) => [
    index('order_activities_list_idx').on(t.quality, t.seq),
    check('order_activities_platform_check', sql`${t.platform} in ('xiaohongshu', 'douyin', 'wechat_mp', 'weibo', 'bilibili', 'other')`),
    check('order_activities_reward_check', sql`${t.rewardFen} > 0`),
    // Budget accounting: nothing is promised or paid beyond the budget, even under concurrency.
    check(
      'order_activities_budget_check',
      sql`${t.reservedFen} >= 0 and ${t.spentFen} >= 0 and ${t.spentFen} <= ${t.reservedFen} and ${t.reservedFen} <= ${t.budgetFen}`
    ),
    check('order_activities_time_check', sql`${t.endTime} > ${t.startTime}`)
  ]
)

/** 场次: a round of an activity with its own time window and number of places. */
export const orderSessions = pgTable(
  'order_sessions',
  {
    id: text('id').primaryKey(),
    activityId: text('activity_id')
      .notNull()
      .references(() => orderActivities.id, { onDelete: 'cascade' }),
    /** 1, 2, … within the activity. */
    num: integer('num').notNull(),
    name: text('name').notNull(),
    startTime: at('start_time').notNull(),
    endTime: at('end_time').notNull(),
    places: integer('places').notNull(),
    placesLeft: integer('places_left').notNull(),
    createdAt: at('created_at').notNull()
  },
  (t) => [
    uniqueIndex('order_sessions_num_unique').on(t.activityId, t.num),
    // The last line of defence for "places never go below zero".
    check('order_sessions_places_check', sql`${t.placesLeft} >= 0 and ${t.placesLeft} <= ${t.places}`),
    check('order_sessions_time_check', sql`${t.endTime} > ${t.startTime}`)
  ]
)

/** One person's order in one session. */
export const orders = pgTable(
  'orders',
  {
    id: text('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    activityId: text('activity_id')
      .notNull()
      .references(() => orderActivities.id, { onDelete: 'cascade' }),
    sessionId: text('session_id')
      .notNull()
      .references(() => orderSessions.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    draft: text('draft').notNull().default(''),
    link: text('link'),
    screenshots: text('screenshots').array().notNull().default(sql`'{}'::text[]`),
    rejectReason: text('reject_reason'),
    rewardFen: integer('reward_fen').notNull(),
    takeTime: at('take_time').notNull(),
    submitTime: at('submit_time'),
    reviewTime: at('review_time'),
    updatedAt: at('updated_at').notNull()
  },
  (t) => [
    uniqueIndex('orders_account_session_unique').on(t.accountId, t.sessionId),
    index('orders_account_idx').on(t.accountId, t.seq),
    index('orders_status_idx').on(t.status, t.seq),
    check('orders_status_check', sql`${t.status} in ('taken', 'submitted', 'approved', 'rejected', 'cancelled', 'expired')`)
  ]
)

/**
 * The red packet paying one approved order. `mch_billno` is made once and reused on every retry,
 * so WeChat Pay deduplicates; `claim_until` lets one caller at a time talk to WeChat about it.
 * state: PENDING (not yet accepted by WeChat: never sent, or a retryable failure) or WeChat's own
 * SENDING, SENT, FAILED, RECEIVED, RFUND_ING, REFUND.
 */
export const redPackets = pgTable(
  'red_packets',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    mchBillno: text('mch_billno').notNull(),
    amountFen: integer('amount_fen').notNull(),
    openid: text('openid').notNull(),
    /** Paid by the offline demo payer: no money moved. */
    demo: boolean('demo').notNull().default(false),
    state: text('state').notNull(),
    attempts: integer('attempts').notNull().default(0),
    claimUntil: at('claim_until'),
    /** No new sendredpack call before this (FREQ_LIMIT back-off). */
    retryAfter: at('retry_after'),
    errCode: text('err_code'),
    errMessage: text('err_message'),
    sendListid: text('send_listid'),
    /** The last few raw answers of WeChat Pay (XML), newest last. */
    rawResponses: text('raw_responses').array().notNull().default(sql`'{}'::text[]`),
    sendTime: at('send_time'),
    receiveTime: at('receive_time'),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull()
  },
  (t) => [
    uniqueIndex('red_packets_order_unique').on(t.orderId),
    uniqueIndex('red_packets_billno_unique').on(t.mchBillno),
    check('red_packets_state_check', sql`${t.state} in ('PENDING', 'SENDING', 'SENT', 'FAILED', 'RECEIVED', 'RFUND_ING', 'REFUND')`),
    check('red_packets_amount_check', sql`${t.amountFen} > 0`)
  ]
)

/** A WeChat identity (Open Platform website app) linked to an account. */
export const wechatIdentities = pgTable(
  'wechat_identities',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    appId: text('app_id').notNull(),
    openid: text('openid').notNull(),
    unionid: text('unionid'),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    nickName: text('nick_name').notNull().default(''),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull()
  },
  (t) => [
    uniqueIndex('wechat_identities_openid_unique').on(t.appId, t.openid),
    uniqueIndex('wechat_identities_unionid_unique').on(t.unionid),
    index('wechat_identities_account_idx').on(t.accountId)
  ]
)

/**
 * One WeChat login in progress: the `state` sent to WeChat (stored hashed; the browser holds it in an
 * HttpOnly cookie), where to go afterwards, and — when a logged-in account binds WeChat — the account.
 * Valid 10 minutes, used once (conditional UPDATE of used_at).
 */
export const wechatLoginStates = pgTable(
  'wechat_login_states',
  {
    id: text('id').primaryKey(),
    stateHash: text('state_hash'),
    /** A bind ticket (hashed) handed to a logged-in client, exchanged at authorize for a state. */
    ticketHash: text('ticket_hash'),
    redirect: text('redirect').notNull(),
    popup: boolean('popup').notNull().default(false),
    bindAccountId: text('bind_account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
    createdAt: at('created_at').notNull()
  },
  (t) => [uniqueIndex('wechat_login_states_state_unique').on(t.stateHash), uniqueIndex('wechat_login_states_ticket_unique').on(t.ticketHash)]
)

export type OrderActivity = typeof orderActivities.$inferSelect
export type OrderSession = typeof orderSessions.$inferSelect
export type Order = typeof orders.$inferSelect
export type RedPacket = typeof redPackets.$inferSelect
export type WechatIdentity = typeof wechatIdentities.$inferSelect
