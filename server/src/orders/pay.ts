import { randomUUID } from 'node:crypto'
import { and, asc, eq, inArray, isNotNull, isNull, lte, or, sql } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { isUniqueViolation } from '../db/errors.js'
import { type RedPacket, redPackets, wechatIdentities } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { EventBus } from '../events/bus.js'
import type { JobContext, JobQueue } from '../jobs/index.js'
import type { Logger } from '../logger.js'
import { createDemoPayer, newMchBillno, type RedPackPayer } from '../wechat/redpack.js'
import { findOwnOrder, payStateOf } from './service.js'

export const NEED_WECHAT = '请先绑定微信（使用微信登录一次）'
/** Sends one order's red packet: data {orderId}, id the packet's id. */
export const PAY_JOB = 'orders:pay'
/** Asks gethbinfo about an accepted packet: data {orderId, round}, id `${packetId}:check:${round}`. */
export const CHECK_JOB = 'orders:check'
/** The account-channel event carrying a packet's new state (the check-state answer's shape). */
export const PAY_EVENT = 'redpack'
const FINAL = ['FAILED', 'RECEIVED', 'REFUND']
/** Accepted by WeChat and still moving: checked until final. */
const OPEN = ['SENDING', 'SENT', 'RFUND_ING']
/** How many raw WeChat answers a packet keeps. */
const KEEP_RAW = 10

export interface PayTuning {
  /**
   * How long a 领取 holds the packet for its pay job (renewed by every try of the job). While held,
   * other requests wait for that job instead of starting another; a claim left by a dead node lapses.
   */
  claimMs: number
  /** Tries of one send in all (SYSTEMERROR, lost answers; the same mch_billno each time)… */
  sendAttempts: number
  /** …the first pause between them, doubling. */
  sendBackoffMs: number
  /** How long 领取 waits for its pay job before answering 发放中 (`paying: true`). */
  waitMs: number
  /** How often a waiting 领取 reads the row (a job of this process wakes it at once). */
  waitPollMs: number
  /** After WeChat accepts a packet, gethbinfo after `checkFirstMs`, doubling up to `checkMaxMs`, at most `checkRounds` times. */
  checkFirstMs: number
  checkMaxMs: number
  checkRounds: number
}

/** 60 rounds reach about 26 hours: past WeChat's 24 hours before an unopened packet is refunded. */
export const PAY_TUNING: PayTuning = {
  claimMs: 60_000,
  sendAttempts: 5,
  sendBackoffMs: 1000,
  waitMs: 5000,
  waitPollMs: 100,
  checkFirstMs: 5000,
  checkMaxMs: 30 * 60_000,
  checkRounds: 60
}

export interface PayServiceOptions {
  db: Db
  payer: RedPackPayer
  now: () => number
  logger: Logger
  jobs: JobQueue
  /** Where new pay states are published (the account channel). */
  bus: Pick<EventBus, 'publish'>
  /** mch_id for mch_billno (the demo payer uses a fixed one). */
  mchId: string
  tuning?: Partial<PayTuning>
  /** Queries demo packets (made before a real payer was configured, or by it). */
  demoDelayMs?: number
}

export interface PayResult {
  orderId: string
  payState: ReturnType<typeof payStateOf>
  /** A pay job is under way (payState is still `none`): 发放中, ask again shortly. */
  paying: boolean
  mchBillno: string
  amountFen: number
  demo: boolean
  failReason: string | null
}

export interface PacketStatus extends PayResult {
  sendTime: number | null
  receiveTime: number | null
}

interface PayJobData {
  orderId: string
}
interface CheckJobData {
  orderId: string
  round: number
}

export type PayService = ReturnType<typeof createPayService>

/** A pay job holds the packet (PENDING, claimed, the claim not lapsed). */
const paying = (p: RedPacket, t: number) => p.state === 'PENDING' && p.claimUntil !== null && p.claimUntil.getTime() > t

/**
 * Pays approved orders as red packets, at most once each, on the job queue: one red_packets row per
 * order (unique), one mch_billno per row (reused on every retry, so WeChat Pay deduplicates), one
 * `orders:pay` job per packet at a time (the claim of the 领取 that started it, and the job id),
 * then `orders:check` jobs following the accepted packet until it is received, refunded or failed.
 */
export function createPayService(o: PayServiceOptions) {
  const { db, payer, now, jobs, logger } = o
  const tune: PayTuning = { ...PAY_TUNING, ...o.tuning }
  const demoPayer = payer.demo ? payer : createDemoPayer({ now, delayMs: o.demoDelayMs ?? 3000 })
  /** Requests of this process waiting on a packet; woken when a job here ends with it. */
  const waiters = new Map<string, Set<() => void>>()

  const result = (orderId: string, p: RedPacket): PayResult => ({
    orderId,
    payState: payStateOf(p),
    paying: paying(p, now()),
    mchBillno: p.mchBillno,
    amountFen: p.amountFen,
    demo: p.demo,
    failReason: (p.state === 'PENDING' || p.state === 'FAILED') && !paying(p, now()) ? p.errMessage : null
  })
  const stateOf = (p: RedPacket): PacketStatus => ({ ...result(p.orderId, p), sendTime: p.sendTime?.getTime() ?? null, receiveTime: p.receiveTime?.getTime() ?? null })

  function publish(p: RedPacket) {
    o.bus.publish(p.accountId, { event: PAY_EVENT, data: { ...stateOf(p) } }).catch((error: unknown) => logger.warn('publishing a red packet state failed', { error: String(error) }))
  }

  function wake(packetId: string) {
    for (const fn of waiters.get(packetId) ?? []) fn()
  }

  /** Sleeps up to `ms`, or until a job of this process is done with the packet. */
  function nap(packetId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = waiters.get(packetId)
      if (!set) waiters.set(packetId, (set = new Set()))
      const done = () => {
        clearTimeout(timer)
        set.delete(done)
        if (set.size === 0 && waiters.get(packetId) === set) waiters.delete(packetId)
        resolve()
      }
      const timer = setTimeout(done, Math.max(1, ms))
      set.add(done)
    })
  }

  async function openidOf(accountId: string): Promise<string | undefined> {
    const [row] = await db
      .select({ openid: wechatIdentities.openid })
      .from(wechatIdentities)
      .where(eq(wechatIdentities.accountId, accountId))
      .orderBy(asc(wechatIdentities.id))
      .limit(1)
    return row?.openid
  }

  /** The order's packet, made on first call with a fresh mch_billno. */
  async function packetFor(accountId: string, orderId: string, amountFen: number): Promise<RedPacket> {
    const [existing] = await db.select().from(redPackets).where(eq(redPackets.orderId, orderId))
    if (existing) return existing
    let openid = await openidOf(accountId)
    if (!openid) {
      if (!payer.demo) throw new ApiError(40000001, NEED_WECHAT)
      // The demo payer moves no money: a placeholder stands in for an unbound account.
      openid = 'demo-openid'
    }
    const at = new Date(now())
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const [row] = await db
          .insert(redPackets)
          .values({
            id: randomUUID(),
            orderId,
            accountId,
            mchBillno: newMchBillno(o.mchId, now()),
            amountFen,
            openid,
            demo: payer.demo,
            state: 'PENDING',
            createdAt: at,
            updatedAt: at
          })
          .onConflictDoNothing({ target: redPackets.orderId })
          .returning()
        if (row) return row
        break
      } catch (error) {
        // The 10 random digits of mch_billno collided: draw again.
        if (!isUniqueViolation(error)) throw error
      }
    }
    const [raced] = await db.select().from(redPackets).where(eq(redPackets.orderId, orderId))
    if (!raced) throw new Error('red packet row vanished')
    return raced
  }

  const appendRaw = (raw: string) =>
    sql`(${redPackets.rawResponses} || array[${raw.slice(0, 4000)}]::text[])[greatest(1, cardinality(${redPackets.rawResponses}) + 2 - ${KEEP_RAW}):]`

  const checkDelay = (round: number) => Math.min(tune.checkMaxMs, tune.checkFirstMs * 2 ** Math.min(round, 30))

  async function addCheck(packet: RedPacket, round: number, delayMs = checkDelay(round)) {
    if (round >= tune.checkRounds) return
    await jobs
      .add<CheckJobData>(CHECK_JOB, { orderId: packet.orderId, round }, { id: `${packet.id}:check:${round}`, delayMs })
      .catch((error: unknown) => logger.warn('scheduling a red packet check failed', { mchBillno: packet.mchBillno, error: String(error) }))
  }

  /**
   * Asks WeChat Pay (gethbinfo) about a packet and saves what it says; final states are not changed
   * again. A PENDING packet found there was accepted after all (a lost answer): its checks start.
   */
  async function learn(packet: RedPacket): Promise<RedPacket> {
    const use = packet.demo ? demoPayer : payer
    const info = await use.query({ mchBillno: packet.mchBillno, sendTime: packet.sendTime?.getTime() ?? null })
    const at = new Date(now())
    if (info.kind === 'error') logger.warn('gethbinfo failed', { mchBillno: packet.mchBillno, errCode: info.errCode })
    if (info.kind !== 'found') return packet
    const [updated] = await db
      .update(redPackets)
      .set({
        state: info.state,
        sendTime: packet.sendTime ?? (info.sendTime === null ? at : new Date(info.sendTime)),
        receiveTime: info.receiveTime === null ? null : new Date(info.receiveTime),
        ...(info.state === 'FAILED' ? { errCode: 'FAILED', errMessage: info.reason ?? '红包发放失败，请联系客服' } : {}),
        ...(packet.demo ? {} : { rawResponses: appendRaw(info.raw) }),
        claimUntil: packet.state === 'PENDING' ? null : packet.claimUntil,
        updatedAt: at
      })
      .where(and(eq(redPackets.id, packet.id), sql`${redPackets.state} not in ('FAILED', 'RECEIVED', 'REFUND')`))
      .returning()
    if (!updated) return packet
    if (updated.state !== packet.state || updated.receiveTime?.getTime() !== packet.receiveTime?.getTime()) publish(updated)
    if (packet.state === 'PENDING' && OPEN.includes(updated.state)) await addCheck(updated, 0)
    return updated
  }

  /**
   * `orders:pay`: one try at sending the packet, as the 領取 that claimed it asked. Idempotent: a
   * packet already accepted, or no longer asked for (claim released), is left alone; a try taken
   * over from a dead node sends the same mch_billno again, which WeChat answers with the same packet.
   */
  async function runPay(data: PayJobData, job: JobContext): Promise<void> {
    const [packet] = await db.select().from(redPackets).where(eq(redPackets.orderId, data.orderId))
    if (!packet) return
    try {
      await payOnce(packet, job)
    } finally {
      wake(packet.id)
    }
  }

  async function payOnce(packet: RedPacket, job: JobContext): Promise<void> {
    const t = now()
    if (packet.state !== 'PENDING' || packet.claimUntil === null) return
    if (packet.retryAfter && packet.retryAfter.getTime() > t) return
    const { activity } = await findOwnOrder(db, packet.accountId, packet.orderId)
    // Renew the hold for this try (a lapsed one is a dead node's: this job takes it over).
    const [claimed] = await db
      .update(redPackets)
      .set({ claimUntil: new Date(t + tune.claimMs), attempts: sql`${redPackets.attempts} + 1`, updatedAt: new Date(t) })
      .where(and(eq(redPackets.id, packet.id), eq(redPackets.state, 'PENDING'), isNotNull(redPackets.claimUntil)))
      .returning()
    if (!claimed) return
    const outcome = await (claimed.demo ? demoPayer : payer).send({
      mchBillno: claimed.mchBillno,
      openid: claimed.openid,
      amountFen: claimed.amountFen,
      wishing: '感谢参与，奖励已到账',
      actName: '灵犀接单奖励',
      remark: activity.title.slice(0, 200)
    })
    const at = new Date(now())
    if (outcome.kind === 'sent') {
      const [row] = await db
        .update(redPackets)
        .set({
          state: 'SENDING',
          sendListid: outcome.sendListid,
          sendTime: at,
          claimUntil: null,
          retryAfter: null,
          errCode: null,
          errMessage: null,
          rawResponses: appendRaw(outcome.raw),
          updatedAt: at
        })
        .where(and(eq(redPackets.id, claimed.id), eq(redPackets.state, 'PENDING')))
        .returning()
      if (row) {
        publish(row)
        await addCheck(row, 0)
      }
      return
    }
    const immediate = outcome.kind === 'retry' && outcome.backoffMs === 0
    if (immediate && job.attempt < job.attempts) {
      // SYSTEMERROR, a lost answer: the queue tries again with the same mch_billno; the hold covers the pause.
      const pause = tune.sendBackoffMs * 2 ** (job.attempt - 1)
      await db
        .update(redPackets)
        .set({ claimUntil: new Date(at.getTime() + pause + tune.claimMs), errCode: outcome.errCode, errMessage: outcome.message, rawResponses: appendRaw(outcome.raw), updatedAt: at })
        .where(and(eq(redPackets.id, claimed.id), eq(redPackets.state, 'PENDING')))
      logger.warn('red packet send will be retried', { mchBillno: claimed.mchBillno, errCode: outcome.errCode, attempt: job.attempt })
      throw new Error(`sendredpack answered ${outcome.errCode}`)
    }
    if (immediate) {
      // The last try: WeChat may have made the packet after all.
      const learnt = await learn(claimed)
      if (learnt.state !== 'PENDING') return
    }
    logger.warn('red packet not sent', { mchBillno: claimed.mchBillno, errCode: outcome.errCode, kind: outcome.kind })
    const [row] = await db
      .update(redPackets)
      .set({
        ...(outcome.kind === 'failed' ? { state: 'FAILED' } : {}),
        claimUntil: null,
        retryAfter: outcome.kind === 'retry' && outcome.backoffMs > 0 ? new Date(at.getTime() + outcome.backoffMs) : null,
        errCode: outcome.errCode,
        errMessage: outcome.message,
        rawResponses: appendRaw(outcome.raw),
        updatedAt: at
      })
      .where(and(eq(redPackets.id, claimed.id), eq(redPackets.state, 'PENDING')))
      .returning()
    if (row) publish(row)
  }

  /** `orders:check`: one gethbinfo, then the next round unless the packet is final. */
  async function runCheck(data: CheckJobData): Promise<void> {
    const [packet] = await db.select().from(redPackets).where(eq(redPackets.orderId, data.orderId))
    if (!packet || !OPEN.includes(packet.state)) return
    const row = await learn(packet)
    if (!FINAL.includes(row.state)) await addCheck(row, data.round + 1)
  }

  /** Reads the packet until its pay job is done with it, or `waitMs` has passed. */
  async function settle(packetId: string): Promise<RedPacket> {
    const deadline = Date.now() + tune.waitMs
    for (;;) {
      const [row] = await db.select().from(redPackets).where(eq(redPackets.id, packetId))
      if (!row) throw new Error('red packet row vanished')
      const left = deadline - Date.now()
      if (!paying(row, now()) || left <= 0) return row
      await nap(packetId, Math.min(tune.waitPollMs, left))
    }
  }

  /**
   * 领取: starts the packet's pay job unless one is under way, and waits briefly for its outcome.
   * Answers the packet (accepted: SENDING…; still being sent: `paying`), or the refusal of this
   * attempt as an error (FREQ_LIMIT 42900001, others 50200001), like the synchronous send did.
   */
  async function send(accountId: string, orderId: string): Promise<PayResult> {
    const { order } = await findOwnOrder(db, accountId, orderId)
    if (order.status !== 'approved') throw new ApiError(40000001, '订单审核通过后才能领取红包')
    const packet = await packetFor(accountId, order.id, order.rewardFen)
    if (packet.state !== 'PENDING') return result(order.id, packet)
    const t = now()
    if (!paying(packet, t)) {
      if (packet.retryAfter && packet.retryAfter.getTime() > t) {
        const seconds = Math.ceil((packet.retryAfter.getTime() - t) / 1000)
        throw new ApiError(42900001, `${packet.errMessage ?? '红包发放过于频繁'}（请 ${seconds} 秒后再试）`)
      }
      const until = new Date(t + tune.claimMs)
      const [claimed] = await db
        .update(redPackets)
        .set({ claimUntil: until, errCode: null, errMessage: null, updatedAt: new Date(t) })
        .where(
          and(
            eq(redPackets.id, packet.id),
            eq(redPackets.state, 'PENDING'),
            or(isNull(redPackets.claimUntil), lte(redPackets.claimUntil, new Date(t))),
            or(isNull(redPackets.retryAfter), lte(redPackets.retryAfter, new Date(t)))
          )
        )
        .returning()
      // Not claimed: another request (on any node) started the job a moment ago; wait for it below.
      if (claimed) {
        try {
          await jobs.add<PayJobData>(PAY_JOB, { orderId: order.id }, { id: packet.id, attempts: tune.sendAttempts, backoffMs: tune.sendBackoffMs })
        } catch (error) {
          await db
            .update(redPackets)
            .set({ claimUntil: null })
            .where(and(eq(redPackets.id, packet.id), eq(redPackets.claimUntil, until)))
          throw error
        }
      }
    }
    const row = await settle(packet.id)
    if (row.state === 'FAILED' && row.errCode) throw new ApiError(50200001, row.errMessage ?? '红包发放失败，请联系客服')
    if (row.state === 'PENDING' && !paying(row, now()) && row.errCode) {
      throw new ApiError(row.errCode === 'FREQ_LIMIT' ? 42900001 : 50200001, row.errMessage ?? '红包暂未发出，请稍后再试')
    }
    return result(order.id, row)
  }

  /** The packet's state as WeChat Pay reports it (gethbinfo), saved; final states are not asked again. */
  async function checkState(accountId: string, orderId: string): Promise<PacketStatus> {
    const { order, packet } = await findOwnOrder(db, accountId, orderId)
    if (!packet) {
      return { orderId: order.id, payState: 'none', paying: false, mchBillno: '', amountFen: order.rewardFen, demo: false, failReason: null, sendTime: null, receiveTime: null }
    }
    let row = packet
    // A PENDING packet that was tried may have been accepted after all (SYSTEMERROR, lost answer);
    // one whose pay job is under way is that job's to settle.
    const ask = !FINAL.includes(packet.state) && !paying(packet, now()) && !(packet.state === 'PENDING' && packet.attempts === 0)
    if (ask) row = await learn(packet)
    return stateOf(row)
  }

  /**
   * Memory engine, at start: the jobs of the last run died with it. Payments that were asked for
   * (still claimed) are sent again (same mch_billno); accepted packets are checked again, at the
   * round their age has reached. With BullMQ the jobs are still in Redis: nothing to do.
   */
  async function resume(): Promise<{ payments: number; checks: number }> {
    if (jobs.engine !== 'memory') return { payments: 0, checks: 0 }
    const asked = await db
      .select()
      .from(redPackets)
      .where(and(eq(redPackets.state, 'PENDING'), isNotNull(redPackets.claimUntil)))
    for (const p of asked) {
      await jobs.add<PayJobData>(PAY_JOB, { orderId: p.orderId }, { id: p.id, attempts: tune.sendAttempts, backoffMs: tune.sendBackoffMs })
    }
    const open = await db.select().from(redPackets).where(inArray(redPackets.state, OPEN))
    const t = now()
    for (const p of open) {
      let round = 0
      let due = (p.sendTime ?? p.updatedAt).getTime() + checkDelay(0)
      while (due <= t && round + 1 < tune.checkRounds) due += checkDelay(++round)
      await addCheck(p, round, Math.max(0, due - t))
    }
    return { payments: asked.length, checks: open.length }
  }

  jobs.define<PayJobData>(PAY_JOB, runPay, { concurrency: 4 })
  jobs.define<CheckJobData>(CHECK_JOB, (data) => runCheck(data), { concurrency: 4 })

  return { send, checkState, resume }
}
