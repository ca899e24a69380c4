// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { answerConfirm, installGlobalListeners } from '../../core/events'
import { $confirm, $toasts, $token } from '../../core/stores'
import type { Activity, Order } from './state'

// <lingxi-orders> against a loopback fake of docs/orders-wire.md (orders, red packets), the chat
// pipeline's stream frames for AI 起草 and the upload calls. Runs under real React and preact/compat.

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3, 4])
const DAY = 86_400_000

function activity(n: number, quality = false): Activity {
  return {
    activityId: `a${n}`,
    title: `${quality ? '优质' : ''}活动${n}`,
    brief: '## 简介\n\n推广**新品**',
    requirements: '不少于 300 字\n配图 3 张',
    platform: 'xiaohongshu',
    platformName: '小红书',
    quality,
    rewardFen: 1250,
    budgetFen: 100_000,
    spentFen: 2500,
    startTime: Date.now() - DAY,
    endTime: Date.now() + 7 * DAY,
    status: 'open',
    cover: null,
    sessions: [
      {
        activitySessionId: `s${n}1`,
        activityId: `a${n}`,
        name: '第 1 场',
        startTime: Date.now() - DAY,
        endTime: Date.now() + DAY,
        places: 10,
        placesLeft: 3,
        status: 'open'
      },
      {
        activitySessionId: `s${n}2`,
        activityId: `a${n}`,
        name: '第 2 场',
        startTime: Date.now() + DAY,
        endTime: Date.now() + 2 * DAY,
        places: 5,
        placesLeft: 5,
        status: 'upcoming'
      }
    ]
  }
}

function order(patch: Partial<Order> = {}): Order {
  return {
    orderId: 'o1',
    activityId: 'a1',
    activitySessionId: 's11',
    status: 'taken',
    draft: '',
    link: null,
    screenshots: [],
    rejectReason: null,
    rewardFen: 1250,
    payState: 'none',
    takeTime: Date.now(),
    submitTime: null,
    reviewTime: null,
    activity: { title: '活动1', platformName: '小红书', quality: false },
    ...patch
  }
}

const calls: { path: string; body: Record<string, unknown> }[] = []
let myOrder: Order | null = null
let mine: Order[] = []
let payStates: string[] = []
/** What send answers: a pay state, or `paying` (the server is still sending it). */
let sendState = 'SENDING'
/** Open account-channel streams (`/ai-chat/sse/subscribe`, served when `serveChannel`), and a way to push an event on them. */
let serveChannel = false
let channels: ServerResponse[] = []
const push = (event: string, data: unknown) => {
  for (const res of channels) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
}
/** activity/list refuses with this (no permission…). */
let refuseList: string | null = null
/** Holds the draft stream open until the stop call (to test 停止). */
let holdStream = false
let release: (() => void) | null = null
let server: ReturnType<typeof createServer>

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept, last-event-id')
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT')
  if (req.method === 'OPTIONS') return res.end()
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/api/v1/', '')
  if (path === 'ai-chat/sse/subscribe' && serveChannel) {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(': open\n\n')
    channels.push(res)
    res.on('close', () => (channels = channels.filter((c) => c !== res)))
    return
  }
  if (path.startsWith('ai-chat/sse/subscribe/')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write('id: 1\nevent: delta\ndata: {"content":"【标题】新品"}\n\n')
    if (holdStream) {
      await new Promise<void>((r) => (release = r))
      res.write('id: 2\nevent: stopped\ndata: {"status":"interrput"}\n\n')
      return res.end()
    }
    await new Promise((r) => setTimeout(r, 20))
    res.write('id: 2\nevent: delta\ndata: {"content":"真好用"}\n\n')
    res.write('id: 3\nevent: done\ndata: {"status":"complete"}\n\n')
    return res.end()
  }
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const raw = Buffer.concat(chunks)
  const body = (req.method === 'PUT' ? { bytes: raw.length } : JSON.parse(raw.toString() || '{}')) as Record<string, unknown>
  calls.push({ path, body })
  const send = (data: unknown, code = 2000, message = 'success') => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ code, message, data }))
  }
  const pay = (payState: string) => ({
    orderId: body.orderId,
    ...(payState === 'paying' ? { payState: 'none', paying: true } : { payState, paying: false }),
    mchBillno: 'LX1',
    amountFen: 1250,
    sendTime: 1,
    receiveTime: null
  })
  switch (path) {
    case 'orders/activity/list': {
      if (refuseList) return send(null, 40300001, refuseList)
      const all = [1, 2, 3].map((n) => activity(n, body.quality === true))
      return send({ list: all, total: all.length, pageNum: body.pageNum, pageSize: body.pageSize })
    }
    case 'orders/activity/detail': {
      const a = activity(1)
      return send({ activity: a, session: a.sessions[0], myOrder })
    }
    case 'orders/take':
      myOrder = order()
      return send(myOrder)
    case 'orders/cancel':
      myOrder = { ...myOrder!, status: 'cancelled' }
      return send(myOrder)
    case 'orders/save':
      myOrder = { ...myOrder!, draft: String(body.draft) }
      return send(myOrder)
    case 'ai-chat/topic/message/stop':
      release?.()
      return send({ messageId: 'r', content: '【标题】新品', status: 'interrput' })
    case 'orders/draft':
      return send({ requestId: 'rq', messageId: 'm', replyId: 'r', topicId: 't' })
    case 'orders/submit':
      myOrder = { ...myOrder!, status: 'submitted', link: String(body.link), screenshots: body.screenshots as string[], submitTime: Date.now() }
      return send(myOrder)
    case 'orders/mine':
      return send({ list: mine, total: mine.length, pageNum: 1, pageSize: 12 })
    case 'wx-red-pack/v2/send':
      return send(pay(sendState))
    case 'wx-red-pack/v2/check-state':
      return send(pay(payStates.shift() ?? 'SENT'))
    case 'oss/upload/getOssSTS':
      return send({
        provider: 'local',
        uploadUrl: '/api/v1/oss/upload/put/images/s.png?sig=1',
        method: 'PUT',
        headers: {},
        expiresAt: 0,
        key: 'images/s.png',
        fileUrl: ''
      })
    case 'oss/upload/put/images/s.png':
      return send(null)
    case 'oss/upload/complete':
      return send({
        imageId: 'i1',
        url: '/files/images/s.png',
        thumbUrl: '',
        name: 's.png',
        contentType: 'image/png',
        size: 16,
        width: 1,
        height: 1,
        createTime: 1
      })
    case 'user/info':
      return send({ accountId: 'a', phone: '13800138000', nickName: '', avatarUrl: '', state: 1, tokens: 1, mjCount: 1, sunoCount: 1, permissionCodes: [] })
    default:
      return send(null, 40400001, path)
  }
}

let copied: string[] = []
beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  installGlobalListeners()
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void copied.push(t) } })
  await import('./orders.element')
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(() => {
  calls.length = 0
  copied = []
  myOrder = null
  mine = []
  payStates = []
  sendState = 'SENDING'
  serveChannel = false
  refuseList = null
  holdStream = false
  release = null
  $toasts.set([])
  $token.set('tok')
})
afterEach(() => {
  for (const res of channels) res.end()
  channels = []
  document.body.innerHTML = ''
  $token.set(null)
  while ($confirm.get()) answerConfirm(false)
})

const button = (root: ParentNode, name: string) =>
  [...root.querySelectorAll<HTMLElement>('button')].find((b) => b.textContent?.trim() === name || b.getAttribute('aria-label') === name)

function mount(attrs: Record<string, string> = {}) {
  const el = document.createElement('lingxi-orders')
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v)
  document.body.append(el)
  return el.shadowRoot!
}

const bodies = (path: string) => calls.filter((c) => c.path === path).map((c) => c.body)

describe('<lingxi-orders>', () => {
  it('asks a logged-out visitor to log in', async () => {
    $token.set(null)
    const root = mount()
    await vi.waitFor(() => expect(root.textContent).toContain('登录后接单'))
  })

  it('lists activities with reward in 元, places left, window and session links', async () => {
    const root = mount()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=activity-card]')).toHaveLength(3))
    expect(bodies('orders/activity/list')[0]).toEqual({ quality: false, pageNum: 1, pageSize: 12 })
    const card = root.querySelector('[data-testid=activity-card]')!
    expect(card.querySelector('[data-testid=reward]')!.textContent).toBe('12.50')
    expect(card.querySelector('[data-testid=places-left]')!.textContent).toBe('8')
    expect(card.textContent).toContain('小红书')
    expect(card.textContent).toContain('进行中')
    const links = [...card.querySelectorAll<HTMLAnchorElement>('[data-testid=session-link]')]
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['/orders/ordersDetail/a1/s11', '/orders/ordersDetail/a1/s12'])
    expect(links[0]!.textContent).toContain('余 3/10')
    expect(links[1]!.textContent).toContain('未开始')
  })

  it('a refusal (no permission) is said in place of the list', async () => {
    refuseList = '没有优质接单平台的权限'
    const root = mount({ quality: '' })
    await vi.waitFor(() => expect(root.querySelector('[data-testid=list-refused]')?.textContent).toBe('没有优质接单平台的权限'))
    expect(root.textContent).not.toContain('暂时没有任务')
  })

  it('filters by platform, status and keyword; quality asks for quality activities', async () => {
    const root = mount({ quality: '' })
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=activity-card]')).toHaveLength(3))
    expect(root.querySelector('h2')!.textContent).toContain('优质接单平台')
    const selects = root.querySelectorAll('select')
    selects[0]!.value = 'douyin'
    selects[0]!.dispatchEvent(new Event('change', { bubbles: true }))
    await vi.waitFor(() => expect(bodies('orders/activity/list')).toHaveLength(2))
    selects[1]!.value = 'open'
    selects[1]!.dispatchEvent(new Event('change', { bubbles: true }))
    await vi.waitFor(() => expect(bodies('orders/activity/list')).toHaveLength(3))
    const input = root.querySelector<HTMLInputElement>('input[type=search]')!
    input.value = ' 美妆 '
    input.dispatchEvent(new Event('input', { bubbles: true }))
    button(root, '搜索')!.click()
    await vi.waitFor(() => expect(bodies('orders/activity/list')).toHaveLength(4))
    expect(bodies('orders/activity/list').at(-1)).toEqual({ quality: true, platform: 'douyin', status: 'open', keyword: '美妆', pageNum: 1, pageSize: 12 })
    expect(root.querySelector('[data-testid=session-link]')!.getAttribute('href')).toBe('/miracleOrders/ordersDetail/a1/s11')
  })

  it('detail: take an order after confirming, AI 起草 streams into the draft, copy it, submit with a screenshot', async () => {
    const root = mount({ view: 'detail', 'activity-id': 'a1', 'session-id': 's11' })
    await vi.waitFor(() => expect(root.querySelector('h2')?.textContent).toBe('活动1'))
    expect(root.querySelector('[data-testid=detail-places-left]')!.textContent).toContain('3')
    expect(root.textContent).toContain('不少于 300 字')
    button(root, '立即接单')!.click()
    await vi.waitFor(() => expect($confirm.get()?.message).toContain('占用 1 个名额'))
    answerConfirm(true)
    await vi.waitFor(() => expect(root.querySelector('[data-testid=draft]')).not.toBeNull())
    expect(bodies('orders/take')).toEqual([{ activitySessionId: 's11' }])
    expect(root.querySelector('[data-testid=order-status]')!.textContent).toBe('待提交')

    button(root, 'AI 起草')!.click()
    const draft = () => root.querySelector<HTMLTextAreaElement>('[data-testid=draft]')!
    await vi.waitFor(() => expect(draft().value).toBe('【标题】新品真好用'))
    expect(bodies('orders/draft')).toEqual([{ orderId: 'o1' }])
    await vi.waitFor(() => expect(bodies('orders/save')).toEqual([{ orderId: 'o1', draft: '【标题】新品真好用' }]))
    await vi.waitFor(() => expect(button(root, 'AI 起草')).toBeDefined())
    button(root, '复制草稿')!.click()
    await vi.waitFor(() => expect(copied).toEqual(['【标题】新品真好用']))

    // nothing is sent while the form is incomplete
    button(root, '提交审核')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=submit-error]')!.textContent).toBe('请填写发布链接'))
    const link = root.querySelector<HTMLInputElement>('#lx-od-link')!
    link.value = 'https://www.xiaohongshu.com/explore/1'
    link.dispatchEvent(new Event('input', { bubbles: true }))
    button(root, '提交审核')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=submit-error]')!.textContent).toBe('请至少上传 1 张截图'))
    expect(bodies('orders/submit')).toHaveLength(0)

    const input = root.querySelector<HTMLInputElement>('[data-testid=screenshot-input]')!
    Object.defineProperty(input, 'files', { configurable: true, value: [new File([PNG], 'shot.png', { type: 'image/png' })] })
    input.dispatchEvent(new Event('change', { bubbles: true }))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=screenshot]')!.getAttribute('data-status')).toBe('done'))
    button(root, '提交审核')!.click()
    await vi.waitFor(() =>
      expect(bodies('orders/submit')).toEqual([{ orderId: 'o1', link: 'https://www.xiaohongshu.com/explore/1', screenshots: ['/files/images/s.png'] }])
    )
    await vi.waitFor(() => expect(root.querySelector('[data-testid=order-status]')!.textContent).toBe('审核中'))
    expect(root.querySelector('[data-testid=draft]')).toBeNull()
    expect(root.querySelector('img[alt="截图 1"]')!.getAttribute('src')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/images\/s\.png$/)
  })

  it('停止 ends AI 起草 where it is and keeps that text', async () => {
    holdStream = true
    myOrder = order()
    const root = mount({ view: 'detail', 'activity-id': 'a1', 'session-id': 's11' })
    await vi.waitFor(() => expect(button(root, 'AI 起草')).toBeDefined())
    button(root, 'AI 起草')!.click()
    const draft = () => root.querySelector<HTMLTextAreaElement>('[data-testid=draft]')!
    await vi.waitFor(() => expect(draft().value).toBe('【标题】新品'))
    expect(draft().readOnly).toBe(true)
    button(root, '停止')!.click()
    await vi.waitFor(() => expect(bodies('ai-chat/topic/message/stop')).toEqual([{ requestId: 'rq' }]))
    await vi.waitFor(() => expect(button(root, 'AI 起草')).toBeDefined())
    expect(root.textContent).toContain('已停止')
    expect(draft().value).toBe('【标题】新品')
    expect(draft().readOnly).toBe(false)
  })

  it('cancelling a taken order asks first and gives the place back', async () => {
    myOrder = order()
    const root = mount({ view: 'detail', 'activity-id': 'a1', 'session-id': 's11' })
    await vi.waitFor(() => expect(button(root, '取消接单')).toBeDefined())
    button(root, '取消接单')!.click()
    await vi.waitFor(() => expect($confirm.get()?.message).toContain('名额将退回'))
    answerConfirm(false)
    await new Promise((r) => setTimeout(r, 50))
    expect(bodies('orders/cancel')).toHaveLength(0)
    button(root, '取消接单')!.click()
    await vi.waitFor(() => expect($confirm.get()).not.toBeNull())
    answerConfirm(true)
    await vi.waitFor(() => expect(root.querySelector('[data-testid=order-status]')!.textContent).toBe('已取消'))
    expect(bodies('orders/cancel')).toEqual([{ orderId: 'o1' }])
    expect(root.querySelector('[data-testid=draft]')).toBeNull()
    expect(button(root, '立即接单')).toBeDefined()
  })

  it('a rejected order shows the reason and can be submitted again', async () => {
    myOrder = order({ status: 'rejected', rejectReason: '截图不清晰', link: 'https://x.example/1', screenshots: ['/files/a.png'], draft: '旧稿' })
    const root = mount({ view: 'detail', 'activity-id': 'a1', 'session-id': 's11' })
    await vi.waitFor(() => expect(root.textContent).toContain('截图不清晰'))
    expect(root.querySelector<HTMLTextAreaElement>('[data-testid=draft]')!.value).toBe('旧稿')
    expect(root.querySelector<HTMLInputElement>('#lx-od-link')!.value).toBe('https://x.example/1')
    expect(root.querySelectorAll('[data-testid=screenshot]')).toHaveLength(1)
    expect(button(root, '重新提交')).toBeDefined()
  })

  it('my orders: 领取红包 opens the packet, 開 sends it and follows its state to SENT', async () => {
    mine = [order({ status: 'approved', reviewTime: Date.now() }), order({ orderId: 'o2', status: 'submitted' })]
    payStates = ['SENDING', 'SENT']
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
    mine = [order({ status: 'approved', reviewTime: Date.now() })]
    sendState = 'paying'
    payStates = ['paying', 'SENDING', 'SENT']
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
    serveChannel = true
    mine = [order({ status: 'approved', payState: 'SENT', reviewTime: Date.now() }), order({ orderId: 'o2', status: 'approved', payState: 'SENT' })]
    const root = mount({ view: 'mine' })
    const badges = () => [...root.querySelectorAll('[data-testid=my-order] [data-testid=pay-state]')].map((b) => b.textContent)
    await vi.waitFor(() => expect(badges()).toEqual(['红包已发放，待领取', '红包已发放，待领取']))
    await vi.waitFor(() => expect(channels.length).toBeGreaterThan(0))
    push('redpack', { orderId: 'o2', payState: 'RECEIVED', paying: false, mchBillno: 'LX2', amountFen: 1250, sendTime: 1, receiveTime: 2 })
    await vi.waitFor(() => expect(badges()).toEqual(['红包已发放，待领取', '红包已领取']))
    expect(bodies('wx-red-pack/v2/check-state')).toHaveLength(0)
  })

  it('a refusal (WeChat not bound) says so in the packet and offers WeChat login', async () => {
    mine = [order({ status: 'approved' })]
    const root = mount({ view: 'mine' })
    await vi.waitFor(() => expect(button(root, '领取红包')).toBeDefined())
    // the fake refuses send: this account has no WeChat bound
    server.removeAllListeners('request')
    server.on('request', (req, res) => {
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
      server.removeAllListeners('request')
      server.on('request', (req, res) => void serve(req, res))
    }
  })
})
