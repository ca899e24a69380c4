import { randomBytes } from 'node:crypto'
import { and, count, desc, eq, inArray } from 'drizzle-orm'
import { grant, lock } from '../../allowances/ledger.js'
import type { AllowanceRegistry } from '../../allowances/registry.js'
import type { Db } from '../../db/database.js'
import { type PayOrder, payOrders, payPackages, wechatIdentities } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import type { EventBus } from '../../events/bus.js'
import { type PageRequest, readPage } from '../../http/fields.js'
import type { Logger } from '../../logger.js'
import { createLifecycle } from './lifecycle.js'
import { applyRefundNotice, type OnApplied, refundOrder } from './refund.js'
import { type NotifyAnswer, type PayProvider, ProviderError, type RawNotify } from './provider.js'
import type { OrderStatus, ProviderName, Scene } from './wire.js'

export const PAY_EVENT = 'pay'

/** `LX` + China time to the second + 10 random hex: 26 characters, a valid out_trade_no everywhere. */
export function newOrderId(at: number): string {
  const t = new Date(at + 8 * 3_600_000).toISOString().replace(/\D/g, '').slice(0, 14)
  return `LX${t}${randomBytes(5).toString('hex')}`
}

export const creditReason = (o: Pick<PayOrder, 'packageName' | 'id'>) => `充值：${o.packageName}（订单 ${o.id}）`

export interface PaymentServiceOptions {
  db: Db
  registry: AllowanceRegistry
  providers: ReadonlyMap<ProviderName, PayProvider>
  logger: Logger
  now: () => number
  bus: Pick<EventBus, 'publish'>
  orderTtlMs: number
  /** Adds the job that closes the order at its time. */
  scheduleExpiry(order: { id: string; expiresAt: Date }): Promise<void>
}

export type PaymentService = ReturnType<typeof createPaymentService>

/**
 * Orders of recharge packages. The only ways to `paid`: a verified notify, or an active query of
 * the provider; both go through credit(), one transaction that moves the order (conditional
 * UPDATE … RETURNING) and grants the package through the ledger, so a notify seen twice or a
 * notify racing a query credits once.
 */
export function createPaymentService(o: PaymentServiceOptions) {
  const { db, logger, now } = o

  const toWire = (r: PayOrder) => ({
    orderId: r.id,
    packageId: r.packageId,
    packageName: r.packageName,
    grants: r.grants,
    amountFen: r.amountFen,
    provider: r.provider as ProviderName,
    scene: r.scene as Scene,
    status: r.status as OrderStatus,
    payment: r.status === 'pending' ? r.payment : null,
    demo: o.providers.get(r.provider as ProviderName)?.demo ?? r.provider === 'demo',
    refundedFen: r.refundedFen,
    createTime: r.createdAt.getTime(),
    expireTime: r.expiresAt.getTime(),
    payTime: r.paidAt?.getTime() ?? null
  })

  function provider(name: string): PayProvider {
    const p = o.providers.get(name as ProviderName)
    if (!p) throw new ApiError(40000001, name === 'demo' ? '演示支付未开启' : '该支付方式暂未开通')
    return p
  }

  function publish(r: PayOrder) {
    o.bus
      .publish(r.accountId, { event: PAY_EVENT, data: toWire(r) })
      .catch((error: unknown) => logger.warn('publishing an order failed', { error: String(error) }))
  }

  async function ownOrder(accountId: string, orderId: string): Promise<PayOrder> {
    const [row] = await db
      .select()
      .from(payOrders)
      .where(and(eq(payOrders.id, orderId), eq(payOrders.accountId, accountId)))
    if (!row) throw new ApiError(40400001, '订单不存在')
    return row
  }

  async function createOrder(
    accountId: string,
    body: { packageId: string; provider: ProviderName; scene: Scene; idempotencyKey: string },
    clientIp: string
  ): Promise<PayOrder> {
    const [existing] = await db
      .select()
      .from(payOrders)
      .where(and(eq(payOrders.accountId, accountId), eq(payOrders.idempotencyKey, body.idempotencyKey)))
    if (existing) return sameRequest(existing, body)
    const [pkg] = await db.select().from(payPackages).where(eq(payPackages.id, body.packageId))
    if (!pkg?.enabled) throw new ApiError(40400001, '套餐不存在或已下架')
    const p = provider(body.provider)
    if (!p.scenes.includes(body.scene)) throw new ApiError(40000001, `该支付方式不支持 ${body.scene} 场景`)
    let openid: string | undefined
    if (body.scene === 'jsapi' && !p.demo) {
      const [identity] = await db
        .select({ openid: wechatIdentities.openid })
        .from(wechatIdentities)
        .where(and(eq(wechatIdentities.accountId, accountId), eq(wechatIdentities.appId, p.appId ?? '')))
      if (!identity) throw new ApiError(40000001, '请先在微信内用微信登录，再使用微信支付')
      openid = identity.openid
    }
    const t = now()
    const id = newOrderId(t)
    const [row] = await db
      .insert(payOrders)
      .values({
        id,
        accountId,
        idempotencyKey: body.idempotencyKey,
        packageId: pkg.id,
        packageName: pkg.name,
        grants: pkg.grants,
        // The price is the package's, never the client's.
        amountFen: pkg.priceFen,
        provider: p.name,
        scene: body.scene,
        status: 'pending',
        createdAt: new Date(t),
        expiresAt: new Date(t + o.orderTtlMs),
        updatedAt: new Date(t)
      })
      .onConflictDoNothing()
      .returning()
    if (!row) {
      // The same key a moment ago, from another request.
      const [other] = await db
        .select()
        .from(payOrders)
        .where(and(eq(payOrders.accountId, accountId), eq(payOrders.idempotencyKey, body.idempotencyKey)))
      if (!other) throw new Error('order vanished')
      return sameRequest(other, body)
    }
    let payment: Record<string, string>
    try {
      payment = await p.create({
        orderId: id,
        amountFen: row.amountFen,
        description: `灵犀-${pkg.name}`,
        scene: body.scene,
        expiresAt: row.expiresAt,
        clientIp,
        ...(openid ? { openid } : {})
      })
    } catch (error) {
      logger.warn('creating a payment failed', { provider: p.name, orderId: id, error: error instanceof ProviderError ? error.message : String(error) })
      await db
        .update(payOrders)
        .set({ status: 'closed', closedAt: new Date(now()), updatedAt: new Date(now()) })
        .where(and(eq(payOrders.id, id), eq(payOrders.status, 'pending')))
      throw new ApiError(50200001, '支付服务暂时不可用，请稍后重试')
    }
    const [saved] = await db
      .update(payOrders)
      .set({ payment, updatedAt: new Date(now()) })
      .where(eq(payOrders.id, id))
      .returning()
    await o.scheduleExpiry(row).catch((error: unknown) => logger.warn('scheduling an order expiry failed', { orderId: id, error: String(error) }))
    return saved ?? row
  }

  function sameRequest(r: PayOrder, body: { packageId: string; provider: string; scene: string }): PayOrder {
    if (r.packageId !== body.packageId || r.provider !== body.provider || r.scene !== body.scene) {
      throw new ApiError(40000001, 'idempotencyKey 已用于另一笔订单')
    }
    return r
  }

  /**
   * Moves the order to paid and grants its package, once: the conditional UPDATE is the check.
   * A closed order paid anyway (the payer was faster than the close) is credited too: the money
   * came. Answers the order when this call credited it, undefined when it had been already.
   */
  async function credit(orderId: string, info: { amountFen: number; providerTradeNo: string; provider: string }, via: string): Promise<PayOrder | undefined> {
    const [order] = await db.select().from(payOrders).where(eq(payOrders.id, orderId))
    if (!order) {
      logger.warn('payment for an unknown order', { orderId: orderId.slice(0, 64), provider: info.provider, via })
      return undefined
    }
    if (order.provider !== info.provider || order.amountFen !== info.amountFen) {
      logger.warn('payment does not match its order', {
        orderId,
        provider: info.provider,
        orderProvider: order.provider,
        amountFen: info.amountFen,
        orderAmountFen: order.amountFen,
        via
      })
      throw new PaymentMismatch()
    }
    // Seen before (a duplicate notify, a query after it): nothing to lock.
    if (order.status === 'paid' || order.status === 'refunded') return undefined
    const at = new Date(now())
    const grants = Object.entries(order.grants).filter(([, n]) => n > 0)
    const credited = await db.transaction(async (tx) => {
      // The allowance rows first, then the order's (docs/decisions/0015, lock order).
      await lock(
        tx,
        [order.accountId],
        grants.map(([kind]) => kind)
      )
      const [row] = await tx
        .update(payOrders)
        .set({ status: 'paid', paidAt: at, providerTradeNo: info.providerTradeNo || null, updatedAt: at })
        .where(and(eq(payOrders.id, orderId), inArray(payOrders.status, ['pending', 'closed']), eq(payOrders.amountFen, info.amountFen)))
        .returning()
      if (!row) return undefined
      for (const [kind, amount] of grants) await grant(tx, row.accountId, kind, amount, creditReason(row), at)
      return row
    })
    if (credited) {
      if (order.status === 'closed') logger.warn('an order was paid after it closed; credited', { orderId, via })
      logger.info('order paid', { orderId, provider: info.provider, amountFen: info.amountFen, via })
      publish(credited)
    }
    return credited
  }

  const refundDeps = { db, now, logger, registry: o.registry, provider, publish }

  /** A notify as it arrived: verified by its provider, then credited; answers as the provider's protocol wants. */
  async function notify(name: ProviderName, raw: RawNotify, address: string): Promise<NotifyAnswer> {
    const p = o.providers.get(name)
    if (!p) return { status: 404, body: '' }
    const result = await p.verifyNotify(raw)
    if (!result.ok) {
      logger.warn('pay notify refused', { provider: name, reason: result.reason, address })
      return p.answer(false)
    }
    if (!result.paid && !result.refund) return p.answer(true)
    try {
      const [order] = await db.select({ id: payOrders.id }).from(payOrders).where(eq(payOrders.id, result.orderId))
      if (!order) {
        logger.warn('pay notify for an unknown order', { provider: name, orderId: result.orderId.slice(0, 64), address })
        return p.answer(false)
      }
      if (result.paid) await credit(result.orderId, { amountFen: result.amountFen, providerTradeNo: result.providerTradeNo, provider: name }, 'notify')
      if (result.refund) return p.answer(await applyRefundNotice(refundDeps, { ...result, provider: name, refund: result.refund }))
      return p.answer(true)
    } catch (error) {
      if (!(error instanceof PaymentMismatch)) logger.error('applying a pay notify failed', { provider: name, orderId: result.orderId, error: String(error) })
      return p.answer(false)
    }
  }

  const { sync, expire, reconcile } = createLifecycle({ db, now, logger, providers: o.providers, credit, publish })

  /** Refunds a paid order, fully or in part (refund.ts). */
  const refund = (orderId: string, amountFen?: number, reason?: string, applied?: OnApplied) => refundOrder(refundDeps, orderId, amountFen, reason, applied)

  async function listOrders(accountId: string, page: PageRequest & { status?: OrderStatus | undefined }) {
    const where = page.status ? and(eq(payOrders.accountId, accountId), eq(payOrders.status, page.status)) : eq(payOrders.accountId, accountId)
    return readPage(
      page,
      db.select({ n: count() }).from(payOrders).where(where),
      (limit, offset) => db.select().from(payOrders).where(where).orderBy(desc(payOrders.seq)).limit(limit).offset(offset),
      (rows) => rows.map(toWire)
    )
  }

  return { createOrder, ownOrder, listOrders, notify, credit, sync, expire, reconcile, refund, toWire, provider, scheduleExpiry: o.scheduleExpiry }
}

/** A verified payment whose amount or provider is not its order's: logged, nothing credited. */
export class PaymentMismatch extends Error {
  constructor() {
    super('payment does not match its order')
    this.name = 'PaymentMismatch'
  }
}
