import { randomUUID } from 'node:crypto'
import { and, eq, like } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { balanceLog, payOrders } from '../src/db/schema.js'
import { createPackage } from '../src/modules/payments/packages.js'
import type { FakeNotify } from './fakes/wechat-pay-v3.js'
import { ALLOWANCES, balancesOf } from './helpers/allowances.js'
import { useWechatPayHarness } from './helpers/wechat-pay.js'

// WeChat Pay v3 refund notifies (REFUND.SUCCESS / ABNORMAL / CLOSED): verified, decrypted, applied once.
const { ctx, fake } = useWechatPayHarness()

const P = '/api/v1/pay'
const service = () => ctx.h.modules.payments.service
const deliver = (n: FakeNotify) => ctx.h.request(`${P}/notify/wechat`, { method: 'POST', headers: n.headers, body: n.body })

/** A paid order of 29.90 granting 500k tokens, 50 mj and 20 suno. */
async function paidOrder(phone: string) {
  const pkg = await createPackage(ctx.db.db, ALLOWANCES, {
    name: `标准包${randomUUID().slice(0, 4)}`,
    priceFen: 2990,
    grants: { tokens: 500_000, mj: 50, suno: 20 }
  })
  const { accessToken, accountId } = await ctx.h.login(phone)
  const o = (
    await ctx.h.post<any>(`${P}/order/create`, { packageId: pkg.id, provider: 'wechat', scene: 'native', idempotencyKey: randomUUID() }, { token: accessToken })
  ).body.data
  fake.pay(o.orderId)
  expect((await deliver(fake.notify(o.orderId))).status).toBe(204)
  return { orderId: o.orderId as string, accountId, pkg }
}

/** The REFUND.* notify WeChat Pay sends (its resource has no appid), signed by the fake. */
function refundNotify(orderId: string, refund: number, o: { refundNo?: string; status?: string; event?: string; mchid?: string; total?: number } = {}) {
  return fake.notify(orderId, {
    eventType: o.event ?? 'REFUND.SUCCESS',
    resource: {
      mchid: o.mchid ?? fake.mchId,
      out_trade_no: orderId,
      transaction_id: fake.transactions.get(orderId)?.transactionId,
      out_refund_no: o.refundNo ?? `${orderId}R0`,
      refund_id: `50000000${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      refund_status: o.status ?? 'SUCCESS',
      success_time: '2026-01-02T10:34:56+08:00',
      user_received_account: '招商银行信用卡0403',
      amount: { total: o.total ?? 2990, refund, payer_total: o.total ?? 2990, payer_refund: refund }
    }
  })
}

const order = async (id: string) => (await ctx.db.db.select().from(payOrders).where(eq(payOrders.id, id)))[0]
const refundLines = (accountId: string) =>
  ctx.db.db
    .select()
    .from(balanceLog)
    .where(and(eq(balanceLog.accountId, accountId), like(balanceLog.reason, '退款：%')))

describe('WeChat Pay v3 refund notifies', () => {
  it('a full refund made at the merchant platform is applied once: the order refunded, what is left taken back, never below zero', async () => {
    const { orderId, accountId, pkg } = await paidOrder('13800138100')
    // The user spent 30 of the 50 drawings before the refund: only the 20 left are taken back.
    await ctx.db.db.transaction(async (tx) => {
      const { spend } = await import('../src/allowances/ledger.js')
      await spend(tx, accountId, { id: 'mj', exhausted: '' }, 30, '绘画', new Date())
    })
    const n = refundNotify(orderId, 2990, { refundNo: 'MCH-PLATFORM-REFUND-1' })
    expect((await deliver(n)).status).toBe(204)
    expect(await order(orderId)).toMatchObject({ status: 'refunded', refundedFen: 2990 })
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 0 })
    const lines = await refundLines(accountId)
    expect(lines.map((l) => [l.kind, l.amount])).toEqual(expect.arrayContaining([['mj', -20]]))
    expect(lines.every((l) => l.reason === `退款：${pkg.name}（订单 ${orderId}）`)).toBe(true)
    // WeChat retries, and sends copies at once: nothing more.
    const copies = await Promise.all(Array.from({ length: 10 }, () => deliver(refundNotify(orderId, 2990, { refundNo: 'MCH-PLATFORM-REFUND-1' }))))
    expect(copies.every((r) => r.status === 204)).toBe(true)
    expect(await deliver(n).then((r) => r.status)).toBe(204)
    expect(await refundLines(accountId)).toHaveLength(lines.length)
  })

  it('the console’s refund and its own REFUND.SUCCESS apply once between them, whichever comes first', async () => {
    const { orderId, accountId } = await paidOrder('13800138101')
    // The console first: the notify of the same refund number changes nothing.
    await service().refund(orderId, 1495)
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 250_000, mjCount: 25, sunoCount: 10 })
    expect((await deliver(refundNotify(orderId, 1495, { refundNo: `${orderId}R0` }))).status).toBe(204)
    expect(await order(orderId)).toMatchObject({ status: 'paid', refundedFen: 1495 })
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 250_000, mjCount: 25, sunoCount: 10 })
    // The notify of the second refund before the console's call returns (its answer was lost): applied once.
    expect((await deliver(refundNotify(orderId, 1495, { refundNo: `${orderId}R1495` }))).status).toBe(204)
    expect(await order(orderId)).toMatchObject({ status: 'refunded', refundedFen: 2990 })
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 0 })
    await expect(service().refund(orderId)).rejects.toMatchObject({ code: 40000001 })
  })

  it('forged, tampered, foreign-merchant, wrong-amount and failed refund notifies change nothing; a partial refund made outside Lingxi is logged', async () => {
    const { orderId, accountId } = await paidOrder('13800138102')
    const before = await balancesOf(ctx.db.db, accountId)
    const { generateKeyPairSync } = await import('node:crypto')
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const forged = fake.notify(orderId, { eventType: 'REFUND.SUCCESS', signWith: other.privateKey, resource: { out_trade_no: orderId } })
    expect((await deliver(forged)).status).toBe(400)
    const tampered = refundNotify(orderId, 2990)
    expect((await deliver({ ...tampered, body: tampered.body.replace('REFUND.SUCCESS', 'REFUND.SUCCESs') })).status).toBe(400)
    expect((await deliver(refundNotify(orderId, 2990, { mchid: '1900000000' }))).status).toBe(400)
    expect((await deliver(refundNotify(orderId, 100, { total: 100 }))).status).toBe(400)
    expect((await deliver(refundNotify(orderId, 2990, { event: 'REFUND.ABNORMAL', status: 'ABNORMAL' }))).status).toBe(204)
    expect((await deliver(refundNotify(orderId, 2990, { event: 'REFUND.CLOSED', status: 'CLOSED' }))).status).toBe(204)
    expect((await deliver(refundNotify(orderId, 500, { refundNo: 'MCH-PARTIAL' }))).status).toBe(204)
    expect(await order(orderId)).toMatchObject({ status: 'paid', refundedFen: 0 })
    expect(await balancesOf(ctx.db.db, accountId)).toEqual(before)
    const messages = ctx.h.logger.entries.map((e) => e.message)
    expect(messages).toContain('pay notify refused')
    expect(messages).toContain('refund notify does not match its order')
    expect(messages).toContain('a refund failed or was closed at the provider')
    expect(messages).toContain('a partial refund made outside Lingxi is not applied; take the allowance back by hand')
  })
})
