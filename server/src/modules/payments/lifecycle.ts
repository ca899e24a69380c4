import { and, eq } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import { type PayOrder, payOrders } from '../../db/schema.js'
import type { Logger } from '../../logger.js'
import { type PayProvider, ProviderError } from './provider.js'
import type { ProviderName } from './wire.js'

export interface LifecycleDeps {
  db: Db
  now: () => number
  logger: Logger
  providers: ReadonlyMap<ProviderName, PayProvider>
  credit(orderId: string, info: { amountFen: number; providerTradeNo: string; provider: string }, via: string): Promise<PayOrder | undefined>
  publish(order: PayOrder): void
}

/**
 * What happens to a pending order besides its notify: an active query (sync), closing it at its
 * time (expire), and the periodic pass over every pending order (reconcile).
 */
export function createLifecycle(o: LifecycleDeps) {
  const { db, now, logger, credit, publish } = o

  /** Asks the provider about a pending order and credits it when paid; answers the order as it is now. */
  async function sync(orderId: string): Promise<PayOrder | undefined> {
    const [order] = await db.select().from(payOrders).where(eq(payOrders.id, orderId))
    if (order?.status !== 'pending') return order
    const p = o.providers.get(order.provider as ProviderName)
    if (!p || p.demo) return order
    const q = await p.query(order.id)
    if (q.state === 'paid')
      await credit(order.id, { amountFen: q.amountFen, providerTradeNo: q.providerTradeNo, provider: p.name }, 'query').catch(() => undefined)
    const [now_] = await db.select().from(payOrders).where(eq(payOrders.id, orderId))
    return now_
  }

  /** An order past its time: closed at the provider, then here; paid after all: credited instead. */
  async function expire(orderId: string): Promise<void> {
    const [order] = await db.select().from(payOrders).where(eq(payOrders.id, orderId))
    if (order?.status !== 'pending' || order.expiresAt.getTime() > now()) return
    const p = o.providers.get(order.provider as ProviderName)
    if (p && !p.demo) {
      const q = await p.query(order.id)
      if (q.state === 'paid') {
        await credit(order.id, { amountFen: q.amountFen, providerTradeNo: q.providerTradeNo, provider: p.name }, 'expiry query').catch(() => undefined)
        return
      }
      if ((await p.close(order.id)) === 'paid') {
        await sync(order.id)
        return
      }
    }
    const at = new Date(now())
    const [closed] = await db
      .update(payOrders)
      .set({ status: 'closed', closedAt: at, updatedAt: at })
      .where(and(eq(payOrders.id, orderId), eq(payOrders.status, 'pending')))
      .returning()
    if (closed) publish(closed)
  }

  /** Pending orders: those past their time are expired, the others asked about (their notify may be lost). */
  async function reconcile(limit = 200): Promise<{ expired: number; asked: number }> {
    const rows = await db.select().from(payOrders).where(eq(payOrders.status, 'pending')).orderBy(payOrders.expiresAt).limit(limit)
    let expired = 0
    let asked = 0
    for (const r of rows) {
      try {
        if (r.expiresAt.getTime() <= now()) {
          await expire(r.id)
          expired++
        } else if (!o.providers.get(r.provider as ProviderName)?.demo && now() - r.createdAt.getTime() >= 60_000) {
          await sync(r.id)
          asked++
        }
      } catch (error) {
        logger.warn('reconciling an order failed', { orderId: r.id, error: error instanceof ProviderError ? error.message : String(error) })
      }
    }
    return { expired, asked }
  }

  return { sync, expire, reconcile }
}
