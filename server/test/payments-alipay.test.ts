import { generateKeyPairSync, randomUUID } from 'node:crypto'
import { eq, like } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { balanceLog, payOrders } from '../src/db/schema.js'
import { MODULES } from '../src/modules/index.js'
import type { ModuleInstance, ToolModule } from '../src/modules/module.js'
import { createAlipayProvider, rawMember, yuanToFen } from '../src/modules/payments/alipay.js'
import { payments } from '../src/modules/payments/index.js'
import { createPackage } from '../src/modules/payments/packages.js'
import { type FakeAlipay, startFakeAlipay } from './fakes/alipay.js'
import { ALLOWANCES, balancesOf } from './helpers/allowances.js'
import { useHarness } from './helpers/database-hooks.js'

let fake: FakeAlipay
const withFake = {
  ...payments,
  create: (deps: Parameters<typeof payments.create>[0]) =>
    payments.create(deps, { providers: [createAlipayProvider(fake.settings(), { now: deps.now })], reconcileMs: 0 })
} as unknown as ToolModule<unknown, ModuleInstance>
const ctx = useHarness(() => ({
  env: { START_TOKENS: '0', START_MJ_COUNT: '0', START_SUNO_COUNT: '0', SMS_HOURLY_PER_IP: '1000' },
  modules: MODULES.map((m) => (m.name === 'payments' ? withFake : (m as unknown as ToolModule<unknown, ModuleInstance>)))
}))
beforeAll(async () => {
  fake = await startFakeAlipay({ now: () => ctx.h.clock.now() })
})
afterAll(async () => {
  await fake?.close()
})

const P = '/api/v1/pay'
const service = () => ctx.h.modules.payments.service

async function setup() {
  const pkg = await createPackage(ctx.db.db, ALLOWANCES, { name: `专业包${randomUUID().slice(0, 4)}`, priceFen: 9900, grants: { tokens: 3000, suno: 8 } })
  const { accessToken, accountId } = await ctx.h.login('13800138000')
  const create = async (scene = 'page') =>
    (await ctx.h.post<any>(`${P}/order/create`, { packageId: pkg.id, provider: 'alipay', scene, idempotencyKey: randomUUID() }, { token: accessToken })).body
  return { pkg, token: accessToken, accountId, create }
}
const deliver = (n: { headers: Record<string, string>; body: string }) =>
  ctx.h.app.request(`${P}/notify/alipay`, { method: 'POST', headers: n.headers, body: n.body })

describe('Alipay against the fake', () => {
  it('reads amounts and signed members exactly', () => {
    expect([yuanToFen('9.90'), yuanToFen('99'), yuanToFen('0.05'), yuanToFen('1.999'), yuanToFen('-1')]).toEqual([990, 9900, 5, Number.NaN, Number.NaN])
    expect(rawMember('{"a_response":{"x":"}{\\"","y":{"z":1}},"sign":"s"}', 'a_response')).toBe('{"x":"}{\\"","y":{"z":1}}')
  })

  it('page.pay and wap.pay are signed redirects; the verified notify credits once and is answered success', async () => {
    const { pkg, accountId, create } = await setup()
    const o = (await create('page')).data
    const url = new URL(o.payment.payUrl)
    expect(url.origin + url.pathname).toBe(fake.gateway)
    expect(url.searchParams.get('method')).toBe('alipay.trade.page.pay')
    expect(JSON.parse(url.searchParams.get('biz_content') ?? '{}')).toMatchObject({
      out_trade_no: o.orderId,
      total_amount: '99.00',
      product_code: 'FAST_INSTANT_TRADE_PAY'
    })
    fake.checkPayUrl(o.payment.payUrl)
    const wap = (await create('wap')).data
    expect(new URL(wap.payment.payUrl).searchParams.get('method')).toBe('alipay.trade.wap.pay')
    expect((await create('native')).code).toBe(40000001)

    fake.pay(o.orderId)
    const n = fake.notify(o.orderId)
    const res = await deliver(n)
    expect([res.status, await res.text()]).toEqual([200, 'success'])
    expect(await (await deliver(n)).text()).toBe('success')
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 3000, mjCount: 0, sunoCount: 8 })
    const lines = await ctx.db.db
      .select()
      .from(balanceLog)
      .where(like(balanceLog.reason, `%${o.orderId}%`))
    expect(lines.map((l) => l.reason)).toEqual([`充值：${pkg.name}（订单 ${o.orderId}）`, `充值：${pkg.name}（订单 ${o.orderId}）`])
  })

  it('forged, tampered and mismatched notifies are refused with failure and change nothing', async () => {
    const { accountId, create } = await setup()
    const o = (await create()).data
    fake.checkPayUrl(o.payment.payUrl)
    fake.pay(o.orderId)
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    const cases = [
      fake.notify(o.orderId, { signWith: stranger }),
      fake.notify(o.orderId, { tamper: (b) => b.replace('total_amount=99.00', 'total_amount=0.01') }),
      fake.notify(o.orderId, { appId: '2021999999999999' }),
      fake.notify(o.orderId, { sellerId: '2088000000000000' }),
      fake.notify(o.orderId, { totalAmount: '0.01' }),
      { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'out_trade_no=x&total_amount=1' }
    ]
    for (const n of cases) {
      const res = await deliver(n)
      expect([res.status, await res.text()]).toEqual([400, 'failure'])
    }
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 0 })
  })

  it('query credits a lost notify; expiry closes at Alipay; refund takes the allowance back', async () => {
    const { accountId, create, token } = await setup()
    const a = (await create()).data
    const b = (await create()).data
    fake.checkPayUrl(a.payment.payUrl)
    fake.checkPayUrl(b.payment.payUrl)
    fake.pay(a.orderId)
    expect((await ctx.h.post<any>(`${P}/order/get`, { orderId: a.orderId }, { token })).body.data.status).toBe('paid')
    ctx.h.clock.advance(15 * 60_000 + 1000)
    await service().reconcile()
    expect(fake.trades.get(b.orderId)?.status).toBe('TRADE_CLOSED')
    const [rowB] = await ctx.db.db.select().from(payOrders).where(eq(payOrders.id, b.orderId))
    expect(rowB?.status).toBe('closed')
    const refunded = await service().refund(a.orderId)
    expect(refunded.status).toBe('refunded')
    expect(fake.trades.get(a.orderId)?.refunded).toBe(9900)
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 0 })
    expect(fake.requests.every((r) => r.signOk)).toBe(true)
  })

  it('refund notifies (refund_fee: refunded so far) apply the difference once, from the console or Alipay’s own site', async () => {
    const { accountId, create } = await setup()
    const o = (await create()).data
    fake.checkPayUrl(o.payment.payUrl)
    fake.pay(o.orderId)
    await deliver(fake.notify(o.orderId))
    const refund = (fee: string, status = 'TRADE_SUCCESS', outBizNo = 'ALIPAY-SITE-1') =>
      fake.notify(o.orderId, { extra: { refund_fee: fee, out_biz_no: outBizNo, gmt_refund: '2026-01-02 10:34:56.123', trade_status: status } })
    // Half refunded on Alipay's merchant site: the notify says 49.50 so far; its copies change nothing.
    for (let i = 0; i < 3; i++) expect(await (await deliver(refund('49.50'))).text()).toBe('success')
    const [half] = await ctx.db.db.select().from(payOrders).where(eq(payOrders.id, o.orderId))
    expect(half).toMatchObject({ status: 'paid', refundedFen: 4950 })
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 1500, mjCount: 0, sunoCount: 4 })
    // The console refunds the rest; Alipay's TRADE_CLOSED notify of it after that is already applied.
    expect(await service().refund(o.orderId)).toMatchObject({ status: 'refunded', refundedFen: 9900 })
    expect(await (await deliver(refund('99.00', 'TRADE_CLOSED', `${o.orderId}R4950`))).text()).toBe('success')
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 0 })
    const lines = await ctx.db.db
      .select()
      .from(balanceLog)
      .where(like(balanceLog.reason, `退款：%${o.orderId}%`))
    expect(lines).toHaveLength(4)
  })
})
