import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { $token } from '../../core/stores'
import { resetPainting, type PaintingTask, type TaskButton } from './state'

// A loopback fake of the painting endpoints (docs/painting-wire.md), including the account
// channel, and what the <lingxi-painting> tests do with the element.

export const GRID: TaskButton[] = [
  ...[1, 2, 3, 4].map((index) => ({ label: `U${index}`, action: 'UPSCALE' as const, index })),
  ...[1, 2, 3, 4].map((index) => ({ label: `V${index}`, action: 'VARIATION' as const, index })),
  { label: '🔄', action: 'REROLL' }
]
export const PANS: TaskButton[] = (['left', 'right', 'up', 'down'] as const).map((direction, i) => ({
  label: ['⬅️', '➡️', '⬆️', '⬇️'][i]!,
  action: 'PAN',
  direction
}))

/** vi.waitFor with room for lazy chunks on a busy machine. */
export const waitFor = <T>(fn: () => T | Promise<T>, opts: { timeout?: number } = {}) => vi.waitFor(fn, { timeout: 5000, interval: 20, ...opts })

let seq = 0
export function task(over: Partial<PaintingTask>): PaintingTask {
  seq++
  return {
    taskId: `t${seq}`,
    kind: 'mj',
    action: 'IMAGINE',
    status: 'SUBMITTED',
    progress: 0,
    prompt: '',
    promptEn: '',
    parentId: null,
    index: null,
    imageUrl: null,
    thumbUrl: null,
    width: null,
    height: null,
    prompts: [],
    buttons: [],
    failReason: null,
    demo: true,
    published: false,
    params: null,
    createTime: 1_700_000_000_000 + seq,
    updateTime: 1_700_000_000_000 + seq,
    ...over
  }
}
export const done = (t: PaintingTask, over: Partial<PaintingTask> = {}): PaintingTask => ({
  ...t,
  status: 'SUCCESS',
  progress: 100,
  imageUrl: `http://127.0.0.1/files/${t.taskId}.png`,
  thumbUrl: `http://127.0.0.1/files/${t.taskId}-160.png`,
  width: 1024,
  height: 1024,
  buttons:
    t.action === 'UPSCALE' ? PANS : t.action === 'DESCRIBE' ? [1, 2, 3, 4].map((index) => ({ label: `P${index}`, action: 'PROMPT' as const, index })) : GRID,
  updateTime: t.updateTime + 1,
  ...over
})

export const tasks = new Map<string, PaintingTask>()
export const calls: { path: string; body: Record<string, unknown> }[] = []
export const streams = new Set<ServerResponse>()
/** channel: whether the account channel answers (false: it refuses, so the widget polls); sdDemo: whether sd/txt2img's tasks are the demo painter's. */
export const fake = { channel: true, faceSwap: false, sdDemo: true }
let server: ReturnType<typeof createServer>

export function push(t: PaintingTask) {
  tasks.set(t.taskId, t)
  for (const res of streams) res.write(`event: painting\ndata: ${JSON.stringify({ ...t, requestId: t.taskId })}\n\n`)
}

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept, last-event-id')
  if (req.method === 'OPTIONS') return res.end()
  const url = new URL(req.url ?? '/', 'http://x')
  if (url.pathname === '/config/MJHelper.json') {
    res.setHeader('content-type', 'application/json')
    return res.end(
      JSON.stringify({
        categories: [
          {
            name: '风格',
            items: [
              { label: '赛博朋克', value: 'cyberpunk' },
              { label: '水墨画', value: 'chinese ink painting' }
            ]
          },
          {
            name: '参数',
            items: [
              { label: '横图 16:9', value: '--ar 16:9' },
              { label: '竖图 9:16', value: '--ar 9:16' }
            ]
          },
          { name: '坏的', items: 'x' }
        ]
      })
    )
  }
  if (url.pathname === '/api/v1/ai-chat/sse/subscribe') {
    if (!fake.channel) {
      res.setHeader('content-type', 'application/json')
      return res.end(JSON.stringify({ code: 50000001, message: 'down', data: null }))
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.write(': open\n\n')
    streams.add(res)
    req.on('close', () => streams.delete(res))
    return
  }
  const path = url.pathname.replace('/api/v1/', '')
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>
  calls.push({ path, body })
  const ok = (data: unknown) => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ code: 2000, message: 'success', data }))
  }
  const fail = (code: number, message: string) => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ code, message, data: null }))
  }
  const created = (t: PaintingTask) => {
    tasks.set(t.taskId, t)
    ok(t)
  }
  switch (path) {
    case 'painting/imagine':
      if (String(body.prompt).includes('没钱')) return fail(40200001, '绘画次数不足')
      return created(task({ prompt: String(body.prompt) }))
    case 'painting/action': {
      const parent = tasks.get(String(body.taskId))!
      const params = body.mode || body.zoom ? { mode: body.mode, ...(body.zoom ? { zoom: body.zoom } : {}) } : null
      return created(
        task({
          action: body.action as PaintingTask['action'],
          parentId: parent.taskId,
          index: (body.index as number) ?? null,
          prompt: typeof body.prompt === 'string' ? body.prompt : parent.prompt,
          params
        })
      )
    }
    case 'painting/features':
      return ok({ actions: true, shorten: true, faceSwap: fake.faceSwap, demo: true })
    case 'painting/translate':
      return ok({ promptEn: String(body.prompt).replace('一只猫', 'a cat'), translated: true, missing: [] })
    case 'painting/shorten':
      return created(task({ action: 'SHORTEN', prompt: String(body.prompt) }))
    case 'painting/swap-face':
      return created(task({ action: 'SWAP_FACE', imageUrl: String(body.target) }))
    case 'sd/img2img':
      return created(task({ kind: 'sd', action: body.mask ? 'INPAINT' : 'IMG2IMG', prompt: String(body.prompt), params: body }))
    case 'painting/describe':
      return created(task({ action: 'DESCRIBE', imageUrl: String(body.image) }))
    case 'painting/blend':
      return created(task({ action: 'BLEND', params: { dimensions: body.dimensions } }))
    case 'painting/task/get':
      return ok(tasks.get(String(body.taskId)))
    case 'painting/task/stop': {
      const t = { ...tasks.get(String(body.taskId))!, status: 'INTERRPUT' as const, updateTime: Date.now() }
      return created(t)
    }
    case 'painting/task/list': {
      const list = [...tasks.values()].filter((t) => !body.kind || t.kind === body.kind).reverse()
      return ok({ list: list.slice(0, 10), total: list.length, pageNum: body.pageNum, pageSize: body.pageSize })
    }
    case 'sd/options':
      return ok({
        samplers: ['Euler a', 'DPM++ 2M Karras'],
        sizes: [
          { label: '方图', width: 512, height: 512 },
          { label: '竖图', width: 512, height: 768 }
        ],
        defaults: { steps: 20, cfgScale: 7, sampler: 'Euler a', width: 512, height: 512 },
        demo: true
      })
    case 'sd/txt2img':
      return created(task({ kind: 'sd', action: 'TXT2IMG', prompt: String(body.prompt), params: body, demo: fake.sdDemo }))
    case 'gallery/list':
      return ok({
        list: [
          {
            workId: 'w1',
            taskId: 'x1',
            imageUrl: 'http://127.0.0.1/files/w1.png',
            thumbUrl: 'http://127.0.0.1/files/w1-160.png',
            width: 800,
            height: 1200,
            prompt: '雪山上的灯塔 --ar 2:3',
            author: '138****8000',
            publishTime: 1,
            mine: false
          },
          {
            workId: 'w2',
            taskId: 'x2',
            imageUrl: 'http://127.0.0.1/files/w2.png',
            thumbUrl: 'http://127.0.0.1/files/w2-160.png',
            width: 1200,
            height: 800,
            prompt: '海边的猫',
            author: '我',
            publishTime: 2,
            mine: true
          }
        ],
        total: 2,
        pageNum: 1,
        pageSize: 20
      })
    case 'gallery/unpublish':
      return ok(task({ taskId: String(body.taskId) }))
    default:
      return fail(40400001, path)
  }
}

/** The fake server for the file's tests, with a clean slate before each. */
export function installFakePainting(): void {
  beforeAll(async () => {
    server = createServer((req, res) => void serve(req, res))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
    await import('./painting.element')
  })
  afterAll(() => {
    for (const res of streams) res.end()
    return new Promise<void>((r) => server.close(() => r()))
  })
  beforeEach(() => {
    // streams of earlier tests (their elements are gone) must not count as this test's channel
    for (const res of streams) res.end()
    streams.clear()
    tasks.clear()
    calls.length = 0
    fake.channel = true
    fake.faceSwap = false
    $token.set('tok')
  })
  afterEach(() => {
    document.body.innerHTML = ''
    $token.set(null)
    resetPainting()
  })
}

export async function mount(attrs: Record<string, string> = {}) {
  const el = document.createElement('lingxi-painting')
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v)
  document.body.append(el)
  return el.shadowRoot!
}
export const byText = (root: ParentNode, text: string) =>
  [...root.querySelectorAll('button')].find((b) => b.textContent?.trim() === text || b.getAttribute('aria-label') === text || b.dataset.label === text)
export const input = (el: HTMLInputElement | HTMLTextAreaElement, value: string) => {
  el.value = value
  el.dispatchEvent(new Event('input', { bubbles: true }))
}
export const choose = (el: HTMLSelectElement, value: string) => {
  el.value = value
  el.dispatchEvent(new Event('change', { bubbles: true }))
}
export const submit = (form: HTMLFormElement) => form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
/** The element, or a throw (for vi.waitFor). */
export function need<T extends Element>(root: ParentNode, selector: string): T {
  const el = root.querySelector<T>(selector)
  if (!el) throw new Error(`no ${selector}`)
  return el
}
export const card = (root: ParentNode, id: string) => root.querySelector<HTMLElement>(`[data-testid=task-card][data-task-id=${id}]`)
