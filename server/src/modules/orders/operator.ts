import { randomUUID } from 'node:crypto'
import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db, Tx } from '../../db/database.js'
import { accounts, type OrderActivity, orderActivities, orderSessions, orders } from '../../db/schema.js'
import { type Platform, PLATFORMS } from './wire.js'

/** A problem the operator can fix (the CLI prints it without a stack trace). */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1
  ) {
    super(message)
    this.name = 'OperatorError'
  }
}

export interface NewActivity {
  title: string
  brief: string
  requirements: string
  platform: Platform
  quality: boolean
  rewardFen: number
  budgetFen: number
  startTime: number
  endTime: number
  sessions: number
  places: number
  cover: string | null
}

/** Creates an activity with `sessions` sessions splitting its time window evenly, `places` each. */
export async function createActivity(db: Db, a: NewActivity, now = Date.now()): Promise<OrderActivity & { sessionIds: string[] }> {
  if (!PLATFORMS.includes(a.platform)) throw new OperatorError(`--platform must be one of ${PLATFORMS.join(', ')}`, 2)
  if (a.endTime <= a.startTime) throw new OperatorError('--end must be after --start', 2)
  // WeChat cash red packets: 1–200 元 each without a special scene.
  if (a.rewardFen < 100 || a.rewardFen > 20_000) throw new OperatorError('--reward-fen must be between 100 and 20000 (WeChat red packets hold 1–200 元)', 2)
  if (a.budgetFen < a.rewardFen) throw new OperatorError('--budget-fen must cover at least one reward', 2)
  if (a.sessions < 1 || a.sessions > 100) throw new OperatorError('--sessions must be between 1 and 100', 2)
  if (a.places < 1 || a.places > 100_000) throw new OperatorError('--places must be between 1 and 100000', 2)
  const id = randomUUID()
  const at = new Date(now)
  return db.transaction(async (tx) => {
    const [activity] = await tx
      .insert(orderActivities)
      .values({
        id,
        title: a.title,
        brief: a.brief,
        requirements: a.requirements,
        platform: a.platform,
        quality: a.quality,
        rewardFen: a.rewardFen,
        budgetFen: a.budgetFen,
        cover: a.cover,
        startTime: new Date(a.startTime),
        endTime: new Date(a.endTime),
        createdAt: at
      })
      .returning()
    if (!activity) throw new Error('activity insert returned nothing')
    const span = (a.endTime - a.startTime) / a.sessions
    const sessionIds: string[] = []
    for (let i = 0; i < a.sessions; i++) {
      const sid = randomUUID()
      sessionIds.push(sid)
      await tx.insert(orderSessions).values({
        id: sid,
        activityId: id,
        num: i + 1,
        name: `第 ${i + 1} 场`,
        startTime: new Date(Math.round(a.startTime + i * span)),
        endTime: new Date(i === a.sessions - 1 ? a.endTime : Math.round(a.startTime + (i + 1) * span)),
        places: a.places,
        placesLeft: a.places,
        createdAt: at
      })
    }
    return { ...activity, sessionIds }
  })
}

export async function listActivitiesForOperator(db: Db) {
  return db.select().from(orderActivities).orderBy(asc(orderActivities.seq))
}

/** Submissions waiting for review (or all orders of a status), oldest first. */
export async function listSubmissions(db: Db, status = 'submitted') {
  return db
    .select({ order: orders, title: orderActivities.title, quality: orderActivities.quality, enCode: accounts.enCode, phone: accounts.phone })
    .from(orders)
    .innerJoin(orderActivities, eq(orderActivities.id, orders.activityId))
    .innerJoin(accounts, eq(accounts.id, orders.accountId))
    .where(eq(orders.status, status))
    .orderBy(asc(orders.submitTime), asc(orders.seq))
}

/** Approves a submitted order; its reward moves from reserved to spent in the same transaction. */
export async function approveOrder(db: Db, orderId: string, now = Date.now()) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(orders)
      .set({ status: 'approved', reviewTime: new Date(now), rejectReason: null, updatedAt: new Date(now) })
      .where(and(eq(orders.id, orderId), eq(orders.status, 'submitted')))
      .returning()
    if (!row) throw new OperatorError(await whyNot(tx, orderId))
    await tx
      .update(orderActivities)
      .set({ spentFen: sql`${orderActivities.spentFen} + ${row.rewardFen}` })
      .where(eq(orderActivities.id, row.activityId))
    return row
  })
}

/** Rejects a submitted order with a reason; the person may fix and resubmit while the session lasts. */
export async function rejectOrder(db: Db, orderId: string, reason: string, now = Date.now()) {
  const text = reason.trim()
  if (!text) throw new OperatorError('--reason is required (shown to the person)', 2)
  const [row] = await db
    .update(orders)
    .set({ status: 'rejected', rejectReason: text.slice(0, 500), reviewTime: new Date(now), updatedAt: new Date(now) })
    .where(and(eq(orders.id, orderId), inArray(orders.status, ['submitted'])))
    .returning()
  if (!row) throw new OperatorError(await whyNot(db, orderId))
  return row
}

async function whyNot(db: Db | Tx, orderId: string): Promise<string> {
  const [row] = await db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId))
  return row ? `Order ${orderId} is ${row.status}, not submitted: only submitted orders can be reviewed` : `No order with id ${orderId}`
}
