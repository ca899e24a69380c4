// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ApiError } from '../../core/api'
import { configure } from '../../core/config'
import { $token } from '../../core/stores'
import { wechatAuthorizeUrl } from '../../core/wechat'
import { claimRedPack, draftOrder, formatWindow, formatYuan, listActivities, loadMyOrders, submitOrder, validateSubmission } from './state'

// The order-platform core against a loopback fake of docs/orders-wire.md, with the chat
// pipeline's stream frames for AI 起草.

let calls: { path: string; body: Record<string, unknown> }[] = []
let frames: [string, unknown][] = []
let refuse: { code: number; message: string } | null = null
/** The pay states check-state answers, one per call (the last repeats). */
let states: string[] = []
/** What send answers (SENDING unless a test says otherwise). */
let sendState = 'SENDING'
let server: ReturnType<typeof createServer>

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept, last-event-id')
  if (req.method === 'OPTIONS') return res.end()
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/api/v1/', '')
  if (path.startsWith('ai-chat/sse/subscribe/')) {
    calls.push({ path, body: {} })
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    let id = 0
    for (const [event, data] of frames) {
      res.write(`id: ${++id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
      await new Promise((r) => setTimeout(r, 5))
    }
    return res.end()
  }
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>
  calls.push({ path, body })
  const json = (data: unknown, code = 2000, message = 'success') => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ code, message, data }))
  }
  if (refuse) return json(null, refuse.code, refuse.message)
  // `paying`: the server is still sending it (payState none, paying true).
  const pay = (payState: string) => ({
    orderId: body.orderId,
    payState: payState === 'paying' ? 'none' : payState,
    paying: payState === 'paying',
    mchBillno: 'B1',
    amountFen: 1250,
    sendTime: 1,
    receiveTime: null,
    demo: false,
    failReason: payState === 'none' ? '商户余额不足，请稍后重试' : null
  })
  switch (path) {
    case 'orders/activity/list':
      return json({ list: [{ activityId: 'a1', title: '活动' }], total: 1, pageNum: body.pageNum, pageSize: body.pageSize })
    case 'orders/mine':
      return json({ list: [], total: 0, pageNum: 1, pageSize: 12 })
    case 'orders/submit':
      return json({ orderId: body.orderId, status: 'submitted' })
    case 'orders/draft':
      return json({ requestId: 'rq1', messageId: 'm1', replyId: 'r1', topicId: 't1' })
    case 'wx-red-pack/v2/send':
      return json(pay(sendState))
    case 'wx-red-pack/v2/check-state':
      return json(pay(states.length > 1 ? states.shift()! : (states[0] ?? 'SENT')))
    case 'user/info':
      return json({ accountId: 'a', phone: '13800138000', nickName: '', avatarUrl: '', state: 1, tokens: 1, mjCount: 1, sunoCount: 1, permissionCodes: [] })
    default:
      return json(null, 40400001, path)
  }
}

beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(() => {
  calls = []
  frames = []
  states = []
  sendState = 'SENDING'
  refuse = null
  $token.set('tok')
})
afterEach(() => $token.set(null))

describe('orders core', () => {
  it('shows money in 元 from 分', () => {
    expect(formatYuan(1200)).toBe('12')
    expect(formatYuan(1250)).toBe('12.50')
    expect(formatYuan(5)).toBe('0.05')
    expect(formatYuan(0)).toBe('0')
    expect(formatYuan(-3)).toBe('0')
  })

  it('shows a time window, the end date only when it differs', () => {
    const now = new Date(2026, 5, 1).getTime()
    expect(formatWindow(new Date(2026, 5, 2, 9, 0).getTime(), new Date(2026, 5, 2, 18, 30).getTime(), now)).toBe('6月2日 09:00 – 18:30')
    expect(formatWindow(new Date(2026, 5, 2, 9, 0).getTime(), new Date(2026, 5, 9, 18, 0).getTime(), now)).toBe('6月2日 09:00 – 6月9日 18:00')
    expect(formatWindow(new Date(2027, 0, 1, 9, 0).getTime(), new Date(2027, 0, 1, 10, 0).getTime(), now)).toBe('2027年1月1日 09:00 – 10:00')
  })

  it('checks a submission: an http(s) link and 1–6 screenshots', () => {
    expect(validateSubmission('', ['x'])).toBe('请填写发布链接')
    expect(validateSubmission('javascript:alert(1)', ['x'])).toContain('链接格式不正确')
    expect(validateSubmission('xhs.com/1', ['x'])).toContain('链接格式不正确')
    expect(validateSubmission('https://xhs.com/1', [])).toBe('请至少上传 1 张截图')
    expect(validateSubmission('https://xhs.com/1', Array(7).fill('x'))).toBe('截图最多 6 张')
    expect(validateSubmission(' https://xhs.com/1 ', ['x'])).toBeNull()
  })

  it('sends only the filters given, keyword trimmed', async () => {
    const page = await listActivities({ quality: true, keyword: '  美食 ', pageNum: 2 })
    expect(calls[0]).toEqual({ path: 'orders/activity/list', body: { quality: true, keyword: '美食', pageNum: 2, pageSize: 12 } })
    expect(page.list).toHaveLength(1)
    await listActivities({ quality: false, platform: 'douyin', status: 'open', keyword: '  ' })
    expect(calls[1]!.body).toEqual({ quality: false, platform: 'douyin', status: 'open', pageNum: 1, pageSize: 12 })
    await loadMyOrders({ quality: false })
    expect(calls[2]).toEqual({ path: 'orders/mine', body: { quality: false, pageNum: 1, pageSize: 12 } })
  })

  it('refuses a bad submission before sending anything', async () => {
    await expect(submitOrder('o1', 'ftp://x', ['u'])).rejects.toEqual(new ApiError(40000001, '链接格式不正确，请以 http:// 或 https:// 开头'))
    expect(calls).toHaveLength(0)
    await submitOrder('o1', ' https://xhs.com/p/1 ', ['/files/a.png'])
    expect(calls[0]).toEqual({ path: 'orders/submit', body: { orderId: 'o1', link: 'https://xhs.com/p/1', screenshots: ['/files/a.png'] } })
  })

  it('AI 起草 streams the draft and says how it ended', async () => {
    frames = [
      ['delta', { content: '标题：' }],
      ['delta', { content: '好物推荐' }],
      ['done', { status: 'complete' }]
    ]
    const seen: string[] = []
    const result = await draftOrder('o1', { onText: (t) => seen.push(t) })
    expect(calls[0]).toEqual({ path: 'orders/draft', body: { orderId: 'o1' } })
    expect(calls[1]!.path).toBe('ai-chat/sse/subscribe/rq1')
    expect(seen).toEqual(['标题：', '标题：好物推荐'])
    expect(result).toEqual({ status: 'complete', text: '标题：好物推荐' })
  })

  it('claims a red packet: sends, then checks until it is sent', async () => {
    states = ['SENDING', 'SENDING', 'SENT']
    const seen: string[] = []
    const last = await claimRedPack('o1', { intervalMs: 5, onState: (s) => seen.push(s.payState) })
    expect(seen).toEqual(['SENDING', 'SENDING', 'SENDING', 'SENT'])
    expect(last).toMatchObject({ payState: 'SENT', amountFen: 1250, mchBillno: 'B1' })
    const paying = calls.filter((c) => c.path.startsWith('wx-red-pack/'))
    expect(paying.map((c) => c.path)).toEqual(['wx-red-pack/v2/send', 'wx-red-pack/v2/check-state', 'wx-red-pack/v2/check-state', 'wx-red-pack/v2/check-state'])
    expect(paying.every((c) => c.body.orderId === 'o1')).toBe(true)
  })

  it('claiming stops at FAILED, and rejects with the server message when refused', async () => {
    states = ['FAILED']
    expect((await claimRedPack('o1', { intervalMs: 5 })).payState).toBe('FAILED')
    refuse = { code: 40000001, message: '请先绑定微信（使用微信登录一次）' }
    await expect(claimRedPack('o1', { intervalMs: 5 })).rejects.toEqual(new ApiError(40000001, '请先绑定微信（使用微信登录一次）'))
  })

  it('a packet WeChat did not accept (none + failReason) is not polled', async () => {
    sendState = 'none'
    const last = await claimRedPack('o1', { intervalMs: 5 })
    expect(last).toMatchObject({ payState: 'none', failReason: '商户余额不足，请稍后重试' })
    expect(calls.filter((c) => c.path === 'wx-red-pack/v2/check-state')).toHaveLength(0)
  })

  it('a packet the server is still sending (paying) is checked until it is accepted; still paying at the limit resolves so', async () => {
    sendState = 'paying'
    states = ['paying', 'SENDING', 'SENT']
    const seen: string[] = []
    const last = await claimRedPack('o1', { intervalMs: 5, onState: (s) => seen.push(s.paying ? 'paying' : s.payState) })
    expect(seen).toEqual(['paying', 'paying', 'SENDING', 'SENT'])
    expect(last).toMatchObject({ payState: 'SENT', paying: false })
    states = ['paying']
    const stuck = await claimRedPack('o1', { intervalMs: 5, maxChecks: 3 })
    expect(stuck).toMatchObject({ payState: 'none', paying: true })
    expect(calls.filter((c) => c.path === 'wx-red-pack/v2/check-state')).toHaveLength(6)
  })

  it('builds the WeChat authorize address on the API origin', () => {
    expect(wechatAuthorizeUrl('/orders?x=1', true)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/auth\/wechat\/authorize\?redirect=%2Forders%3Fx%3D1&popup=1$/)
  })
})
