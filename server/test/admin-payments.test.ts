import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { adminAudit, balanceLog, payOrders, payPackages } from '../src/db/schema.js'
import { createPackage } from '../src/modules/payments/packages.js'
import { ALLOWANCES, balancesOf } from './helpers/allowances.js'
import { useHarness } from './helpers/database-hooks.js'

// The console's 套餐 and 订单 (admin/http/payments.ts): packages as the CLI edits them, orders with
// filters and CSV, refunds through the payments module, every change in the audit log.

const OPERATOR = '13900000002'
const A = '/api/admin/pay'
const P = '/api/v1/pay'

beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
})
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness({ env: { START_TOKENS: '0', START_MJ_COUNT: '0', START_SUNO_COUNT: '0', SMS_HOURLY_PER_IP: '1000' } })
beforeEach(async () => {
  await ctx.db.db.execute(sql`truncate admin_audit, card_batch_cards, card_batches, disabled_accounts`)
})

const operator = async () => (await ctx.h.login(OPERATOR)).accessToken

async function paidOrder(phone: string, priceFen = 1000) {
  const pkg = await createPackage(ctx.db.db, ALLOWANCES, { name: `包${randomUUID().slice(0, 4)}`, priceFen, grants: { tokens: 100_000, mj: 10 } })
  const user = await ctx.h.login(phone)
  const made = await ctx.h.post<any>(
    `${P}/order/create`,
    { packageId: pkg.id, provider: 'demo', scene: 'page', idempotencyKey: randomUUID() },
    { token: user.accessToken }
  )
  expect(made.body.code).toBe(2000)
  const orderId = made.body.data.orderId as string
  await ctx.h.app.request(`${P}/demo/${orderId}/confirm`, { method: 'POST' })
  const [row] = await ctx.db.db.select().from(payOrders).where(eq(payOrders.id, orderId))
  expect(row?.status).toBe('paid')
  return { orderId, user, pkg }
}

describe('who may use it', () => {
  it('refuses anonymous callers (401) and normal users (403) before reading the body; changes nothing', async () => {
    const user = await ctx.h.login('13800138000')
    const routes = ['packages', 'packages/create', 'packages/update', 'orders', 'refund'].map((p) => `${A}/${p}`)
    const before = await ctx.h.snapshot()
    const packages = await ctx.db.db.select().from(payPackages)
    for (const path of routes) {
      expect((await ctx.h.post(path, { name: 'x', priceFen: 1, grants: { tokens: 1 } })).status).toBe(401)
      const refused = await ctx.h.post(path, 'not json', { token: user.accessToken })
      expect(refused.status).toBe(403)
      expect(refused.body).toEqual({ code: 40300001, message: '您没有使用「运营后台」的权限', data: null })
    }
    const csv = await ctx.h.request(`${A}/orders/csv`, { headers: { Authorization: `Bearer ${user.accessToken}` } })
    expect(csv.status).toBe(403)
    expect((await ctx.h.request(`${A}/orders/csv`)).status).toBe(401)
    expect(await ctx.h.snapshot()).toEqual(before)
    expect(await ctx.db.db.select().from(payPackages)).toEqual(packages)
  })
})

describe('packages', () => {
  it('lists every package, creates, edits and takes one off sale, each in the audit log', async () => {
    const token = await operator()
    const made = await ctx.h.post<any>(
      `${A}/packages/create`,
      { name: '月卡', priceFen: 1990, grants: { tokens: 500_000, mj: 0 }, badge: '推荐', sort: -5 },
      { token }
    )
    expect(made.body.code).toBe(2000)
    expect(made.body.data).toMatchObject({ name: '月卡', priceFen: 1990, grants: { tokens: 500_000 }, badge: '推荐', enabled: true })
    const id = made.body.data.id
    const edited = await ctx.h.post<any>(`${A}/packages/update`, { packageId: id, priceFen: 2990, validityDays: 30 }, { token })
    expect(edited.body.data).toMatchObject({ priceFen: 2990, validityDays: 30, name: '月卡' })
    const off = await ctx.h.post<any>(`${A}/packages/update`, { packageId: id, enabled: false }, { token })
    expect(off.body.data.enabled).toBe(false)
    // Off sale: the users' list leaves it out, the console's keeps it.
    expect((await ctx.h.post<any>(`${P}/packages`, {})).body.data.map((p: any) => p.id)).not.toContain(id)
    expect((await ctx.h.post<any>(`${A}/packages`, {}, { token })).body.data.list.map((p: any) => p.id)).toContain(id)
    const lines = await ctx.db.db.select().from(adminAudit).where(eq(adminAudit.target, id))
    expect(lines.map((l) => l.action)).toEqual(['package.create', 'package.update', 'package.disable'])
    expect(lines[1]).toMatchObject({ before: expect.objectContaining({ priceFen: 1990 }), after: expect.objectContaining({ priceFen: 2990 }) })
    expect(lines[2]?.actorPhone).toBe(`+86 ${OPERATOR}`)
  })

  it('refuses bad input with a Chinese message naming the problem, and changes nothing', async () => {
    const token = await operator()
    const pkg = await createPackage(ctx.db.db, ALLOWANCES, { name: '既有', priceFen: 100, grants: { tokens: 1 } })
    const before = await ctx.db.db.select().from(payPackages)
    const cases: [string, unknown, RegExp][] = [
      ['packages/create', { priceFen: 100, grants: { tokens: 1 } }, /套餐名称/],
      ['packages/create', { name: 'x', priceFen: 0, grants: { tokens: 1 } }, /价格至少 1 分/],
      ['packages/create', { name: 'x', priceFen: 1.5, grants: { tokens: 1 } }, /priceFen 必须是整数/],
      ['packages/create', { name: 'x', priceFen: 100, grants: { gold: 1 } }, /额度种类只能是/],
      ['packages/create', { name: 'x', priceFen: 100, grants: { tokens: 0 } }, /至少要给一种额度/],
      ['packages/create', { name: 'x'.repeat(41), priceFen: 100, grants: { tokens: 1 } }, /最多 40 个字/],
      ['packages/create', { name: 'x', priceFen: 100, grants: { tokens: 1 }, badge: '超长的角标文字九个' }, /角标最多 8 个字/],
      ['packages/update', { packageId: pkg.id }, /请至少修改一项/],
      ['packages/update', { packageId: 'nope', enabled: false }, /套餐不存在/],
      ['packages/update', { packageId: pkg.id, priceFen: -1 }, /价格至少 1 分/],
      ['orders', { status: 'lost' }, /status 只能是/],
      ['orders', { from: '2026-13-01' }, /from 不是有效的日期/],
      ['orders', { from: '2026/11/01' }, /YYYY-MM-DD/],
      ['orders', { from: '2026-11-02', to: '2026-11-01' }, /开始日期不能晚于结束日期/],
      ['orders', { pageSize: 1000 }, /pageSize 不能大于 100/],
      ['orders', { query: 'x'.repeat(65) }, /最多 64 个字符/],
      ['refund', { orderId: 'LX1' }, /请填写退款原因/],
      ['refund', { orderId: 'LX-nope', reason: '测试' }, /订单不存在/],
      ['refund', { orderId: 'x'.repeat(65), reason: '测试' }, /orderId 格式不正确/],
      ['refund', { orderId: 'LX1', reason: '退'.repeat(81) }, /退款原因最多 80 个字/],
      ['refund', { orderId: 'LX1', amountFen: 0, reason: '退' }, /退款金额至少 1 分/],
      ['refund', { orderId: ['LX1'], reason: '退' }, /orderId 格式不正确/],
      ['packages/create', { name: 'x', priceFen: 1e12, grants: { tokens: 1 } }, /价格最多 100 万元/],
      ['packages/create', { name: 'x', priceFen: 100, grants: { tokens: 1e13 } }, /grants 的数量/],
      ['packages/update', { packageId: { $ne: null }, enabled: false }, /packageId/]
    ]
    for (const [path, body, message] of cases) {
      const res = await ctx.h.post<any>(`${A}/${path}`, body, { token })
      expect(res.body.code, `${path} ${JSON.stringify(body)}`).not.toBe(2000)
      expect(res.body.message, `${path} ${JSON.stringify(body)}`).toMatch(message)
    }
    expect(await ctx.db.db.select().from(payPackages)).toEqual(before)
    expect(await ctx.db.db.select().from(adminAudit).where(sql`${adminAudit.action} like 'package.%'`)).toEqual([])
  })
})

describe('orders', () => {
  it('filters by status, provider, phone, account id, order id and days; pages', async () => {
    const token = await operator()
    const a = await paidOrder('13800138001')
    const b = await paidOrder('13800138002')
    // A pending one of a third account.
    const pkg = await createPackage(ctx.db.db, ALLOWANCES, { name: '待付', priceFen: 500, grants: { tokens: 1 } })
    const c = await ctx.h.login('13700137003')
    await ctx.h.post(`${P}/order/create`, { packageId: pkg.id, provider: 'demo', scene: 'page', idempotencyKey: 'k1' }, { token: c.accessToken })

    const list = (body: object) => ctx.h.post<any>(`${A}/orders`, body, { token }).then((r) => r.body.data)
    const all = await list({})
    expect(all.total).toBe(3)
    expect(all.list[0]).toMatchObject({ status: 'pending', payerPhone: '+86 13700137003', amountFen: 500 })
    expect((await list({ status: 'paid' })).list.map((o: any) => o.orderId).sort()).toEqual([a.orderId, b.orderId].sort())
    expect((await list({ provider: 'wechat' })).total).toBe(0)
    expect((await list({ provider: 'demo' })).total).toBe(3)
    expect((await list({ query: '13800138001' })).list.map((o: any) => o.orderId)).toEqual([a.orderId])
    expect((await list({ query: b.user.accountId })).list.map((o: any) => o.orderId)).toEqual([b.orderId])
    expect((await list({ query: a.orderId })).list.map((o: any) => o.orderId)).toEqual([a.orderId])
    // Wildcards and words find nothing (never everything).
    expect((await list({ query: '%' })).total).toBe(0)
    expect((await list({ query: '小明' })).total).toBe(0)
    const days = await list({ from: '2000-01-01', to: '2099-12-31' })
    expect(days.total).toBe(3)
    expect((await list({ to: '2000-01-01' })).total).toBe(0)
    expect((await list({ from: '2099-01-01' })).total).toBe(0)
    const page2 = await list({ pageNum: 2, pageSize: 2 })
    expect(page2).toMatchObject({ total: 3, pageNum: 2, pageSize: 2 })
    expect(page2.list).toHaveLength(1)
  })

  it('exports the filtered list as CSV with a BOM, cells defused for spreadsheets', async () => {
    const token = await operator()
    const a = await paidOrder('13800138011')
    await paidOrder('13800138012')
    await ctx.db.db.update(payOrders).set({ packageName: '=HYPERLINK("x")' }).where(eq(payOrders.id, a.orderId))
    const res = await ctx.h.app.request(`${A}/orders/csv?query=138011&status=paid`, { headers: { Authorization: `Bearer ${token}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"$/)
    const bytes = new Uint8Array(await res.arrayBuffer())
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const text = new TextDecoder().decode(bytes.slice(3))
    const lines = text.trim().split('\r\n')
    expect(lines[0]).toContain('"订单号","状态","支付方式"')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain(`"${a.orderId}","paid","demo"`)
    expect(lines[1]).toContain('"10.00"')
    expect(lines[1]).toContain(`"'=HYPERLINK(""x"")"`)
    expect(lines[1]).toContain('"86 13800138011"')
    // A bad filter is the envelope's error, not a file.
    const bad = await ctx.h.app.request(`${A}/orders/csv?status=lost`, { headers: { Authorization: `Bearer ${token}` } })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as any).message).toMatch(/status 只能是/)
  })
})

describe('refunds', () => {
  it('refunds in part, then the rest; takes back that share of the allowance; says so in the log and the audit', async () => {
    const token = await operator()
    const { orderId, user } = await paidOrder('13800138021')
    expect(await balancesOf(ctx.db.db, user.accountId)).toMatchObject({ tokens: 100_000, mjCount: 10 })
    const part = await ctx.h.post<any>(`${A}/refund`, { orderId, amountFen: 300, reason: '部分退款测试' }, { token })
    expect(part.body.code).toBe(2000)
    expect(part.body.data).toMatchObject({ status: 'paid', refundedFen: 300 })
    expect(await balancesOf(ctx.db.db, user.accountId)).toMatchObject({ tokens: 70_000, mjCount: 7 })
    const tooMuch = await ctx.h.post<any>(`${A}/refund`, { orderId, amountFen: 701, reason: '多退' }, { token })
    expect(tooMuch.body).toMatchObject({ code: 40000001, message: '退款金额必须在 1 到 700 分之间' })
    const rest = await ctx.h.post<any>(`${A}/refund`, { orderId, reason: '全部退款' }, { token })
    expect(rest.body.data).toMatchObject({ status: 'refunded', refundedFen: 1000 })
    expect(await balancesOf(ctx.db.db, user.accountId)).toMatchObject({ tokens: 0, mjCount: 0 })
    const again = await ctx.h.post<any>(`${A}/refund`, { orderId, reason: '再退' }, { token })
    expect(again.body).toMatchObject({ code: 40000001, message: '只有已支付的订单可以退款' })
    const log = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.accountId, user.accountId))
    const taken = log.filter((l) => l.reason.startsWith('退款：')).map((l) => `${l.kind} ${l.amount}`)
    expect(taken.sort()).toEqual(['mj -3', 'mj -7', 'tokens -30000', 'tokens -70000'])
    const audit = await ctx.db.db.select().from(adminAudit).where(eq(adminAudit.target, orderId))
    expect(audit.map((l) => [l.action, l.reason, l.before, l.after])).toEqual([
      ['order.refund', '部分退款测试', { status: 'paid', refundedFen: 0 }, { status: 'paid', refundedFen: 300, amountFen: 300 }],
      ['order.refund', '全部退款', { status: 'paid', refundedFen: 300 }, { status: 'refunded', refundedFen: 1000, amountFen: 700 }]
    ])
  })

  it('two refunds asked at once refund once', async () => {
    const token = await operator()
    const { orderId, user } = await paidOrder('13800138031')
    const answers = await Promise.all([1, 2, 3].map(() => ctx.h.post<any>(`${A}/refund`, { orderId, reason: '并发' }, { token })))
    expect(answers.filter((a) => a.body.code === 2000)).toHaveLength(1)
    expect(answers.filter((a) => a.body.code !== 2000).map((a) => a.body.message)).toEqual(['只有已支付的订单可以退款', '只有已支付的订单可以退款'])
    const [row] = await ctx.db.db.select().from(payOrders).where(eq(payOrders.id, orderId))
    expect(row).toMatchObject({ status: 'refunded', refundedFen: 1000 })
    const taken = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.accountId, user.accountId))
    expect(taken.filter((l) => l.reason.startsWith('退款：'))).toHaveLength(2)
    expect(await balancesOf(ctx.db.db, user.accountId)).toMatchObject({ tokens: 0, mjCount: 0 })
    expect(await ctx.db.db.select().from(adminAudit).where(eq(adminAudit.target, orderId))).toHaveLength(1)
  })

  it('keeps the refund and its audit entry together: when the entry cannot be written, nothing is taken back, and asking again applies both', async () => {
    const token = await operator()
    const { orderId, user } = await paidOrder('13800138041')
    const db = ctx.db.db
    await db.execute(
      sql`create or replace function lx_test_no_audit() returns trigger language plpgsql as $$ begin if new.action = 'order.refund' then raise exception 'audit refused'; end if; return new; end $$`
    )
    await db.execute(sql`create trigger lx_test_no_audit before insert on admin_audit for each row execute function lx_test_no_audit()`)
    try {
      const failed = await ctx.h.post<any>(`${A}/refund`, { orderId, reason: '审计写不进' }, { token })
      expect(failed.body.code).not.toBe(2000)
      const [row] = await db.select().from(payOrders).where(eq(payOrders.id, orderId))
      expect(row).toMatchObject({ status: 'paid', refundedFen: 0 })
      expect(await balancesOf(db, user.accountId)).toMatchObject({ tokens: 100_000, mjCount: 10 })
    } finally {
      await db.execute(sql`drop trigger lx_test_no_audit on admin_audit`)
      await db.execute(sql`drop function lx_test_no_audit()`)
    }
    // The provider already took the refund (its number is the same): asking again applies it, once.
    const again = await ctx.h.post<any>(`${A}/refund`, { orderId, reason: '再次退款' }, { token })
    expect(again.body.data).toMatchObject({ status: 'refunded', refundedFen: 1000 })
    expect(await balancesOf(db, user.accountId)).toMatchObject({ tokens: 0, mjCount: 0 })
    expect((await db.select().from(adminAudit).where(eq(adminAudit.target, orderId))).map((l) => l.reason)).toEqual(['再次退款'])
  })

  it('refuses a pending order and an order of nobody', async () => {
    const token = await operator()
    const pkg = await createPackage(ctx.db.db, ALLOWANCES, { name: '待付', priceFen: 500, grants: { tokens: 1 } })
    const c = await ctx.h.login('13700137044')
    const made = await ctx.h.post<any>(
      `${P}/order/create`,
      { packageId: pkg.id, provider: 'demo', scene: 'page', idempotencyKey: 'k2' },
      { token: c.accessToken }
    )
    const res = await ctx.h.post<any>(`${A}/refund`, { orderId: made.body.data.orderId, reason: '退' }, { token })
    expect(res.body).toMatchObject({ code: 40000001, message: '只有已支付的订单可以退款' })
    // A user's own token cannot refund their order through the console.
    const own = await ctx.h.post<any>(`${A}/refund`, { orderId: made.body.data.orderId, reason: '退' }, { token: c.accessToken })
    expect(own.status).toBe(403)
  })
})

describe('the first operator', () => {
  it('an ADMIN_PHONES account holds ADMIN in its menu from the first userPermission, so /admin opens on the first visit', async () => {
    const { accessToken } = await ctx.h.login(OPERATOR)
    const tree = await ctx.h.post<any>('/api/v1/userPermission', { appPermissionCode: 'AI_TOOLS' }, { token: accessToken })
    const held = (t: any) => t.body.data.bodyList.find((n: any) => n.permissionCode === 'ADMIN')?.checked
    expect(held(tree)).toBe(1)
    const other = await ctx.h.login('13800138099')
    const theirs = await ctx.h.post<any>('/api/v1/userPermission', { appPermissionCode: 'AI_TOOLS' }, { token: other.accessToken })
    expect(held(theirs)).toBe(0)
    expect((await ctx.h.post<any>('/api/v1/userPermission', { appPermissionCode: 'AI_TOOLS' })).status).toBe(401)
  })
})
