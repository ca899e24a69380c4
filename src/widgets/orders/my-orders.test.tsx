// @vitest-environment happy-dom
import { bodies, button, fake, fakeServer, mount, order, push, serve, startFakeOrders } from './fake-orders.test-helper'

// <lingxi-orders view="mine">: my orders and their red packets, against the loopback fake of
// docs/orders-wire.md (fake-orders.test-helper.ts). Runs under real React and preact/compat.

startFakeOrders()

describe('<lingxi-orders> my orders and red packets', () => {
  it('my orders: 领取红包 opens the packet, 開 sends it and follows its state to SENT', async () => {
    fake.mine = [order({ status: 'approved', reviewTime: Date.now() }), order({ orderId: 'o2', status: 'submitted' })]
    fake.payStates = ['SENDING', 'SENT']
    const root = mount({ view: 'mine' })
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=my-order]')).toHaveLength(2))
    expect(bodies('orders/mine')[0]).toEqual({ quality: false, pageNum: 1, pageSize: 12 })
    expect(root.querySelectorAll('[data-testid=my-order]')[1]!.textContent).toContain('审核中')
    button(root, '领取红包')!.click()
    const packet = () => root.querySelector('[data-testid=red-packet]')!
    await vi.waitFor(() => expect(packet().getAttribute('data-phase')).toBe('closed'))
    expect(packet().textContent).toContain('12.50')
    button(packet(), '开红包，奖励 12.50 元')!.click()
    await vi.waitFor(() => expect(packet().getAttribute('data-phase')).toBe('open'))
    expect(root.querySelector('[data-testid=red-packet-amount]')!.textContent).toBe('12.50')
    await vi.waitFor(() => expect(packet().getAttribute('data-pay-state')).toBe('SENT'), { timeout: 8000 })
    expect(root.querySelector('[data-testid=red-packet-state]')!.textContent).toContain('请在微信中领取')
    expect(bodies('wx-red-pack/v2/send')).toEqual([{ orderId: 'o1' }])
    // the list follows: no second claim
    await vi.waitFor(() => expect(root.querySelector('[data-testid=my-order] [data-testid=pay-state]')!.textContent).toContain('已发放'))
  }, 15_000)

  it('a packet the server is still sending (paying) keeps the coin turning, then opens and follows its state', async () => {
    fake.mine = [order({ status: 'approved', reviewTime: Date.now() })]
    fake.sendState = 'paying'
    fake.payStates = ['paying', 'SENDING', 'SENT']
    const root = mount({ view: 'mine' })
    await vi.waitFor(() => expect(button(root, '领取红包')).toBeDefined())
    button(root, '领取红包')!.click()
    const packet = () => root.querySelector('[data-testid=red-packet]')!
    await vi.waitFor(() => expect(packet().getAttribute('data-phase')).toBe('closed'))
    button(packet(), '开红包，奖励 12.50 元')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=red-packet-paying]')?.textContent).toContain('红包发放中'))
    expect(packet().getAttribute('data-phase')).toBe('opening')
    expect(root.querySelector('[data-testid=red-packet-error]')).toBeNull()
    await vi.waitFor(() => expect(packet().getAttribute('data-phase')).toBe('open'), { timeout: 10_000 })
    await vi.waitFor(() => expect(packet().getAttribute('data-pay-state')).toBe('SENT'), { timeout: 10_000 })
    expect(bodies('wx-red-pack/v2/send')).toHaveLength(1)
    expect(bodies('wx-red-pack/v2/check-state')).toHaveLength(3)
  }, 20_000)

  it('my orders follow the account channel: a packet received meanwhile shows 已领取 unasked', async () => {
    fake.serveChannel = true
    fake.mine = [order({ status: 'approved', payState: 'SENT', reviewTime: Date.now() }), order({ orderId: 'o2', status: 'approved', payState: 'SENT' })]
    const root = mount({ view: 'mine' })
    const badges = () => [...root.querySelectorAll('[data-testid=my-order] [data-testid=pay-state]')].map((b) => b.textContent)
    await vi.waitFor(() => expect(badges()).toEqual(['红包已发放，待领取', '红包已发放，待领取']))
    await vi.waitFor(() => expect(fake.channels.length).toBeGreaterThan(0))
    push('redpack', { orderId: 'o2', payState: 'RECEIVED', paying: false, mchBillno: 'LX2', amountFen: 1250, sendTime: 1, receiveTime: 2 })
    await vi.waitFor(() => expect(badges()).toEqual(['红包已发放，待领取', '红包已领取']))
    expect(bodies('wx-red-pack/v2/check-state')).toHaveLength(0)
  })

  it('a refusal (WeChat not bound) says so in the packet and offers WeChat login', async () => {
    fake.mine = [order({ status: 'approved' })]
    const root = mount({ view: 'mine' })
    await vi.waitFor(() => expect(button(root, '领取红包')).toBeDefined())
    // the fake refuses send: this account has no WeChat bound
    fakeServer().removeAllListeners('request')
    fakeServer().on('request', (req, res) => {
      if (req.url?.endsWith('/wx-red-pack/v2/send')) {
        res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
        res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept')
        if (req.method === 'OPTIONS') return res.end()
        res.setHeader('content-type', 'application/json')
        return res.end(JSON.stringify({ code: 40000001, message: '请先绑定微信（使用微信登录一次）', data: null }))
      }
      void serve(req, res)
    })
    try {
      button(root, '领取红包')!.click()
      const packet = () => root.querySelector('[data-testid=red-packet]')!
      await vi.waitFor(() => expect(packet()).not.toBeNull())
      button(packet(), '开红包，奖励 12.50 元')!.click()
      await vi.waitFor(() => expect(packet().getAttribute('data-phase')).toBe('refused'))
      expect(root.querySelector('[data-testid=red-packet-error]')!.textContent).toBe('请先绑定微信（使用微信登录一次）')
      expect(button(packet(), '微信登录绑定')).toBeDefined()
      expect(button(packet(), '重试')).toBeDefined()
    } finally {
      fakeServer().removeAllListeners('request')
      fakeServer().on('request', (req, res) => void serve(req, res))
    }
  })
})
