import { randomUUID } from 'node:crypto'
import { asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import { isUniqueViolation } from '../../db/errors.js'
import { type RedPacket, redPackets, wechatIdentities } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { newMchBillno } from '../../wechat/redpack.js'

export const NEED_WECHAT = '请先绑定微信（使用微信登录一次）'
/** Sends one order's red packet: data {orderId}, id the packet's id. */
export const PAY_JOB = 'orders:pay'
/** Asks gethbinfo about an accepted packet: data {orderId, round}, id `${packetId}:check:${round}`. */
export const CHECK_JOB = 'orders:check'
/** The account-channel event carrying a packet's new state (the check-state answer's shape). */
export const PAY_EVENT = 'redpack'
export const FINAL = ['FAILED', 'RECEIVED', 'REFUND']
/** Accepted by WeChat and still moving: checked until final. */
export const OPEN = ['SENDING', 'SENT', 'RFUND_ING']
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

export interface PayJobData {
  orderId: string
}
export interface CheckJobData {
  orderId: string
  round: number
}

/** A pay job holds the packet (PENDING, claimed, the claim not lapsed). */
export const paying = (p: RedPacket, t: number) => p.state === 'PENDING' && p.claimUntil !== null && p.claimUntil.getTime() > t

/** Appends one raw WeChat answer to the packet's, keeping the last KEEP_RAW (an UPDATE's SET value). */
export const appendRaw = (raw: string) =>
  sql`(${redPackets.rawResponses} || array[${raw.slice(0, 4000)}]::text[])[greatest(1, cardinality(${redPackets.rawResponses}) + 2 - ${KEEP_RAW}):]`

async function openidOf(db: Db, accountId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ openid: wechatIdentities.openid })
    .from(wechatIdentities)
    .where(eq(wechatIdentities.accountId, accountId))
    .orderBy(asc(wechatIdentities.id))
    .limit(1)
  return row?.openid
}

/** The order's packet, made on first call with a fresh mch_billno. */
export async function packetFor(
  o: { db: Db; now: () => number; mchId: string; demo: boolean },
  accountId: string,
  orderId: string,
  amountFen: number
): Promise<RedPacket> {
  const { db, now } = o
  const [existing] = await db.select().from(redPackets).where(eq(redPackets.orderId, orderId))
  if (existing) return existing
  let openid = await openidOf(db, accountId)
  if (!openid) {
    if (!o.demo) throw new ApiError(40000001, NEED_WECHAT)
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
          demo: o.demo,
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
