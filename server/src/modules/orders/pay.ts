import { and, eq, inArray, isNotNull, isNull, lte, or } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import { type RedPacket, redPackets } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import type { EventBus } from '../../events/bus.js'
import type { JobQueue } from '../../jobs/queue.js'
import type { Logger } from '../../logger.js'
import { createDemoPayer, type RedPackPayer } from '../../wechat/redpack.js'
import { createPayJobs } from './pay-jobs.js'
import { FINAL, OPEN, PAY_EVENT, PAY_JOB, PAY_TUNING, type PayJobData, type PayTuning, packetFor, paying } from './packets.js'
import { findOwnOrder, payStateOf } from './service.js'

export type { PayTuning } from './packets.js'

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

export type PayService = ReturnType<typeof createPayService>

/**
 * Pays approved orders as red packets, at most once each, on the job queue: one red_packets row per
 * order (unique), one mch_billno per row (reused on every retry, so WeChat Pay deduplicates), one
 * `orders:pay` job per packet at a time (the claim of the 领取 that started it, and the job id),
 * then `orders:check` jobs following the accepted packet until it is received, refunded or failed
 * (pay-jobs.ts). Call defineJobs(queue) once.
 */
export function createPayService(o: PayServiceOptions) {
  const { db, payer, now, jobs } = o
  const logger = o.logger
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
  const stateOf = (p: RedPacket): PacketStatus => ({
    ...result(p.orderId, p),
    sendTime: p.sendTime?.getTime() ?? null,
    receiveTime: p.receiveTime?.getTime() ?? null
  })

  function publish(p: RedPacket) {
    o.bus
      .publish(p.accountId, { event: PAY_EVENT, data: { ...stateOf(p) } })
      .catch((error: unknown) => logger.warn('publishing a red packet state failed', { error: String(error) }))
  }

  function wake(packetId: string) {
    for (const fn of waiters.get(packetId) ?? []) fn()
  }

  /** Sleeps up to `ms`, or until a job of this process is done with the packet. */
  function nap(packetId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = waiters.get(packetId)
      if (!set) {
        set = new Set()
        waiters.set(packetId, set)
      }
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

  const payJobs = createPayJobs({ db, payer, demoPayer, now, logger, jobs, tune, publish, wake })
  const { learn, addCheck, checkDelay } = payJobs

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
    const packet = await packetFor({ db, now, mchId: o.mchId, demo: payer.demo }, accountId, order.id, order.rewardFen)
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
      return {
        orderId: order.id,
        payState: 'none',
        paying: false,
        mchBillno: '',
        amountFen: order.rewardFen,
        demo: false,
        failReason: null,
        sendTime: null,
        receiveTime: null
      }
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

  return { send, checkState, resume, defineJobs: payJobs.define }
}
