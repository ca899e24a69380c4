import { and, eq, isNotNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import type { RedPacket } from '../../db/schema.js'
import { redPackets } from '../../db/schema.js'
import type { JobContext, JobQueue } from '../../jobs/queue.js'
import type { Logger } from '../../logger.js'
import type { RedPackPayer } from '../../wechat/redpack.js'
import { appendRaw, CHECK_JOB, type CheckJobData, FINAL, OPEN, PAY_JOB, type PayJobData, type PayTuning } from './packets.js'
import { findOwnOrder } from './service.js'

/**
 * The job side of red packets: `orders:pay` (one try at sendredpack, same mch_billno every time)
 * and `orders:check` (gethbinfo until the packet is final), and learning a packet's state from
 * WeChat Pay. `publish` announces a new state; `wake` tells this process's waiting 领取 a pay job
 * is done with the packet.
 */
export function createPayJobs(o: {
  db: Db
  payer: RedPackPayer
  /** Answers for packets made by the demo payer (whatever payer is configured now). */
  demoPayer: RedPackPayer
  now: () => number
  logger: Logger
  jobs: JobQueue
  tune: PayTuning
  publish(p: RedPacket): void
  wake(packetId: string): void
}) {
  const { db, payer, demoPayer, now, logger, jobs, tune, publish, wake } = o

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
        .set({
          claimUntil: new Date(at.getTime() + pause + tune.claimMs),
          errCode: outcome.errCode,
          errMessage: outcome.message,
          rawResponses: appendRaw(outcome.raw),
          updatedAt: at
        })
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

  /** Defines both handlers on the queue. */
  function define(queue: JobQueue) {
    queue.define<PayJobData>(PAY_JOB, runPay, { concurrency: 4 })
    queue.define<CheckJobData>(CHECK_JOB, (data) => runCheck(data), { concurrency: 4 })
  }

  return { learn, addCheck, checkDelay, define }
}
