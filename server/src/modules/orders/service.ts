import { randomUUID } from 'node:crypto'
import { and, asc, count, desc, eq, gt, ilike, inArray, lte, or, type SQL, sql } from 'drizzle-orm'
import type { Db, Tx } from '../../db/database.js'
import { isUniqueViolation } from '../../db/errors.js'
import { type Order, type OrderActivity, type OrderSession, orderActivities, orderSessions, orders, type RedPacket, redPackets } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { readPage } from '../../http/fields.js'
import { type ActivityWire, type OrderStatus, type OrderWire, type PayState, type Platform, PLATFORM_NAMES, type SessionWire } from './wire.js'

export const NO_ORDER = '订单不存在'
export const NO_SESSION = '场次不存在'
export const NO_ACTIVITY = '活动不存在'

const ms = (d: Date | null) => (d ? d.getTime() : null)

export function activityStatus(a: Pick<OrderActivity, 'startTime' | 'endTime'>, now: number): ActivityWire['status'] {
  if (now < a.startTime.getTime()) return 'upcoming'
  if (now >= a.endTime.getTime()) return 'ended'
  return 'open'
}

export function sessionStatus(s: OrderSession, now: number): SessionWire['status'] {
  if (now >= s.endTime.getTime()) return 'ended'
  if (now < s.startTime.getTime()) return 'upcoming'
  return s.placesLeft <= 0 ? 'full' : 'open'
}

export function toSessionWire(s: OrderSession, now: number): SessionWire {
  return {
    activitySessionId: s.id,
    activityId: s.activityId,
    name: s.name,
    startTime: s.startTime.getTime(),
    endTime: s.endTime.getTime(),
    places: s.places,
    placesLeft: s.placesLeft,
    status: sessionStatus(s, now)
  }
}

export function toActivityWire(a: OrderActivity, sessions: OrderSession[], now: number): ActivityWire {
  return {
    activityId: a.id,
    title: a.title,
    brief: a.brief,
    requirements: a.requirements,
    platform: a.platform as Platform,
    platformName: PLATFORM_NAMES[a.platform as Platform] ?? a.platform,
    quality: a.quality,
    rewardFen: a.rewardFen,
    budgetFen: a.budgetFen,
    spentFen: a.spentFen,
    startTime: a.startTime.getTime(),
    endTime: a.endTime.getTime(),
    status: activityStatus(a, now),
    cover: a.cover,
    sessions: sessions.map((s) => toSessionWire(s, now))
  }
}

/** PENDING packets (not accepted by WeChat yet) read as `none`: the reward can still be claimed. */
export function payStateOf(packet: Pick<RedPacket, 'state'> | null | undefined): PayState {
  if (!packet || packet.state === 'PENDING') return 'none'
  return packet.state as PayState
}

export function toOrderWire(o: Order, a: Pick<OrderActivity, 'title' | 'platform' | 'quality'>, packet: RedPacket | null | undefined): OrderWire {
  return {
    orderId: o.id,
    activityId: o.activityId,
    activitySessionId: o.sessionId,
    status: o.status as OrderStatus,
    draft: o.draft,
    link: o.link,
    screenshots: o.screenshots,
    rejectReason: o.rejectReason,
    rewardFen: o.rewardFen,
    payState: payStateOf(packet),
    takeTime: o.takeTime.getTime(),
    submitTime: ms(o.submitTime),
    reviewTime: ms(o.reviewTime),
    activity: { title: a.title, platformName: PLATFORM_NAMES[a.platform as Platform] ?? a.platform, quality: a.quality }
  }
}

/**
 * Orders still open for work (taken, or rejected and resubmittable) whose session has ended become
 * `expired`, and their rewards leave the activity's reserved budget. Idempotent; runs before reads.
 */
export async function expireOrders(db: Db, now: number): Promise<void> {
  const at = new Date(now)
  await db.transaction(async (tx) => {
    const expired = await tx
      .update(orders)
      .set({ status: 'expired', updatedAt: at })
      .where(
        and(
          inArray(orders.status, ['taken', 'rejected']),
          inArray(orders.sessionId, tx.select({ id: orderSessions.id }).from(orderSessions).where(lte(orderSessions.endTime, at)))
        )
      )
      .returning({ activityId: orders.activityId, rewardFen: orders.rewardFen })
    const byActivity = new Map<string, number>()
    for (const row of expired) byActivity.set(row.activityId, (byActivity.get(row.activityId) ?? 0) + row.rewardFen)
    for (const [activityId, fen] of byActivity) {
      await tx
        .update(orderActivities)
        .set({ reservedFen: sql`${orderActivities.reservedFen} - ${fen}` })
        .where(eq(orderActivities.id, activityId))
    }
  })
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

export interface ActivityFilter {
  quality: boolean
  platform?: Platform | undefined
  status?: ActivityWire['status'] | undefined
  keyword?: string | undefined
  pageNum: number
  pageSize: number
}

async function sessionsOf(db: Db | Tx, activityIds: string[]): Promise<Map<string, OrderSession[]>> {
  const map = new Map<string, OrderSession[]>()
  if (activityIds.length === 0) return map
  const rows = await db.select().from(orderSessions).where(inArray(orderSessions.activityId, activityIds)).orderBy(asc(orderSessions.num))
  for (const row of rows) map.set(row.activityId, [...(map.get(row.activityId) ?? []), row])
  return map
}

/** Newest first; status filters by the activity's time window. */
export async function listActivities(db: Db, f: ActivityFilter, now: number) {
  const at = new Date(now)
  const where: SQL[] = [eq(orderActivities.quality, f.quality)]
  if (f.platform) where.push(eq(orderActivities.platform, f.platform))
  if (f.status === 'upcoming') where.push(gt(orderActivities.startTime, at))
  if (f.status === 'open') where.push(lte(orderActivities.startTime, at), gt(orderActivities.endTime, at))
  if (f.status === 'ended') where.push(lte(orderActivities.endTime, at))
  if (f.keyword) {
    const pattern = `%${escapeLike(f.keyword)}%`
    const match = or(ilike(orderActivities.title, pattern), ilike(orderActivities.brief, pattern))
    if (match) where.push(match)
  }
  const condition = and(...where)
  return readPage(
    f,
    db.select({ n: count() }).from(orderActivities).where(condition),
    (limit, offset) => db.select().from(orderActivities).where(condition).orderBy(desc(orderActivities.seq)).limit(limit).offset(offset),
    async (rows) => {
      const sessions = await sessionsOf(
        db,
        rows.map((r) => r.id)
      )
      return rows.map((a) => toActivityWire(a, sessions.get(a.id) ?? [], now))
    }
  )
}

export async function findActivity(db: Db, activityId: string): Promise<OrderActivity> {
  const [row] = await db.select().from(orderActivities).where(eq(orderActivities.id, activityId))
  if (!row) throw new ApiError(40400001, NO_ACTIVITY)
  return row
}

/** A session with its activity; 40400001 when either is missing (or they do not belong together). */
export async function findSession(db: Db, sessionId: string, activityId?: string): Promise<{ session: OrderSession; activity: OrderActivity }> {
  const [row] = await db
    .select({ session: orderSessions, activity: orderActivities })
    .from(orderSessions)
    .innerJoin(orderActivities, eq(orderActivities.id, orderSessions.activityId))
    .where(eq(orderSessions.id, sessionId))
  if (!row || (activityId !== undefined && row.activity.id !== activityId)) throw new ApiError(40400001, NO_SESSION)
  return row
}

/** The caller's order with its activity and packet; another account's order is 40400001 like a missing one. */
export async function findOwnOrder(db: Db | Tx, accountId: string, orderId: string) {
  const [row] = await db
    .select({ order: orders, activity: orderActivities, session: orderSessions, packet: redPackets })
    .from(orders)
    .innerJoin(orderActivities, eq(orderActivities.id, orders.activityId))
    .innerJoin(orderSessions, eq(orderSessions.id, orders.sessionId))
    .leftJoin(redPackets, eq(redPackets.orderId, orders.id))
    .where(and(eq(orders.id, orderId), eq(orders.accountId, accountId)))
  if (!row) throw new ApiError(40400001, NO_ORDER)
  return row
}

export async function activityDetail(db: Db, accountId: string, activityId: string, sessionId: string, now: number) {
  const { session, activity } = await findSession(db, sessionId, activityId)
  const sessions = await sessionsOf(db, [activity.id])
  const [mine] = await db
    .select({ order: orders, packet: redPackets })
    .from(orders)
    .leftJoin(redPackets, eq(redPackets.orderId, orders.id))
    .where(and(eq(orders.accountId, accountId), eq(orders.sessionId, session.id)))
  return {
    activity: toActivityWire(activity, sessions.get(activity.id) ?? [], now),
    session: toSessionWire(session, now),
    myOrder: mine ? toOrderWire(mine.order, activity, mine.packet) : null
  }
}

const ALREADY_TAKEN = '您已在该场次接单，每个场次只能接一单'

/**
 * Takes a place: one conditional UPDATE per counter (places_left > 0, reserved + reward ≤ budget),
 * so concurrent takes can never overbook a session or an activity's budget. A cancelled order of
 * the same person in the same session is reused (one row per person and session).
 */
export async function takeOrder(db: Db, accountId: string, sessionId: string, now: number): Promise<OrderWire> {
  const { session, activity } = await findSession(db, sessionId)
  if (now < session.startTime.getTime() || now < activity.startTime.getTime()) throw new ApiError(40000001, '该场次尚未开始接单')
  if (now >= session.endTime.getTime() || now >= activity.endTime.getTime()) throw new ApiError(40000001, '该场次已结束')
  const at = new Date(now)
  try {
    return await db.transaction(async (tx) => {
      const [existing] = await tx
        .select()
        .from(orders)
        .where(and(eq(orders.accountId, accountId), eq(orders.sessionId, session.id)))
      if (existing && existing.status !== 'cancelled') throw new ApiError(40000001, ALREADY_TAKEN)
      const [place] = await tx
        .update(orderSessions)
        .set({ placesLeft: sql`${orderSessions.placesLeft} - 1` })
        .where(and(eq(orderSessions.id, session.id), gt(orderSessions.placesLeft, 0)))
        .returning({ placesLeft: orderSessions.placesLeft })
      if (!place) throw new ApiError(40000001, '该场次名额已满')
      const [budget] = await tx
        .update(orderActivities)
        .set({ reservedFen: sql`${orderActivities.reservedFen} + ${orderActivities.rewardFen}` })
        .where(and(eq(orderActivities.id, activity.id), sql`${orderActivities.reservedFen} + ${orderActivities.rewardFen} <= ${orderActivities.budgetFen}`))
        .returning({ rewardFen: orderActivities.rewardFen })
      if (!budget) throw new ApiError(40000001, '该活动的预算已用完，暂时不能接单')
      const values = {
        status: 'taken',
        draft: '',
        link: null,
        screenshots: [],
        rejectReason: null,
        rewardFen: budget.rewardFen,
        takeTime: at,
        submitTime: null,
        reviewTime: null,
        updatedAt: at
      }
      let row: Order | undefined
      if (existing) {
        ;[row] = await tx
          .update(orders)
          .set(values)
          .where(and(eq(orders.id, existing.id), eq(orders.status, 'cancelled')))
          .returning()
      } else {
        ;[row] = await tx
          .insert(orders)
          .values({ id: randomUUID(), accountId, activityId: activity.id, sessionId: session.id, ...values })
          .returning()
      }
      if (!row) throw new ApiError(40000001, ALREADY_TAKEN)
      return toOrderWire(row, activity, null)
    })
  } catch (error) {
    // Two takes of one person raced: the unique (account, session) index let one through.
    if (isUniqueViolation(error)) throw new ApiError(40000001, ALREADY_TAKEN)
    throw error
  }
}

/** Gives the place and the reserved reward back; only while `taken`. */
export async function cancelOrder(db: Db, accountId: string, orderId: string, now: number): Promise<OrderWire> {
  const { activity } = await findOwnOrder(db, accountId, orderId)
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(orders)
      .set({ status: 'cancelled', updatedAt: new Date(now) })
      .where(and(eq(orders.id, orderId), eq(orders.accountId, accountId), eq(orders.status, 'taken')))
      .returning()
    if (!row) throw new ApiError(40000001, '只有已接单、尚未提交的订单可以取消')
    await tx
      .update(orderSessions)
      .set({ placesLeft: sql`${orderSessions.placesLeft} + 1` })
      .where(and(eq(orderSessions.id, row.sessionId), sql`${orderSessions.placesLeft} < ${orderSessions.places}`))
    await tx
      .update(orderActivities)
      .set({ reservedFen: sql`${orderActivities.reservedFen} - ${row.rewardFen}` })
      .where(eq(orderActivities.id, row.activityId))
    return toOrderWire(row, activity, null)
  })
}

const EDITABLE = ['taken', 'rejected']

export async function saveDraft(db: Db, accountId: string, orderId: string, draft: string, now: number): Promise<OrderWire> {
  const { activity, packet } = await findOwnOrder(db, accountId, orderId)
  const [row] = await db
    .update(orders)
    .set({ draft, updatedAt: new Date(now) })
    .where(and(eq(orders.id, orderId), eq(orders.accountId, accountId), inArray(orders.status, EDITABLE)))
    .returning()
  if (!row) throw new ApiError(40000001, '只有未提交或被驳回的订单可以修改文案')
  return toOrderWire(row, activity, packet)
}

/** `screenshots` are already checked (own storage URLs) and normalised by the caller. */
export async function submitOrder(db: Db, accountId: string, orderId: string, input: { link: string; screenshots: string[] }, now: number): Promise<OrderWire> {
  const { session, activity, packet } = await findOwnOrder(db, accountId, orderId)
  if (now >= session.endTime.getTime()) throw new ApiError(40000001, '该场次已结束，不能再提交')
  const [row] = await db
    .update(orders)
    .set({ status: 'submitted', link: input.link, screenshots: input.screenshots, rejectReason: null, submitTime: new Date(now), updatedAt: new Date(now) })
    .where(and(eq(orders.id, orderId), eq(orders.accountId, accountId), inArray(orders.status, EDITABLE)))
    .returning()
  if (!row) throw new ApiError(40000001, '只有已接单或被驳回的订单可以提交')
  return toOrderWire(row, activity, packet)
}

export async function myOrders(db: Db, accountId: string, f: { kinds: boolean[]; status?: OrderStatus | undefined; pageNum: number; pageSize: number }) {
  const where: SQL[] = [eq(orders.accountId, accountId), inArray(orderActivities.quality, f.kinds)]
  if (f.status) where.push(eq(orders.status, f.status))
  const condition = and(...where)
  return readPage(
    f,
    db.select({ n: count() }).from(orders).innerJoin(orderActivities, eq(orderActivities.id, orders.activityId)).where(condition),
    (limit, offset) =>
      db
        .select({ order: orders, activity: orderActivities, packet: redPackets })
        .from(orders)
        .innerJoin(orderActivities, eq(orderActivities.id, orders.activityId))
        .leftJoin(redPackets, eq(redPackets.orderId, orders.id))
        .where(condition)
        .orderBy(desc(orders.seq))
        .limit(limit)
        .offset(offset),
    (rows) => rows.map((r) => toOrderWire(r.order, r.activity, r.packet))
  )
}
