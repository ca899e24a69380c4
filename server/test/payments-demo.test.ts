import { randomUUID } from 'node:crypto'
import { eq, like } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { runAdmin } from '../src/admin.js'
import { balanceLog, payOrders, payPackages } from '../src/db/schema.js'
import { createPackage, readPackageSeed, seedPackages, updatePackage } from '../src/modules/payments/packages.js'
import { ALLOWANCES, balancesOf } from './helpers/allowances.js'
import { useHarness } from './helpers/database-hooks.js'

// The offline default: 演示支付, end to end over HTTP, through the same notify path as a real provider.
const ctx = useHarness({ env: { START_TOKENS: '0', START_MJ_COUNT: '0', START_SUNO_COUNT: '0', SMS_HOURLY_PER_IP: '1000' } })
const P = '/api/v1/pay'

async function setup(phone = '13800138000') {
  const pkg = await createPackage(ctx.db.db, ALLOWANCES, {
    name: `体验包${randomUUID().slice(0, 4)}`,
    priceFen: 990,
    grants: { tokens: 200_000, mj: 10 },
    sort: -1
  })
  const { accessToken, accountId } = await ctx.h.login(phone)
  return { pkg, token: accessToken, accountId }
}
async function admin(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runAdmin(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: { DATA_DIR: ctx.h.config.dataDir }, open: async () => ctx.db })
  return { code, out, err }
}
const create = (token: string, packageId: string, scene = 'page', idempotencyKey: string = randomUUID()) =>
  ctx.h.post<any>(`${P}/order/create`, { packageId, provider: 'demo', scene, idempotencyKey }, { token })

describe('packages', () => {
  it('a fresh install is seeded from config/pay-packages.json once; the list shows enabled ones in order', async () => {
    await ctx.db.db.delete(payPackages)
    const seed = readPackageSeed(ctx.h.config.dataDir)
    expect(await seedPackages(ctx.db.db, ALLOWANCES, seed)).toBe(3)
    expect(await seedPackages(ctx.db.db, ALLOWANCES, seed)).toBe(0)
    const list = await ctx.h.post<any>(`${P}/packages`, {})
    expect(list.body.data.map((p: any) => p.name)).toEqual(['体验包', '标准包', '专业包'])
    expect(list.body.data[1]).toMatchObject({ priceFen: 2990, badge: '推荐', grants: { tokens: 800000, mj: 40, suno: 20 } })
    await updatePackage(ctx.db.db, ALLOWANCES, list.body.data[0].id, { enabled: false })
    expect((await ctx.h.post<any>(`${P}/packages`, {})).body.data).toHaveLength(2)
    // A disabled package cannot be bought.
    const { accessToken } = await ctx.h.login('13800138009')
    expect((await create(accessToken, list.body.data[0].id)).body.code).toBe(40400001)
    await expect(createPackage(ctx.db.db, ALLOWANCES, { name: 'x', priceFen: 1, grants: { gold: 1 } })).rejects.toThrow(/unknown allowance kind/)
  })
})

describe('演示支付 end to end', () => {
  it('order → the pay page on our origin → 确认支付 → the signed notify credits once; the order and the log show it', async () => {
    const { pkg, token } = await setup()
    const res = await create(token, pkg.id)
    expect(res.body.code).toBe(2000)
    const o = res.body.data
    expect(o).toMatchObject({ status: 'pending', amountFen: 990, provider: 'demo', demo: true })
    const pageUrl = new URL(o.payment.payUrl)
    expect(pageUrl.origin).toBe(ctx.h.config.publicUrl)
    expect(pageUrl.pathname).toBe(`${P}/demo/${o.orderId}`)

    const page = await ctx.h.app.request(pageUrl.pathname)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'")
    const html = await page.text()
    expect(html).toContain('演示支付')
    expect(html).toContain('确认支付 ¥9.90')
    expect(html).not.toContain('<script')

    const confirm = await ctx.h.app.request(`${pageUrl.pathname}/confirm`, { method: 'POST' })
    expect(confirm.status).toBe(303)
    expect(confirm.headers.get('location')).toBe(pageUrl.pathname)
    expect(await (await ctx.h.app.request(pageUrl.pathname)).text()).toContain('支付成功')
    // Confirming twice (a double click, the back button) credits nothing more.
    await ctx.h.app.request(`${pageUrl.pathname}/confirm`, { method: 'POST' })

    const info = await ctx.h.post<any>('/api/v1/user/info', {}, { token })
    expect(info.body.data).toMatchObject({ tokens: 200_000, mjCount: 10, sunoCount: 0 })
    const log = await ctx.h.post<any>('/api/v1/user/balanceLog', { pageNum: 1, pageSize: 10 }, { token })
    expect(log.body.data.list.map((l: any) => l.reason)).toEqual([`充值：${pkg.name}（订单 ${o.orderId}）`, `充值：${pkg.name}（订单 ${o.orderId}）`])
    const list = await ctx.h.post<any>(`${P}/order/list`, { pageNum: 1, pageSize: 10 }, { token })
    expect(list.body.data).toMatchObject({ total: 1, pageNum: 1, pageSize: 10 })
    expect(list.body.data.list[0]).toMatchObject({ orderId: o.orderId, status: 'paid', payment: null })
    expect((await ctx.h.post<any>(`${P}/order/list`, { status: 'pending' }, { token })).body.data.total).toBe(0)
  })

  it('a forged demo notify is refused and logged; the browser cannot name its price; other people’s orders are not found', async () => {
    const { pkg, token, accountId } = await setup()
    const o = (await create(token, pkg.id, 'wap')).body.data
    const forged = await ctx.h.app.request(`${P}/notify/demo`, {
      method: 'POST',
      headers: {
        'Lingxi-Demo-Timestamp': String(Math.floor(ctx.h.clock.now() / 1000)),
        'Lingxi-Demo-Nonce': 'n',
        'Lingxi-Demo-Signature': 'AAAA'
      },
      body: JSON.stringify({ orderId: o.orderId, amountFen: 990, tradeNo: 'x' })
    })
    expect(forged.status).toBe(400)
    expect(await forged.text()).toBe('fail')
    expect(ctx.h.logger.entries.some((e) => e.message === 'pay notify refused' && e.fields?.reason === 'bad signature')).toBe(true)
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 0 })
    // An amount in the request is not a field of order/create: the package's price stands.
    const priced = await ctx.h.post<any>(
      `${P}/order/create`,
      { packageId: pkg.id, provider: 'demo', scene: 'page', idempotencyKey: 'k1', amountFen: 1 },
      { token }
    )
    expect(priced.body.data.amountFen).toBe(990)
    const other = await ctx.h.login('13800138001')
    expect((await ctx.h.post<any>(`${P}/order/get`, { orderId: o.orderId }, { token: other.accessToken })).body.code).toBe(40400001)
    expect(
      (await ctx.h.post<any>(`${P}/order/create`, { packageId: pkg.id, provider: 'wechat', scene: 'native', idempotencyKey: 'k2' }, { token })).body
    ).toMatchObject({
      code: 40000001,
      message: '该支付方式暂未开通'
    })
    expect((await ctx.h.post<any>(`${P}/order/create`, { packageId: pkg.id, provider: 'demo', scene: 'page', idempotencyKey: 'k3' })).body.code).toBe(50011004)
  })

  it('an order unpaid after 15 minutes closes (by its job); its page then cannot pay it', async () => {
    const { pkg, token, accountId } = await setup()
    const o = (await create(token, pkg.id)).body.data
    expect(o.expireTime - o.createTime).toBe(15 * 60_000)
    await ctx.h.modules.payments.service.expire(o.orderId)
    expect((await ctx.h.post<any>(`${P}/order/get`, { orderId: o.orderId }, { token })).body.data.status).toBe('pending')
    ctx.h.clock.advance(15 * 60_000 + 1)
    await ctx.h.modules.payments.service.expire(o.orderId)
    const [row] = await ctx.db.db.select().from(payOrders).where(eq(payOrders.id, o.orderId))
    expect(row?.status).toBe('closed')
    await ctx.h.app.request(`${P}/demo/${o.orderId}/confirm`, { method: 'POST' })
    expect(await (await ctx.h.app.request(`${P}/demo/${o.orderId}`)).text()).toContain('订单已关闭')
    expect(
      await ctx.db.db
        .select()
        .from(balanceLog)
        .where(like(balanceLog.reason, `%${o.orderId}%`))
    ).toHaveLength(0)
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 0 })
  })
})

describe('lingxi-admin pay', () => {
  it('creates, updates and lists packages, lists orders and refunds one (taking the allowance back)', async () => {
    const made = await admin(
      'pay',
      'packages',
      'create',
      '--name',
      '月卡',
      '--price-fen',
      '3000',
      '--tokens',
      '1000',
      '--mj',
      '2',
      '--badge',
      '推荐',
      '--sort',
      '-5'
    )
    expect(made.code).toBe(0)
    const id = /Created package (\S+):/.exec(made.out[0] ?? '')?.[1] ?? ''
    expect((await admin('pay', 'packages', 'update', id, '--price-fen', '2500')).out[0]).toContain('25.00 元')
    expect((await admin('pay', 'packages', 'list')).out.some((l) => l.startsWith(id) && l.includes('月卡 [推荐]'))).toBe(true)
    expect((await admin('pay', 'packages', 'create', '--name', 'x', '--price-fen', '1', '--gold', '1')).code).toBe(2)
    const { accessToken, accountId } = await ctx.h.login('13800138002')
    const o = (await create(accessToken, id)).body.data
    expect(o.amountFen).toBe(2500)
    await ctx.h.app.request(`${P}/demo/${o.orderId}/confirm`, { method: 'POST' })
    expect((await admin('pay', 'orders', 'list', '--status', 'paid')).out.some((l) => l.startsWith(o.orderId))).toBe(true)
    const refunded = await admin('pay', 'refund', o.orderId)
    expect(refunded.out[0]).toBe(`Refunded ${o.orderId}: 25.00 元 of 25.00 元 (refunded).`)
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 0, mjCount: 0, sunoCount: 0 })
    expect((await admin('pay', 'refund', o.orderId)).code).toBe(1)
  })
})
