import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { answerConfirm, installGlobalListeners } from '../../core/events'
import { $confirm, $toasts, $token } from '../../core/stores'
import type { Activity, Order } from './state'

// A loopback fake of docs/orders-wire.md (orders, red packets), the chat pipeline's stream frames
// for AI 起草 and the upload calls, and what the <lingxi-orders> tests do with the element.

export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3, 4])
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

export function order(patch: Partial<Order> = {}): Order {
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

/** What the fake holds and answers; reset before each test. */
export const fake = {
  calls: [] as { path: string; body: Record<string, unknown> }[],
  myOrder: null as Order | null,
  mine: [] as Order[],
  payStates: [] as string[],
  /** What send answers: a pay state, or `paying` (the server is still sending it). */
  sendState: 'SENDING',
  /** Open account-channel streams (`/ai-chat/sse/subscribe`) are served when set. */
  serveChannel: false,
  channels: [] as ServerResponse[],
  /** activity/list refuses with this (no permission…). */
  refuseList: null as string | null,
  /** Holds the draft stream open until the stop call (to test 停止). */
  holdStream: false,
  /** What the element wrote to the clipboard. */
  copied: [] as string[]
}
let release: (() => void) | null = null
let server: ReturnType<typeof createServer>
/** The loopback server (a test may put its own listener in front of `serve`). */
export const fakeServer = () => server

/** Pushes an event on the open account-channel streams. */
export const push = (event: string, data: unknown) => {
  for (const res of fake.channels) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
}

export async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept, last-event-id')
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT')
  if (req.method === 'OPTIONS') return res.end()
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/api/v1/', '')
  if (path === 'ai-chat/sse/subscribe' && fake.serveChannel) {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(': open\n\n')
    fake.channels.push(res)
    res.on('close', () => (fake.channels = fake.channels.filter((c) => c !== res)))
    return
  }
  if (path.startsWith('ai-chat/sse/subscribe/')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write('id: 1\nevent: delta\ndata: {"content":"【标题】新品"}\n\n')
    if (fake.holdStream) {
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
  fake.calls.push({ path, body })
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
      if (fake.refuseList) return send(null, 40300001, fake.refuseList)
      const all = [1, 2, 3].map((n) => activity(n, body.quality === true))
      return send({ list: all, total: all.length, pageNum: body.pageNum, pageSize: body.pageSize })
    }
    case 'orders/activity/detail': {
      const a = activity(1)
      return send({ activity: a, session: a.sessions[0], myOrder: fake.myOrder })
    }
    case 'orders/take':
      fake.myOrder = order()
      return send(fake.myOrder)
    case 'orders/cancel':
      fake.myOrder = { ...fake.myOrder!, status: 'cancelled' }
      return send(fake.myOrder)
    case 'orders/save':
      fake.myOrder = { ...fake.myOrder!, draft: String(body.draft) }
      return send(fake.myOrder)
    case 'ai-chat/topic/message/stop':
      release?.()
      return send({ messageId: 'r', content: '【标题】新品', status: 'interrput' })
    case 'orders/draft':
      return send({ requestId: 'rq', messageId: 'm', replyId: 'r', topicId: 't' })
    case 'orders/submit':
      fake.myOrder = { ...fake.myOrder!, status: 'submitted', link: String(body.link), screenshots: body.screenshots as string[], submitTime: Date.now() }
      return send(fake.myOrder)
    case 'orders/mine':
      return send({ list: fake.mine, total: fake.mine.length, pageNum: 1, pageSize: 12 })
    case 'wx-red-pack/v2/send':
      return send(pay(fake.sendState))
    case 'wx-red-pack/v2/check-state':
      return send(pay(fake.payStates.shift() ?? 'SENT'))
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

/** Starts the fake and the element once per file, and resets both around each test. */
export function startFakeOrders() {
  beforeAll(async () => {
    server = createServer((req, res) => void serve(req, res))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
    installGlobalListeners()
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void fake.copied.push(t) } })
    await import('./orders.element')
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))
  beforeEach(() => {
    Object.assign(fake, {
      calls: [],
      copied: [],
      myOrder: null,
      mine: [],
      payStates: [],
      sendState: 'SENDING',
      serveChannel: false,
      refuseList: null,
      holdStream: false
    })
    release = null
    $toasts.set([])
    $token.set('tok')
  })
  afterEach(() => {
    for (const res of fake.channels) res.end()
    fake.channels = []
    document.body.innerHTML = ''
    $token.set(null)
    while ($confirm.get()) answerConfirm(false)
  })
}

export const button = (root: ParentNode, name: string) =>
  [...root.querySelectorAll<HTMLElement>('button')].find((b) => b.textContent?.trim() === name || b.getAttribute('aria-label') === name)

export function mount(attrs: Record<string, string> = {}) {
  const el = document.createElement('lingxi-orders')
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v)
  document.body.append(el)
  return el.shadowRoot!
}

export const bodies = (path: string) => fake.calls.filter((c) => c.path === path).map((c) => c.body)
