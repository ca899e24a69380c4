import { randomUUID } from 'node:crypto'
import { and, asc, eq, isNull, lte, or, sql } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { isUniqueViolation } from '../db/errors.js'
import { type RedPacket, redPackets, wechatIdentities } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { Logger } from '../logger.js'
import { createDemoPayer, newMchBillno, type RedPackPayer, type SendOutcome } from '../wechat/redpack.js'
import { findOwnOrder, payStateOf } from './service.js'

export const NEED_WECHAT = '请先绑定微信（使用微信登录一次）'
const FINAL = ['FAILED', 'RECEIVED', 'REFUND']
/** How many raw WeChat answers a packet keeps. */
const KEEP_RAW = 10

export interface PayServiceOptions {
  db: Db
  payer: RedPackPayer
  now: () => number
  logger: Logger
  /** mch_id for mch_billno (the demo payer uses a fixed one). */
  mchId: string
  /** How long one caller may hold a packet while it talks to WeChat. */
  claimMs?: number
  /** Pauses between immediate retries of a SYSTEMERROR (same mch_billno); tests pass 0. */
  retryDelaysMs?: number[]
  /** Queries demo packets (made before a real payer was configured, or by it). */
  demoDelayMs?: number
}

export interface PayResult {
  orderId: string
  payState: ReturnType<typeof payStateOf>
  mchBillno: string
  amountFen: number
  demo: boolean
  failReason: string | null
}

export type PayService = ReturnType<typeof createPayService>

/**
 * Pays approved orders as red packets, at most once each: one red_packets row per order (unique),
 * one mch_billno per row (reused on every retry, so WeChat Pay deduplicates), and a claim
 * (conditional UPDATE) so only one caller at a time sends it.
 */
export function createPayService(o: PayServiceOptions) {
  const { db, payer, now } = o
  const claimMs = o.claimMs ?? 60_000
  const delays = o.retryDelaysMs ?? [300, 1000]
  const demoPayer = payer.demo ? payer : createDemoPayer({ now, delayMs: o.demoDelayMs ?? 3000 })
  const sleep = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve())

  const result = (orderId: string, p: RedPacket): PayResult => ({
    orderId,
    payState: payStateOf(p),
    mchBillno: p.mchBillno,
    amountFen: p.amountFen,
    demo: p.demo,
    failReason: p.state === 'PENDING' || p.state === 'FAILED' ? p.errMessage : null
  })

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

  async function send(accountId: string, orderId: string): Promise<PayResult> {
    const { order, activity } = await findOwnOrder(db, accountId, orderId)
    if (order.status !== 'approved') throw new ApiError(40000001, '订单审核通过后才能领取红包')
    const packet = await packetFor(accountId, order.id, order.rewardFen)
    if (packet.state !== 'PENDING') return result(order.id, packet)
    const t = now()
    if (packet.retryAfter && packet.retryAfter.getTime() > t) {
      const seconds = Math.ceil((packet.retryAfter.getTime() - t) / 1000)
      throw new ApiError(42900001, `${packet.errMessage ?? '红包发放过于频繁'}（请 ${seconds} 秒后再试）`)
    }
    const [claimed] = await db
      .update(redPackets)
      .set({ claimUntil: new Date(t + claimMs), attempts: sql`${redPackets.attempts} + 1`, updatedAt: new Date(t) })
      .where(
        and(
          eq(redPackets.id, packet.id),
          eq(redPackets.state, 'PENDING'),
          or(isNull(redPackets.claimUntil), lte(redPackets.claimUntil, new Date(t))),
          or(isNull(redPackets.retryAfter), lte(redPackets.retryAfter, new Date(t)))
        )
      )
      .returning()
    if (!claimed) {
      // Another request is sending this packet right now: report what is known.
      const [current] = await db.select().from(redPackets).where(eq(redPackets.id, packet.id))
      return result(order.id, current ?? packet)
    }
    const use = claimed.demo ? demoPayer : payer
    let outcome: SendOutcome
    for (let i = 0; ; i++) {
      outcome = await use.send({
        mchBillno: claimed.mchBillno,
        openid: claimed.openid,
        amountFen: claimed.amountFen,
        wishing: '感谢参与，奖励已到账',
        actName: '灵犀接单奖励',
        remark: activity.title.slice(0, 200)
      })
      // SYSTEMERROR and lost connections: try again at once with the same mch_billno.
      if (outcome.kind !== 'retry' || outcome.backoffMs > 0 || i >= delays.length) break
      o.logger.warn('red packet send will be retried', { mchBillno: claimed.mchBillno, errCode: outcome.errCode })
      await sleep(delays[i] ?? 0)
    }
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
      const [current] = row ? [row] : await db.select().from(redPackets).where(eq(redPackets.id, claimed.id))
      return result(order.id, current ?? claimed)
    }
    o.logger.warn('red packet not sent', { mchBillno: claimed.mchBillno, errCode: outcome.errCode, kind: outcome.kind })
    await db
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
    if (outcome.kind === 'retry' && outcome.errCode === 'FREQ_LIMIT') throw new ApiError(42900001, outcome.message)
    throw new ApiError(50200001, outcome.message)
  }

  /** The packet's state as WeChat Pay reports it (gethbinfo), saved; final states are not asked again. */
  async function checkState(accountId: string, orderId: string) {
    const { order, packet } = await findOwnOrder(db, accountId, orderId)
    if (!packet) {
      return { orderId: order.id, payState: 'none' as const, mchBillno: '', amountFen: order.rewardFen, demo: false, failReason: null, sendTime: null, receiveTime: null }
    }
    let row = packet
    // A PENDING packet that was tried may have been accepted after all (SYSTEMERROR, lost answer).
    const ask = !FINAL.includes(packet.state) && !(packet.state === 'PENDING' && packet.attempts === 0)
    if (ask) {
      const use = packet.demo ? demoPayer : payer
      const info = await use.query({ mchBillno: packet.mchBillno, sendTime: packet.sendTime?.getTime() ?? null })
      const at = new Date(now())
      if (info.kind === 'found') {
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
        if (updated) row = updated
      } else if (info.kind === 'error') {
        o.logger.warn('gethbinfo failed', { mchBillno: packet.mchBillno, errCode: info.errCode })
      }
    }
    return { ...result(order.id, row), sendTime: row.sendTime?.getTime() ?? null, receiveTime: row.receiveTime?.getTime() ?? null }
  }

  return { send, checkState }
}
