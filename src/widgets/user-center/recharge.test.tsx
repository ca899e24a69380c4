// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { installGlobalListeners } from '../../core/events'
import { $toasts, $token, $user } from '../../core/stores'
import type { LoginUser } from '../../core/types'
import { countdown, formatYuan, grantsText, type PayOrder, sceneFor } from './recharge-state'

// 在线充值 against a loopback fake of pay/* (server/src/modules/payments/routes.ts). Real React and preact/compat.

const user: LoginUser = {
  accountId: 'a1',
  userId: 'a1',
  phone: '13800138000',
  nickName: '小灵',
  avatarUrl: '',
  state: 1,
  tokens: 1000,
  mjCount: 0,
  sunoCount: 0,
  permissionCodes: []
}
const PACKAGES: {
  id: string
  name: string
  priceFen: number
  grants: Record<string, number>
  validityDays: number | null
  badge: string | null
  sort: number
}[] = [
  { id: 'p3', name: '专业包', priceFen: 9900, grants: { tokens: 3_000_000, mj: 150 }, validityDays: null, badge: null, sort: 30 },
  { id: 'p1', name: '体验包', priceFen: 990, grants: { tokens: 200_000, mj: 10, suno: 5 }, validityDays: 30, badge: null, sort: 10 },
  { id: 'p2', name: '标准包', priceFen: 2990, grants: { tokens: 800_000, mj: 40, suno: 20 }, validityDays: null, badge: '推荐', sort: 20 }
]
let account: LoginUser
let orders: PayOrder[]
let ttlMs: number
let refuseNextCreate: boolean
const calls: { path: string; body: Record<string, unknown> }[] = []
let server: ReturnType<typeof createServer>

function newOrder(body: Record<string, unknown>): PayOrder {
  const p = PACKAGES.find((x) => x.id === body.packageId)!
  const id = `LX${String(orders.length + 1).padStart(4, '0')}`
  const pay = `http://lingxi.test/api/v1/pay/demo/${id}`
  return {
    orderId: id,
    packageId: p.id,
    packageName: p.name,
    grants: p.grants,
    amountFen: p.priceFen,
    provider: 'demo',
    scene: body.scene as PayOrder['scene'],
    status: 'pending',
    payment: body.scene === 'native' ? { codeUrl: pay, payUrl: pay } : { payUrl: pay },
    demo: true,
    refundedFen: 0,
    createTime: Date.now(),
    expireTime: Date.now() + ttlMs,
    payTime: null
  }
}

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type')
  if (req.method === 'OPTIONS') return res.end()
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/api/v1/', '')
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString()
  const body = (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown>
  calls.push({ path, body })
  res.setHeader('content-type', 'application/json')
  const send = (data: unknown) => res.end(JSON.stringify({ code: 2000, message: 'success', data }))
  const fail = (code: number, message: string) => res.end(JSON.stringify({ code, message, data: null }))
  const confirm = /^pay\/demo\/(\w+)\/confirm$/.exec(path)
  if (confirm) {
    const o = orders.find((x) => x.orderId === confirm[1])!
    Object.assign(o, { status: 'paid', payment: null, payTime: Date.now() })
    account = { ...account, tokens: account.tokens + (o.grants.tokens ?? 0), mjCount: account.mjCount + (o.grants.mj ?? 0) }
    res.statusCode = 303
    return res.end()
  }
  if (path === 'user/info') return send(account)
  if (path === 'pay/packages') return send(PACKAGES)
  if (path === 'pay/providers') return send([{ provider: 'demo', scenes: ['native', 'h5', 'jsapi', 'page', 'wap'], demo: true }])
  if (path === 'pay/order/create') {
    if (refuseNextCreate) {
      refuseNextCreate = false
      return fail(42900001, '下单过于频繁，请 30 秒后再试')
    }
    const o = newOrder(body)
    orders.unshift(o)
    return send(o)
  }
  if (path === 'pay/order/get') {
    const o = orders.find((x) => x.orderId === body.orderId)
    if (o && o.status === 'pending' && o.expireTime <= Date.now()) Object.assign(o, { status: 'closed', payment: null })
    return o ? send(o) : fail(40400001, '订单不存在')
  }
  if (path === 'pay/order/list') {
    const n = body.pageNum as number
    const size = body.pageSize as number
    return send({ list: orders.slice((n - 1) * size, n * size), total: orders.length, pageNum: n, pageSize: size })
  }
  fail(40400001, path)
}

beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  installGlobalListeners()
  await import('./user-center.element')
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(() => {
  account = { ...user }
  orders = []
  ttlMs = 15 * 60_000
  refuseNextCreate = false
  calls.length = 0
  $token.set('tok')
  $user.set({ ...user })
})
afterEach(() => {
  document.body.innerHTML = ''
  $token.set(null)
  $user.set(null)
  $toasts.set([])
})

async function mount() {
  const el = document.createElement('lingxi-user-center')
  el.setAttribute('tab', 'recharge')
  document.body.append(el)
  const root = el.shadowRoot!
  await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=pay-package]')).toHaveLength(3))
  return root
}
const button = (root: ParentNode, text: string | RegExp) =>
  [...root.querySelectorAll('button')].find((b) => (typeof text === 'string' ? b.textContent?.trim() === text : text.test(b.textContent ?? '')))!

describe('在线充值', () => {
  it('shows the packages in order with price, grants and badge; buys the chosen one and completes 演示支付', async () => {
    const root = await mount()
    const cards = [...root.querySelectorAll('[data-testid=pay-package]')]
    expect(cards.map((c) => c.textContent)).toEqual([
      expect.stringContaining('体验包¥9.90对话额度'),
      expect.stringContaining('推荐标准包¥29.90'),
      expect.stringContaining('专业包¥99.00')
    ])
    expect(cards[0]!.textContent).toContain('有效期 30 天')
    // The recommended package is chosen first; another can be.
    expect(cards[1]!.querySelector('input')!.checked).toBe(true)
    cards[0]!.querySelector('input')!.click()
    await vi.waitFor(() => expect(button(root, /立即支付/).textContent).toContain('¥9.90'))
    button(root, /立即支付/).click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=checkout]')).not.toBeNull())
    const create = calls.find((c) => c.path === 'pay/order/create')!.body
    expect(create).toMatchObject({ packageId: 'p1', provider: 'demo', scene: 'native' })
    expect(create.idempotencyKey).toMatch(/^[A-Za-z0-9_-]{8,64}$/)
    expect(root.querySelector('[data-testid=pay-amount]')!.textContent).toBe('¥9.90')
    expect(root.querySelector('[data-testid=pay-countdown]')!.textContent).toMatch(/^1[45]:\d\d$/)
    expect(root.textContent).toContain('演示支付 · 不会扣款')
    // The QR code of the pay page, drawn here (no image from elsewhere).
    await vi.waitFor(() => expect(root.querySelector('[data-testid=pay-qr] path')?.getAttribute('d')).toMatch(/^M\d/))
    expect(root.querySelector('img')).toBeNull()

    button(root, '演示支付 ¥9.90').click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=checkout]')!.getAttribute('data-status')).toBe('paid'))
    expect(root.textContent).toContain('支付成功，额度已到账')
    expect(calls.some((c) => c.path === `pay/demo/${orders[0]!.orderId}/confirm`)).toBe(true)
    await vi.waitFor(() => expect($user.get()!.tokens).toBe(201_000))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=order-status]')?.textContent).toBe('已支付'))
  })

  it('a refused order keeps its idempotency key for the retry; an expired order says so and 重新下单 makes a new one', async () => {
    refuseNextCreate = true
    ttlMs = 1500
    const root = await mount()
    button(root, /立即支付/).click()
    await vi.waitFor(() => expect($toasts.get().map((t) => t.message)).toContain('下单过于频繁，请 30 秒后再试'))
    button(root, /立即支付/).click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=checkout]')).not.toBeNull())
    const keys = calls.filter((c) => c.path === 'pay/order/create').map((c) => c.body.idempotencyKey)
    expect(keys).toHaveLength(2)
    expect(keys[1]).toBe(keys[0])
    // Past its time: 已过期 (then 已关闭 once the server closed it), with a retry.
    await vi.waitFor(() => expect(root.querySelector('[data-testid=checkout]')!.getAttribute('data-status')).toBe('expired'), { timeout: 5000 })
    expect(root.textContent).toMatch(/订单已(过期|关闭)/)
    ttlMs = 15 * 60_000
    button(root, '重新下单').click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=checkout]')!.getAttribute('data-status')).toBe('pending'))
    const again = calls.filter((c) => c.path === 'pay/order/create').map((c) => c.body.idempotencyKey)
    expect(again).toHaveLength(3)
    expect(again[2]).not.toBe(keys[0])
    expect(orders[0]!.packageId).toBe('p2')
  })

  it('lists my orders a page at a time with their status', async () => {
    const statuses = ['paid', 'closed', 'refunded'] as const
    for (let i = 0; i < 13; i++) orders.push({ ...newOrder({ packageId: 'p2', scene: 'page' }), orderId: `LX${i}`, status: statuses[i % 3]!, payment: null })
    orders.unshift({ ...newOrder({ packageId: 'p1', scene: 'page' }), orderId: 'LXPENDING' })
    const root = await mount()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=log-row]')).toHaveLength(10))
    const labels = [...root.querySelectorAll('[data-testid=order-status]')].map((s) => s.textContent)
    expect(labels.slice(0, 4)).toEqual(['待支付 · 去支付', '已支付', '已关闭', '已退款'])
    expect(root.querySelector('[data-testid=log-row]')!.textContent).toContain('¥9.90')
    button(root, '下一页').click()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=log-row]')).toHaveLength(4))
    expect(calls.filter((c) => c.path === 'pay/order/list').at(-1)?.body).toEqual({ pageNum: 2, pageSize: 10 })
    // A pending order can be paid from the list.
    button(root, '上一页').click()
    await vi.waitFor(() => expect(button(root, '待支付 · 去支付')).toBeTruthy())
    button(root, '待支付 · 去支付').click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=checkout]')?.textContent).toContain('体验包'))
  })
})

describe('recharge helpers', () => {
  it('formats money, grants and the countdown; picks a QR code on desktop and a page on phones', () => {
    expect([formatYuan(990), formatYuan(2990), formatYuan(1)]).toEqual(['¥9.90', '¥29.90', '¥0.01'])
    expect(grantsText({ mj: 40, suno: 0, tokens: 800_000 })).toBe('对话额度 80.0w+ tokens · 绘画次数 40 次')
    expect([countdown(90_500, 0), countdown(0, 10)]).toEqual(['01:31', '00:00'])
    const wechat = { provider: 'wechat', scenes: ['native', 'h5', 'jsapi'], demo: false } as const
    const alipay = { provider: 'alipay', scenes: ['page', 'wap'], demo: false } as const
    const demo = { provider: 'demo', scenes: ['native', 'h5', 'jsapi', 'page', 'wap'], demo: true } as const
    expect([sceneFor({ ...wechat, scenes: [...wechat.scenes] }, false), sceneFor({ ...wechat, scenes: [...wechat.scenes] }, true)]).toEqual(['native', 'h5'])
    expect([sceneFor({ ...alipay, scenes: [...alipay.scenes] }, false), sceneFor({ ...alipay, scenes: [...alipay.scenes] }, true)]).toEqual(['page', 'wap'])
    expect([sceneFor({ ...demo, scenes: [...demo.scenes] }, false), sceneFor({ ...demo, scenes: [...demo.scenes] }, true)]).toEqual(['native', 'wap'])
    expect(sceneFor({ provider: 'wechat', scenes: ['jsapi'], demo: false }, false)).toBeNull()
  })
})
