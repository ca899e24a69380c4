// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ApiError } from '../../core/api'
import { configure } from '../../core/config'
import { $token } from '../../core/stores'
import {
  arrangeSources,
  formatHeat,
  hotListText,
  interpretHotItem,
  loadHotList,
  loadHotSources,
  readSourceChoice,
  SOURCES_KEY,
  saveSourceChoice,
  stopInterpret,
  type HotList,
  type HotSource
} from './state'

// The hot-news core against a loopback fake of docs/tools-wire.md (Hot news), with the chat
// pipeline's stream frames of docs/chat-wire.md for AI 解读.

let calls: { path: string; body: Record<string, unknown> }[] = []
/** The frames the interpretation stream sends, each a `[event, data]`; a pause between them. */
let frames: [string, unknown][] = []
let refuse: { code: number; message: string } | null = null
let server: ReturnType<typeof createServer>

const source: HotSource = { sourceId: 'weibo', name: '微博', type: 'dailyhot', demo: false, updatedTime: 1, stale: false }

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
  switch (path) {
    case 'hot/sources':
      return json([source, { ...source, sourceId: 'demo', name: '示例', demo: true }])
    case 'hot/list':
      return json({ source, items: [{ id: 'i1', title: '标题一', url: 'https://s.weibo.com/1', hot: 123456, desc: '', cover: '', time: null, demo: false }] })
    case 'hot/interpret':
      return json({ requestId: 'rq1', messageId: 'm1', replyId: 'r1', topicId: 't1' })
    case 'ai-chat/topic/message/stop':
      return json({ messageId: 'r1', content: '停在这里', status: 'interrput' })
    case 'user/info':
      return json({
        accountId: 'a',
        userId: 'a',
        phone: '13800138000',
        nickName: '',
        avatarUrl: '',
        state: 1,
        tokens: 1,
        mjCount: 1,
        sunoCount: 1,
        permissionCodes: []
      })
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
  refuse = null
  $token.set('tok')
})
afterEach(() => $token.set(null))

describe('hot news', () => {
  it('loads the sources and a list', async () => {
    expect((await loadHotSources()).map((s) => s.name)).toEqual(['微博', '示例'])
    const list = await loadHotList('weibo')
    expect(calls.at(-1)).toEqual({ path: 'hot/list', body: { sourceId: 'weibo' } })
    expect(list.items[0]?.title).toBe('标题一')
  })

  it('shows heat as the spec shows counts', () => {
    expect(formatHeat(9999)).toBe('9999')
    expect(formatHeat(123456)).toBe('12.3w+')
    expect(formatHeat(10000)).toBe('1.0w+')
    expect(formatHeat(null)).toBe('')
    expect(formatHeat(0)).toBe('')
  })

  it('copies a list as numbered lines with heat and links, marking sample data', () => {
    const list: HotList = {
      source: { ...source, demo: true, name: '示例热榜' },
      items: [
        { id: '1', title: '第一条', url: 'https://a.example/1', hot: 23456, desc: '', cover: '', time: null, demo: false },
        { id: '2', title: '第二条', url: '', hot: null, desc: '', cover: '', time: null, demo: false }
      ]
    }
    expect(hotListText(list)).toBe('示例热榜（示例数据，非真实新闻）\n1. 第一条（热度 2.3w+）\n   https://a.example/1\n2. 第二条')
  })

  it('AI 解读 streams the commentary and says how it ended', async () => {
    frames = [
      ['delta', { content: '这条' }],
      ['delta', { content: '热点' }],
      ['delta', { content: '说明……' }],
      ['done', { status: 'complete', usage: { promptTokens: 1, completionTokens: 2, charged: 3 } }]
    ]
    const seen: string[] = []
    const result = await interpretHotItem('weibo', 'i1', { onText: (t) => seen.push(t) })
    expect(calls[0]).toEqual({ path: 'hot/interpret', body: { sourceId: 'weibo', itemId: 'i1' } })
    expect(calls[1]?.path).toBe('ai-chat/sse/subscribe/rq1')
    expect(seen).toEqual(['这条', '这条热点', '这条热点说明……'])
    expect(result).toEqual({ status: 'complete', text: '这条热点说明……' })
  })

  it('AI 解读 reports an error event with its message', async () => {
    frames = [
      ['delta', { content: '一半' }],
      ['error', { status: 'error', code: 50000000, message: '模型服务不可用' }]
    ]
    expect(await interpretHotItem('weibo', 'i1', { onText: () => {} })).toEqual({ status: 'error', text: '一半', message: '模型服务不可用' })
  })

  it('a refusal (no tokens) rejects with the server message', async () => {
    refuse = { code: 40200001, message: '对话额度不足' }
    await expect(interpretHotItem('weibo', 'i1', { onText: () => {} })).rejects.toEqual(new ApiError(40200001, '对话额度不足'))
  })

  it('stop asks the chat pipeline to stop the reply and returns the saved text', async () => {
    expect(await stopInterpret('rq1')).toBe('停在这里')
    expect(calls.at(-1)).toEqual({ path: 'ai-chat/topic/message/stop', body: { requestId: 'rq1' } })
  })
})

describe('the reader’s sources', () => {
  const source = (sourceId: string) => ({ sourceId, name: sourceId, type: 'demo' as const, demo: true, updatedTime: null, stale: false })
  const all = ['weibo', 'zhihu', 'baidu', 'douyin'].map(source)
  const ids = (list: { sourceId: string }[]) => list.map((s) => s.sourceId)

  it('follows the saved order, puts new sources after it, drops unknown ids and leaves hidden ones out', () => {
    expect(ids(arrangeSources(all, { order: [], hidden: [] }))).toEqual(['weibo', 'zhihu', 'baidu', 'douyin'])
    expect(ids(arrangeSources(all, { order: ['baidu', 'gone', 'weibo'], hidden: ['zhihu'] }))).toEqual(['baidu', 'weibo', 'douyin'])
    expect(ids(arrangeSources(all, { order: ['baidu', 'weibo'], hidden: ['zhihu'] }, true))).toEqual(['baidu', 'weibo', 'zhihu', 'douyin'])
  })

  it('always shows at least one source', () => {
    expect(ids(arrangeSources(all, { order: ['douyin'], hidden: ['weibo', 'zhihu', 'baidu', 'douyin'] }))).toEqual(['douyin'])
  })

  it('is remembered in localStorage, and a damaged entry reads as no choice', () => {
    saveSourceChoice({ order: ['zhihu', 'weibo'], hidden: ['baidu'] })
    expect(readSourceChoice()).toEqual({ order: ['zhihu', 'weibo'], hidden: ['baidu'] })
    localStorage.setItem(SOURCES_KEY, '{"order":[1,"weibo"],"hidden":"x"}')
    expect(readSourceChoice()).toEqual({ order: ['weibo'], hidden: [] })
    localStorage.setItem(SOURCES_KEY, 'not json')
    expect(readSourceChoice()).toEqual({ order: [], hidden: [] })
  })
})
