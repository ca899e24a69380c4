// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { $toasts, $token } from '../../core/stores'
import { EVENT_HOT_COMMAND, type HotItem, type HotSource } from './state'

// <lingxi-hot-news> against a loopback fake of the hot endpoints (docs/tools-wire.md) and the chat
// pipeline's stream frames. Runs under real React and under preact/compat.

const sources: HotSource[] = [
  { sourceId: 'demo', name: '示例热榜', type: 'demo', demo: true, updatedTime: Date.now(), stale: false },
  { sourceId: 'weibo', name: '微博', type: 'dailyhot', demo: false, updatedTime: Date.now() - 3_600_000, stale: true },
  { sourceId: 'zhihu', name: '知乎', type: 'dailyhot', demo: false, updatedTime: Date.now(), stale: false }
]
const items = (prefix: string): HotItem[] => [
  {
    id: `${prefix}1`,
    title: `${prefix}第一条`,
    url: `https://example.com/${prefix}/1`,
    hot: 1234567,
    desc: '摘要一',
    cover: 'https://foreign.example/c.jpg',
    time: null,
    demo: false
  },
  { id: `${prefix}2`, title: `${prefix}第二条`, url: `https://example.com/${prefix}/2`, hot: 9999, desc: '', cover: '', time: null, demo: false },
  { id: `${prefix}3`, title: `${prefix}第三条`, url: `https://example.com/${prefix}/3`, hot: null, desc: '', cover: '', time: null, demo: false }
]

const calls: { path: string; body: Record<string, unknown> }[] = []
/** Holds the interpretation stream open until released (to test stop). */
let hold: (() => void) | null = null
let holdStream = false
let server: ReturnType<typeof createServer>

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept, last-event-id')
  if (req.method === 'OPTIONS') return res.end()
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/api/v1/', '')
  if (path.startsWith('ai-chat/sse/subscribe/')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write('id: 1\nevent: delta\ndata: {"content":"## 解读\\n\\n这条热点"}\n\n')
    if (holdStream) {
      await new Promise<void>((r) => (hold = r))
      res.write('id: 2\nevent: stopped\ndata: {"status":"interrput"}\n\n')
      return res.end()
    }
    await new Promise((r) => setTimeout(r, 20))
    res.write('id: 2\nevent: delta\ndata: {"content":"值得关注。"}\n\n')
    res.write('id: 3\nevent: done\ndata: {"status":"complete"}\n\n')
    return res.end()
  }
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>
  calls.push({ path, body })
  if (path === 'ai-chat/topic/message/stop') hold?.()
  const source = sources.find((s) => s.sourceId === body.sourceId)
  const data: Record<string, unknown> = {
    'hot/sources': sources,
    'hot/list': source && { source, items: items(source.sourceId) },
    'hot/interpret': { requestId: 'rq', messageId: 'm', replyId: 'r', topicId: 't' },
    'ai-chat/topic/message/stop': { messageId: 'r', content: '## 解读\n\n这条热点', status: 'interrput' }
  }
  res.setHeader('content-type', 'application/json')
  res.end(JSON.stringify(path in data ? { code: 2000, message: 'success', data: data[path] } : { code: 40400001, message: path, data: null }))
}

let copied: string[] = []
beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void copied.push(t) } })
  await import('./hot-news.element')
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(() => {
  calls.length = 0
  copied = []
  holdStream = false
  hold = null
  $toasts.set([])
  $token.set('tok')
})
afterEach(() => {
  document.body.innerHTML = ''
  $token.set(null)
})

const button = (root: ParentNode, name: string) =>
  [...root.querySelectorAll<HTMLElement>('button')].find((b) => b.textContent?.trim() === name || b.getAttribute('aria-label') === name)

async function mount(attrs: Record<string, string> = {}) {
  const el = document.createElement('lingxi-hot-news')
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v)
  document.body.append(el)
  const root = el.shadowRoot!
  await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=hot-item]')).toHaveLength(3))
  return root
}

describe('<lingxi-hot-news>', () => {
  it('shows one tab per source and the first list ranked, with heat in w+ and 示例数据 marks', async () => {
    const root = await mount()
    const tabs = [...root.querySelectorAll('[role=tab]')]
    expect(tabs.map((t) => t.textContent)).toEqual(['示例热榜', '微博', '知乎'])
    expect(tabs[0]!.getAttribute('aria-selected')).toBe('true')
    expect(root.querySelector('[data-testid=demo-banner]')!.textContent).toContain('示例数据')
    const rows = [...root.querySelectorAll('[data-testid=hot-item]')]
    expect(rows[0]!.querySelector('[data-testid=heat]')!.textContent).toContain('123.4w+')
    expect(rows[1]!.querySelector('[data-testid=heat]')!.textContent).toContain('9999')
    expect(rows[2]!.querySelector('[data-testid=heat]')).toBeNull()
    expect(rows.every((r) => r.textContent?.includes('示例'))).toBe(true)
    // the original opens in a new tab, without giving it a handle on this page
    const link = rows[0]!.querySelector('a')!
    expect(link.getAttribute('href')).toBe('https://example.com/demo/1')
    expect(link.getAttribute('target')).toBe('_blank')
    expect(link.getAttribute('rel')).toContain('noopener')
    // foreign covers are never loaded
    expect(root.querySelector('img')).toBeNull()
  })

  it('switches source by click and by arrow keys; a stale source says so', async () => {
    const root = await mount()
    button(root, '微博')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=hot-item]')!.textContent).toContain('weibo第一条'))
    expect(calls.filter((c) => c.path === 'hot/list').map((c) => c.body.sourceId)).toEqual(['demo', 'weibo'])
    expect(root.querySelector('[data-testid=stale-notice]')!.textContent).toContain('暂时无法更新')
    expect(root.querySelector('[data-testid=demo-banner]')).toBeNull()
    root.querySelector('[role=tablist]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=hot-item]')!.textContent).toContain('zhihu第一条'))
    expect(root.querySelector('[role=tab][aria-selected=true]')!.textContent).toBe('知乎')
    expect(root.querySelector('[data-testid=stale-notice]')).toBeNull()
  })

  it('copies the current list as text, from its own button and from the host header command', async () => {
    const root = await mount()
    button(root, '复制列表')!.click()
    await vi.waitFor(() => expect(copied).toHaveLength(1))
    expect(copied[0]).toBe(
      '示例热榜（示例数据，非真实新闻）\n1. demo第一条（热度 123.4w+）\n   https://example.com/demo/1\n2. demo第二条（热度 9999）\n   https://example.com/demo/2\n3. demo第三条\n   https://example.com/demo/3'
    )
    expect($toasts.get().map((t) => t.message)).toContain('已复制到剪切板！')
    dispatchEvent(new CustomEvent(EVENT_HOT_COMMAND, { detail: { command: 'copy' } }))
    await vi.waitFor(() => expect(copied).toHaveLength(2))
    dispatchEvent(new CustomEvent(EVENT_HOT_COMMAND, { detail: { command: 'list' } }))
    await vi.waitFor(() => expect(root.querySelector('dialog[aria-label=热榜来源]')!.hasAttribute('open')).toBe(true))
    button(root.querySelector('dialog[aria-label=热榜来源]')!, '知乎')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=hot-item]')!.textContent).toContain('zhihu第一条'))
  })

  it('AI 解读 streams a commentary, rendered, then offers copy', async () => {
    const root = await mount()
    button(root, 'AI 解读：demo第二条')!.click()
    const panel = () => root.querySelector('[data-testid=interpretation]')!
    await vi.waitFor(() => expect(panel().getAttribute('data-status')).toBe('complete'))
    expect(calls.find((c) => c.path === 'hot/interpret')!.body).toEqual({ sourceId: 'demo', itemId: 'demo2' })
    // The markdown renderer (loaded lazily, updated in an effect) may show the last text a moment after 'complete' on a busy machine.
    await vi.waitFor(() => expect(panel().textContent).toContain('这条热点值得关注。'))
    await vi.waitFor(() => expect(panel().querySelector('h2')?.textContent).toBe('解读'))
    button(panel(), '复制全文')!.click()
    await vi.waitFor(() => expect(copied).toEqual(['## 解读\n\n这条热点值得关注。']))
  })

  it('stop ends the commentary where it is', async () => {
    holdStream = true
    const root = await mount()
    button(root, 'AI 解读：demo第一条')!.click()
    const panel = () => root.querySelector('[data-testid=interpretation]')!
    await vi.waitFor(() => expect(panel().getAttribute('data-status')).toBe('streaming'))
    button(panel(), '停止')!.click()
    await vi.waitFor(() => expect(panel().getAttribute('data-status')).toBe('interrput'))
    // The panel shows 已停止 at once; the stop request goes out a moment later.
    await vi.waitFor(() => expect(calls.find((c) => c.path === 'ai-chat/topic/message/stop')?.body).toEqual({ requestId: 'rq' }))
    expect(panel().textContent).toContain('已停止')
    expect(button(panel(), '复制全文')).toBeDefined()
  })
})
