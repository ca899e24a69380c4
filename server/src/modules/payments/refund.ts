import { and, eq, sql } from 'drizzle-orm'
import { balanceOf, lock, spend } from '../../allowances/ledger.js'
import type { AllowanceRegistry } from '../../allowances/registry.js'
import type { Db, Tx } from '../../db/database.js'
import { type PayOrder, payOrders } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import type { PayProvider, RefundNotice } from './provider.js'

export const refundReason = (o: Pick<PayOrder, 'packageName' | 'id'>) => `退款：${o.packageName}（订单 ${o.id}）`

/** Our refund number: the order, and what was refunded before it — the same state asks the same refund again. */
export const refundNumber = (o: Pick<PayOrder, 'id' | 'refundedFen'>) => `${o.id}R${o.refundedFen}`

export interface RefundDeps {
  db: Db
  now: () => number
  logger: Logger
  registry: AllowanceRegistry
  provider(name: string): PayProvider
  publish(order: PayOrder): void
}

/**
 * Moves `fen` of a paid order to refunded — only if nothing was refunded since `before` (the
 * compare-and-set that makes a refund apply once, whether the console's call or the provider's
 * notify gets there first) — and takes back the same share of what it granted: at most what is
 * left of each kind, so a balance never goes below zero (what the user already spent stays spent;
 * the log line shows what was taken). Answers the order, or undefined when it was not applied.
 */
async function takeBack(d: RefundDeps, order: PayOrder, fen: number, before: number, applied?: OnApplied): Promise<PayOrder | undefined> {
  const at = new Date(d.now())
  const done = await d.db.transaction(async (tx) => {
    const grants = Object.entries(order.grants).filter(([, v]) => v > 0)
    await lock(
      tx,
      [order.accountId],
      grants.map(([kind]) => kind)
    )
    const [row] = await tx
      .update(payOrders)
      .set({
        refundedFen: sql`${payOrders.refundedFen} + ${fen}`,
        status: sql`case when ${payOrders.refundedFen} + ${fen} >= ${payOrders.amountFen} then 'refunded' else 'paid' end`,
        refundedAt: at,
        updatedAt: at
      })
      .where(
        and(
          eq(payOrders.id, order.id),
          eq(payOrders.status, 'paid'),
          eq(payOrders.refundedFen, before),
          sql`${payOrders.refundedFen} + ${fen} <= ${payOrders.amountFen}`
        )
      )
      .returning()
    if (!row) return undefined
    for (const [kind, granted] of grants) {
      const share = row.status === 'refunded' ? granted - Math.floor((granted * before) / order.amountFen) : Math.floor((granted * fen) / order.amountFen)
      const { balance } = await balanceOf(tx, order.accountId, kind)
      const take = Math.min(share, balance)
      const k = d.registry.kinds.find((x) => x.id === kind)
      if (take > 0 && k) await spend(tx, order.accountId, k, take, refundReason(order), at)
    }
    await applied?.(tx, row)
    return row
  })
  if (done) d.publish(done)
  return done
}

/**
 * Refunds a paid order, fully or in part, at its provider, then takes back the same share of
 * what it granted (takeBack). Its notify (REFUND.SUCCESS) may come first: then it is applied already.
 */
/** Runs in the transaction that applies a refund (the console's audit entry), so both are kept or neither. */
export type OnApplied = (tx: Tx, order: PayOrder) => Promise<void>

export async function refundOrder(d: RefundDeps, orderId: string, amountFen?: number, reason = '用户申请退款', applied?: OnApplied): Promise<PayOrder> {
  const { db, logger } = d
  const [order] = await db.select().from(payOrders).where(eq(payOrders.id, orderId))
  if (!order) throw new ApiError(40400001, '订单不存在')
  if (order.status !== 'paid') throw new ApiError(40000001, '只有已支付的订单可以退款')
  const left = order.amountFen - order.refundedFen
  const fen = amountFen ?? left
  if (!Number.isSafeInteger(fen) || fen <= 0 || fen > left) throw new ApiError(40000001, `退款金额必须在 1 到 ${left} 分之间`)
  const p = d.provider(order.provider)
  await p.refund({ orderId: order.id, refundId: refundNumber(order), amountFen: fen, totalFen: order.amountFen, reason })
  const done = await takeBack(d, order, fen, order.refundedFen, applied)
  if (!done) {
    // Someone applied this very refund number meanwhile (its notify, the same refund asked twice):
    // the refund asked here is done, so what runs with it still runs, in a transaction of its own.
    const [now_] = await db.select().from(payOrders).where(eq(payOrders.id, orderId))
    if (now_ && now_.refundedFen >= order.refundedFen + fen) {
      if (applied) await db.transaction((tx) => applied(tx, now_))
      return now_
    }
    throw new ApiError(40000001, '订单状态已变化，请刷新后重试')
  }
  logger.info('order refunded', { orderId, amountFen: fen, provider: order.provider })
  return done
}

/**
 * A verified refund notify: applied once. Our own refunds (number `<id>R<before>`) apply when
 * nothing else was refunded since `before`, so the console's call and its notify apply once
 * between them; Alipay's refunded-so-far total applies the difference; a full refund made at the
 * merchant platform applies once (the order is then refunded). A partial refund made outside
 * Lingxi on WeChat Pay carries nothing that tells a retry from a second refund: it is logged for
 * the operator and not applied. A failed or closed refund is logged (an error: what was taken back
 * for it stays taken back; the operator decides). Answers false when the notify is not the order's.
 */
export async function applyRefundNotice(d: RefundDeps, n: { orderId: string; amountFen: number; provider: string; refund: RefundNotice }): Promise<boolean> {
  const { db, logger } = d
  const [order] = await db.select().from(payOrders).where(eq(payOrders.id, n.orderId))
  if (!order) {
    logger.warn('refund notify for an unknown order', { provider: n.provider, orderId: n.orderId.slice(0, 64) })
    return false
  }
  if (order.provider !== n.provider || order.amountFen !== n.amountFen) {
    logger.warn('refund notify does not match its order', { orderId: order.id, provider: n.provider, amountFen: n.amountFen })
    return false
  }
  const r = n.refund
  if (!r.ok) {
    logger.error('a refund failed or was closed at the provider', { orderId: order.id, refundNo: r.refundNo.slice(0, 64), provider: n.provider })
    return true
  }
  if (order.status !== 'paid') return true // refunded in full already (or never paid: nothing to take back)
  const ours = new RegExp(`^${order.id}R(\\d+)$`).exec(r.refundNo)
  let fen: number
  let before = order.refundedFen
  if (r.totalRefundedFen !== undefined) {
    fen = Math.min(r.totalRefundedFen, order.amountFen) - order.refundedFen
  } else if (ours) {
    before = Number(ours[1])
    fen = before === order.refundedFen ? (r.amountFen ?? 0) : 0
  } else if (r.amountFen === order.amountFen - order.refundedFen) {
    fen = r.amountFen
  } else {
    logger.warn('a partial refund made outside Lingxi is not applied; take the allowance back by hand', {
      orderId: order.id,
      refundNo: r.refundNo.slice(0, 64),
      amountFen: r.amountFen
    })
    return true
  }
  if (fen <= 0) return true // applied before (the console's call, or this notify's first copy)
  const done = await takeBack(d, order, fen, before)
  if (done) logger.info('order refunded', { orderId: order.id, amountFen: fen, provider: n.provider, via: 'notify' })
  return true
}
