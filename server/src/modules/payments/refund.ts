import { and, eq, sql } from 'drizzle-orm'
import { balanceOf, lock, spend } from '../../allowances/ledger.js'
import type { AllowanceRegistry } from '../../allowances/registry.js'
import type { Db } from '../../db/database.js'
import { type PayOrder, payOrders } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import type { PayProvider } from './provider.js'

export const refundReason = (o: Pick<PayOrder, 'packageName' | 'id'>) => `退款：${o.packageName}（订单 ${o.id}）`

export interface RefundDeps {
  db: Db
  now: () => number
  logger: Logger
  registry: AllowanceRegistry
  provider(name: string): PayProvider
  publish(order: PayOrder): void
}

/**
 * Refunds a paid order, fully or in part, at its provider, then takes back the same share of
 * what it granted — at most what is left of each kind — with a line in the balance log.
 */
export async function refundOrder(d: RefundDeps, orderId: string, amountFen?: number, reason = '用户申请退款'): Promise<PayOrder> {
  const { db, now, logger } = d
  const [order] = await db.select().from(payOrders).where(eq(payOrders.id, orderId))
  if (!order) throw new ApiError(40400001, '订单不存在')
  if (order.status !== 'paid') throw new ApiError(40000001, '只有已支付的订单可以退款')
  const left = order.amountFen - order.refundedFen
  const fen = amountFen ?? left
  if (!Number.isSafeInteger(fen) || fen <= 0 || fen > left) throw new ApiError(40000001, `退款金额必须在 1 到 ${left} 分之间`)
  const p = d.provider(order.provider)
  // The same state asks the same refund number again: a retry after a lost answer is one refund.
  const refundId = `${order.id}R${order.refundedFen}`
  await p.refund({ orderId: order.id, refundId, amountFen: fen, totalFen: order.amountFen, reason })
  const at = new Date(now())
  const done = await db.transaction(async (tx) => {
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
      .where(and(eq(payOrders.id, orderId), eq(payOrders.status, 'paid'), sql`${payOrders.refundedFen} + ${fen} <= ${payOrders.amountFen}`))
      .returning()
    if (!row) throw new ApiError(40000001, '订单状态已变化，请刷新后重试')
    for (const [kind, granted] of grants) {
      const share =
        row.status === 'refunded' ? granted - Math.floor((granted * order.refundedFen) / order.amountFen) : Math.floor((granted * fen) / order.amountFen)
      const { balance } = await balanceOf(tx, order.accountId, kind)
      const take = Math.min(share, balance)
      const k = d.registry.kinds.find((x) => x.id === kind)
      if (take > 0 && k) await spend(tx, order.accountId, k, take, refundReason(order), at)
    }
    return row
  })
  logger.info('order refunded', { orderId, amountFen: fen, provider: order.provider })
  d.publish(done)
  return done
}
