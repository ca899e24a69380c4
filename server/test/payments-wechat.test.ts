import { createVerify, generateKeyPairSync, randomUUID } from 'node:crypto'
import { and, eq, like } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { balanceLog, payOrders, wechatIdentities } from '../src/db/schema.js'
import { createPackage } from '../src/modules/payments/packages.js'
import type { FakeNotify } from './fakes/wechat-pay-v3.js'
import { ALLOWANCES, balancesOf } from './helpers/allowances.js'
import { useWechatPayHarness } from './helpers/wechat-pay.js'

const { ctx, fake } = useWechatPayHarness()

const P = '/api/v1/pay'
const service = () => ctx.h.modules.payments.service
const GRANTS = { tokens: 500_000, mj: 50, suno: 20 }

async function setup(phone = '13800138000') {
  const pkg = await createPackage(ctx.db.db, ALLOWANCES, { name: `标准包${randomUUID().slice(0, 4)}`, priceFen: 2990, grants: GRANTS, badge: '推荐' })
  const { accessToken, accountId } = await ctx.h.login(phone)
  return { pkg, token: accessToken, accountId }
}

async function order(token: string, packageId: string, scene = 'native', idempotencyKey: string = randomUUID()) {
  return ctx.h.post<any>(`${P}/order/create`, { packageId, provider: 'wechat', scene, idempotencyKey }, { token })
}

async function deliver(n: FakeNotify) {
  return ctx.h.request(`${P}/notify/wechat`, { method: 'POST', headers: n.headers, body: n.body })
}

async function creditLines(orderId: string) {
  return ctx.db.db
    .select()
    .from(balanceLog)
    .where(like(balanceLog.reason, `%${orderId}%`))
}

describe('WeChat Pay v3 against the fake', () => {
  it('Native: a signed create with the package’s amount, a verified notify credits once, a duplicate changes nothing', async () => {
    const { pkg, token, accountId } = await setup()
    const res = await order(token, pkg.id)
    expect(res.body.code).toBe(2000)
    const o = res.body.data
    expect(o).toMatchObject({ status: 'pending', amountFen: 2990, provider: 'wechat', scene: 'native', demo: false })
    expect(o.payment.codeUrl).toMatch(/^weixin:\/\/wxpay\/bizpayurl\?pr=/)
    const sent = fake.requests.find((r) => r.path === '/v3/pay/transactions/native' && r.body.includes(o.orderId))
    expect(sent?.signOk).toBe(true)
    expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({
      out_trade_no: o.orderId,
      amount: { total: 2990, currency: 'CNY' },
      mchid: fake.mchId,
      appid: fake.appId
    })

    fake.pay(o.orderId)
    const n = fake.notify(o.orderId)
    expect((await deliver(n)).status).toBe(204)
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 500_000, mjCount: 50, sunoCount: 20 })
    const lines = await creditLines(o.orderId)
    expect(lines.map((l) => l.reason)).toEqual(Array(3).fill(`充值：${pkg.name}（订单 ${o.orderId}）`))
    // The same notify again (WeChat retries), and a second copy with a new nonce: answered 204, nothing more.
    expect((await deliver(n)).status).toBe(204)
    expect((await deliver(fake.notify(o.orderId))).status).toBe(204)
    expect(await creditLines(o.orderId)).toHaveLength(3)
    const got = await ctx.h.post<any>(`${P}/order/get`, { orderId: o.orderId }, { token })
    expect(got.body.data).toMatchObject({ status: 'paid', payment: null })
    expect(got.body.data.payTime).toBeGreaterThan(0)
  })

  it('H5 sends the payer’s address; JSAPI needs the WeChat identity and answers signed bridge parameters', async () => {
    const { pkg, token, accountId } = await setup()
    const h5 = await order(token, pkg.id, 'h5')
    expect(h5.body.data.payment.h5Url).toMatch(/^https:\/\/wx\.tenpay\.com\//)
    const sent = fake.requests.find((r) => r.path === '/v3/pay/transactions/h5' && r.body.includes(h5.body.data.orderId))
    expect(JSON.parse(sent?.body ?? '{}').scene_info).toEqual({ payer_client_ip: '203.0.113.7', h5_info: { type: 'Wap' } })

    const refused = await order(token, pkg.id, 'jsapi')
    expect(refused.body).toMatchObject({ code: 40000001, message: '请先在微信内用微信登录，再使用微信支付' })
    const at = new Date()
    await ctx.db.db.insert(wechatIdentities).values({ appId: fake.appId, openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o', accountId, createdAt: at, updatedAt: at })
    const js = await order(token, pkg.id, 'jsapi')
    const p = js.body.data.payment
    expect(p).toMatchObject({ appId: fake.appId, signType: 'RSA' })
    expect(p.package).toMatch(/^prepay_id=wx/)
    const ok = createVerify('RSA-SHA256')
      .update(`${p.appId}\n${p.timeStamp}\n${p.nonceStr}\n${p.package}\n`)
      .verify(fake.merchant.publicKey, p.paySign, 'base64')
    expect(ok).toBe(true)
    // A scene WeChat does not have.
    expect((await order(token, pkg.id, 'page')).body.code).toBe(40000001)
  })

  it('forged, tampered, replayed-late and wrongly-signed notifies change nothing and are logged without secrets', async () => {
    const { pkg, token, accountId } = await setup()
    const o = (await order(token, pkg.id)).body.data
    fake.pay(o.orderId)
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    const nowS = Math.floor(ctx.h.clock.now() / 1000)
    const cases: [string, FakeNotify][] = [
      ['signed with another key', fake.notify(o.orderId, { signWith: stranger })],
      ['unknown serial', fake.notify(o.orderId, { serial: 'PUB_KEY_ID_OTHER' })],
      ['timestamp 6 minutes old (a replay)', fake.notify(o.orderId, { timestamp: nowS - 360 })],
      ['timestamp in the future', fake.notify(o.orderId, { timestamp: nowS + 360 })],
      ['body changed after signing', fake.notify(o.orderId, { tamper: (b) => b.replace('TRANSACTION.SUCCESS', 'TRANSACTION.SUCCESS ') })],
      ['wrong APIv3 key', fake.notify(o.orderId, { apiV3Key: 'x'.repeat(32) })],
      ['another merchant', fake.notify(o.orderId, { mchid: '1230000109' })],
      ['another app', fake.notify(o.orderId, { appid: 'wx0000000000000000' })],
      ['a wrong amount', fake.notify(o.orderId, { amount: 1 })],
      ['no signature headers', { headers: { 'Content-Type': 'application/json' }, body: fake.notify(o.orderId).body }]
    ]
    for (const [what, n] of cases) {
      const res = await deliver(n)
      expect(res.status, what).toBeGreaterThanOrEqual(400)
      expect(res.body, what).toEqual({ code: 'FAIL', message: '失败' })
    }
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 0 })
    const [row] = await ctx.db.db.select().from(payOrders).where(eq(payOrders.id, o.orderId))
    expect(row?.status).toBe('pending')
    const warned = ctx.h.logger.entries.filter((e) => e.message === 'pay notify refused' || e.message === 'payment does not match its order')
    expect(warned.length).toBe(cases.length)
    const logged = JSON.stringify(ctx.h.logger.entries)
    expect(logged).not.toContain(fake.apiV3Key)
    expect(logged).not.toContain('PRIVATE KEY')
    // A notify that is not a payment (a closed trade) is acknowledged and changes nothing.
    expect((await deliver(fake.notify(o.orderId, { eventType: 'TRANSACTION.CLOSED', tradeState: 'CLOSED' }))).status).toBe(204)
    // A verified notify for an order we never made.
    const unknown = 'LX20260101000000deadbeef00'
    fake.transactions.set(unknown, { ...(fake.transactions.get(o.orderId) as NonNullable<ReturnType<typeof fake.transactions.get>>), outTradeNo: unknown })
    expect((await deliver(fake.notify(unknown))).status).toBe(400)
    expect(await creditLines(o.orderId)).toHaveLength(0)
  })

  it('50 concurrent duplicate notifies, racing order/get queries, credit exactly once', async () => {
    const { pkg, token, accountId } = await setup()
    const o = (await order(token, pkg.id)).body.data
    fake.pay(o.orderId)
    const n = fake.notify(o.orderId)
    const results = await Promise.all([
      ...Array.from({ length: 50 }, () => deliver(n)),
      ...Array.from({ length: 5 }, () => ctx.h.post<any>(`${P}/order/get`, { orderId: o.orderId }, { token }))
    ])
    expect(results.slice(0, 50).every((r) => r.status === 204)).toBe(true)
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 500_000, mjCount: 50, sunoCount: 20 })
    expect(await creditLines(o.orderId)).toHaveLength(3)
  })

  it('a lost notify: order/get and the reconciliation job ask WeChat Pay; a late notify then changes nothing', async () => {
    const { pkg, token, accountId } = await setup()
    const a = (await order(token, pkg.id)).body.data
    const b = (await order(token, pkg.id)).body.data
    fake.pay(a.orderId)
    fake.pay(b.orderId)
    const got = await ctx.h.post<any>(`${P}/order/get`, { orderId: a.orderId }, { token })
    expect(got.body.data.status).toBe('paid')
    ctx.h.clock.advance(61_000)
    expect(await service().reconcile()).toEqual({ expired: 0, asked: 1 })
    const [rowB] = await ctx.db.db.select().from(payOrders).where(eq(payOrders.id, b.orderId))
    expect(rowB?.status).toBe('paid')
    expect((await deliver(fake.notify(a.orderId))).status).toBe(204)
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 1_000_000, mjCount: 100, sunoCount: 40 })
  })

  it('expiry closes the order here and at WeChat Pay; one paid at the last moment is credited instead', async () => {
    const { pkg, token, accountId } = await setup()
    const a = (await order(token, pkg.id)).body.data
    const b = (await order(token, pkg.id)).body.data
    await service().expire(a.orderId)
    expect(fake.transactions.get(a.orderId)?.state).toBe('NOTPAY') // not yet due
    fake.pay(b.orderId)
    ctx.h.clock.advance(15 * 60_000 + 1000)
    expect(await service().reconcile()).toEqual({ expired: 2, asked: 0 })
    expect(fake.transactions.get(a.orderId)?.state).toBe('CLOSED')
    const rows = await ctx.db.db.select().from(payOrders).where(eq(payOrders.accountId, accountId))
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({ [a.orderId]: 'closed', [b.orderId]: 'paid' })
    // A notify for the closed order arriving now is outside its window: refused.
    expect((await deliver(fake.notify(a.orderId, { timestamp: Math.floor(ctx.h.clock.now() / 1000) - 1000 }))).status).toBe(400)
  })

  it('a payment that lands as the order closes (notify after the close) is still credited, once, and logged', async () => {
    const { pkg, token, accountId } = await setup()
    const o = (await order(token, pkg.id)).body.data
    ctx.h.clock.advance(15 * 60_000 + 1000)
    await service().expire(o.orderId)
    expect((await ctx.h.post<any>(`${P}/order/get`, { orderId: o.orderId }, { token })).body.data.status).toBe('closed')
    // The payer confirmed a moment before WeChat Pay closed it: the money came, the notify follows.
    fake.pay(o.orderId)
    const n = fake.notify(o.orderId)
    expect((await deliver(n)).status).toBe(204)
    expect((await deliver(n)).status).toBe(204)
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 500_000, mjCount: 50, sunoCount: 20 })
    expect(ctx.h.logger.entries.some((e) => e.message === 'an order was paid after it closed; credited')).toBe(true)
  })

  it('refunds in full or in part take back what is left of the grant, with a line naming the order', async () => {
    const { pkg, token, accountId } = await setup()
    const o = (await order(token, pkg.id)).body.data
    fake.pay(o.orderId)
    await deliver(fake.notify(o.orderId))
    const half = await service().refund(o.orderId, 1495)
    expect(half).toMatchObject({ status: 'paid', refundedFen: 1495 })
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 250_000, mjCount: 25, sunoCount: 10 })
    // The user spends some before the rest is refunded: only what is left is taken back.
    await ctx.db.db.transaction(async (tx) => {
      const { spend } = await import('../src/allowances/ledger.js')
      await spend(tx, accountId, { id: 'mj', exhausted: '' }, 20, '绘画', new Date())
    })
    const rest = await service().refund(o.orderId)
    expect(rest).toMatchObject({ status: 'refunded', refundedFen: 2990 })
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 0 })
    const refundLines = await ctx.db.db
      .select()
      .from(balanceLog)
      .where(and(eq(balanceLog.accountId, accountId), like(balanceLog.reason, '退款：%')))
    expect(refundLines.every((l) => l.reason === `退款：${pkg.name}（订单 ${o.orderId}）`)).toBe(true)
    expect(fake.transactions.get(o.orderId)?.refunded).toBe(2990)
    await expect(service().refund(o.orderId)).rejects.toMatchObject({ code: 40000001 })
  })

  it('the idempotency key answers the same order; a provider failure closes the order and answers 50200001', async () => {
    const { pkg, token } = await setup()
    const first = await order(token, pkg.id, 'native', 'key-1')
    const again = await order(token, pkg.id, 'native', 'key-1')
    expect(again.body.data.orderId).toBe(first.body.data.orderId)
    expect(fake.requests.filter((r) => r.body.includes(first.body.data.orderId))).toHaveLength(1)
    expect((await order(token, pkg.id, 'h5', 'key-1')).body).toMatchObject({ code: 40000001, message: 'idempotencyKey 已用于另一笔订单' })
    fake.failNext(500, 'SYSTEM_ERROR')
    const failed = await order(token, pkg.id, 'native', 'key-2')
    expect(failed.body.code).toBe(50200001)
    const [row] = await ctx.db.db.select().from(payOrders).where(eq(payOrders.idempotencyKey, 'key-2'))
    expect(row?.status).toBe('closed')
  })
})
