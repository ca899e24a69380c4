// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { $token } from '../../core/stores'
import { $paintingDraft, $workList, putTask, resetPainting, type PaintingTask, type TaskButton } from './state'

// <lingxi-painting> against a loopback fake of the painting endpoints (docs/painting-wire.md),
// including the account channel. Runs under real React and under preact/compat.

const GRID: TaskButton[] = [
  ...[1, 2, 3, 4].map((index) => ({ label: `U${index}`, action: 'UPSCALE' as const, index })),
  ...[1, 2, 3, 4].map((index) => ({ label: `V${index}`, action: 'VARIATION' as const, index })),
  { label: '🔄', action: 'REROLL' }
]
const PANS: TaskButton[] = (['left', 'right', 'up', 'down'] as const).map((direction, i) => ({ label: ['⬅️', '➡️', '⬆️', '⬇️'][i]!, action: 'PAN', direction }))

/** vi.waitFor with room for lazy chunks on a busy machine. */
const waitFor = <T,>(fn: () => T | Promise<T>, opts: { timeout?: number } = {}) => vi.waitFor(fn, { timeout: 5000, interval: 20, ...opts })

let seq = 0
function task(over: Partial<PaintingTask>): PaintingTask {
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
const done = (t: PaintingTask, over: Partial<PaintingTask> = {}): PaintingTask => ({
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

const tasks = new Map<string, PaintingTask>()
const calls: { path: string; body: Record<string, unknown> }[] = []
const streams = new Set<ServerResponse>()
let channel = true
let server: ReturnType<typeof createServer>

function push(t: PaintingTask) {
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
    if (!channel) {
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
      return created(
        task({ action: body.action as PaintingTask['action'], parentId: parent.taskId, index: (body.index as number) ?? null, prompt: parent.prompt })
      )
    }
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
      return created(task({ kind: 'sd', action: 'TXT2IMG', prompt: String(body.prompt), params: body }))
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
  channel = true
  $token.set('tok')
})
afterEach(() => {
  document.body.innerHTML = ''
  $token.set(null)
  resetPainting()
})

async function mount(attrs: Record<string, string> = {}) {
  const el = document.createElement('lingxi-painting')
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v)
  document.body.append(el)
  return el.shadowRoot!
}
const byText = (root: ParentNode, text: string) =>
  [...root.querySelectorAll('button')].find((b) => b.textContent?.trim() === text || b.getAttribute('aria-label') === text || b.dataset.label === text)
const input = (el: HTMLInputElement | HTMLTextAreaElement, value: string) => {
  el.value = value
  el.dispatchEvent(new Event('input', { bubbles: true }))
}
const choose = (el: HTMLSelectElement, value: string) => {
  el.value = value
  el.dispatchEvent(new Event('change', { bubbles: true }))
}
const submit = (form: HTMLFormElement) => form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
/** The element, or a throw (for vi.waitFor). */
function need<T extends Element>(root: ParentNode, selector: string): T {
  const el = root.querySelector<T>(selector)
  if (!el) throw new Error(`no ${selector}`)
  return el
}
const card = (root: ParentNode, id: string) => root.querySelector<HTMLElement>(`[data-testid=task-card][data-task-id=${id}]`)

describe('<lingxi-painting> /mj', () => {
  it('logged out: a login prompt and no calls', async () => {
    $token.set(null)
    const root = await mount()
    await waitFor(() => expect(root.textContent).toContain('登录后开始 AI 绘画'))
    expect(calls).toHaveLength(0)
  })

  it('option controls follow the options typed into the prompt, and write them back', async () => {
    const root = await mount()
    await waitFor(() => expect(root.querySelector('[data-testid=mj-prompt]')).not.toBeNull())
    const text = root.querySelector<HTMLTextAreaElement>('[data-testid=mj-prompt]')!
    input(text, '橘猫 ——ar 16:9 --v 6.1 --s 250 --seed 42 --no 狗')
    const aspect = root.querySelector<HTMLSelectElement>('[data-testid=opt-aspect]')!
    await waitFor(() => expect(aspect.value).toBe('16:9'))
    expect(root.querySelector<HTMLSelectElement>('[data-testid=opt-version]')!.value).toBe('v:6.1')
    expect(root.querySelector<HTMLInputElement>('[data-testid=opt-stylize]')!.value).toBe('250')
    expect(root.querySelector<HTMLInputElement>('[data-testid=opt-seed]')!.value).toBe('42')
    // a value not offered shows as its own choice
    input(text, '橘猫 --ar 5:4')
    await waitFor(() => expect(aspect.value).toBe('5:4'))
    choose(aspect, '9:16')
    await waitFor(() => expect(text.value).toBe('橘猫 --ar 9:16'))
    choose(root.querySelector<HTMLSelectElement>('[data-testid=opt-version]')!, 'niji:6')
    await waitFor(() => expect(text.value).toBe('橘猫 --ar 9:16 --niji 6'))
    input(root.querySelector<HTMLInputElement>('[data-testid=opt-stylize]')!, '500')
    await waitFor(() => expect(text.value).toBe('橘猫 --ar 9:16 --niji 6 --s 500'))
    choose(aspect, '')
    await waitFor(() => expect(text.value).toBe('橘猫 --niji 6 --s 500'))
  })

  it('imagine → progress over the account channel → U2 loading then done, used U2 disabled', async () => {
    const root = await mount()
    await waitFor(() => expect(streams.size).toBe(1))
    const text = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=mj-prompt]'))
    input(text, '雨中的橘猫 --ar 16:9')
    submit(text.form!)
    await waitFor(() => expect(calls.find((c) => c.path === 'painting/imagine')?.body).toEqual({ prompt: '雨中的橘猫 --ar 16:9' }))
    const id = [...tasks.keys()][0]!
    await waitFor(() => expect(card(root, id)).not.toBeNull())
    expect(text.value).toBe('')
    push({ ...tasks.get(id)!, status: 'IN_PROGRESS', progress: 40 })
    await waitFor(() => expect(card(root, id)!.querySelector('[role=progressbar]')!.getAttribute('aria-valuenow')).toBe('40'))
    expect(card(root, id)!.querySelector('[data-testid=task-status]')!.textContent).toBe('绘制中 40%')
    // an older update arriving late never moves the card backwards
    push({ ...tasks.get(id)!, status: 'SUBMITTED', progress: 10 })
    push(done(tasks.get(id)!))
    await waitFor(() => expect(card(root, id)!.dataset.status).toBe('SUCCESS'))
    push({ ...tasks.get(id)!, status: 'IN_PROGRESS', progress: 90 })
    await new Promise((r) => setTimeout(r, 50))
    expect(card(root, id)!.dataset.status).toBe('SUCCESS')
    const labels = [...card(root, id)!.querySelectorAll('[role=group] button')].map((b) => b.textContent)
    expect(labels).toEqual(['U1', 'U2', 'U3', 'U4', 'V1', 'V2', 'V3', 'V4', '🔄'])
    byText(card(root, id)!, 'U2')!.click()
    await waitFor(() => expect(calls.find((c) => c.path === 'painting/action')?.body).toEqual({ taskId: id, action: 'UPSCALE', index: 2 }))
    const up = [...tasks.values()].find((t) => t.action === 'UPSCALE')!
    await waitFor(() => expect(card(root, up.taskId)).not.toBeNull())
    expect(byText(card(root, id)!, 'U2')!.disabled).toBe(true)
    expect(byText(card(root, id)!, 'U3')!.disabled).toBe(false)
    push(done(up))
    await waitFor(() => expect(byText(card(root, up.taskId)!, '⬅️')).toBeDefined())
    byText(card(root, up.taskId)!, '⬅️')!.click()
    await waitFor(() => expect(calls.filter((c) => c.path === 'painting/action').at(-1)?.body).toEqual({ taskId: up.taskId, action: 'PAN', direction: 'left' }))
    // newest first in the working list
    await waitFor(() => expect(root.querySelectorAll('[data-testid=work-list] > li')).toHaveLength(3))
    expect(root.querySelector('[data-testid=work-list] [data-testid=task-card]')!.getAttribute('data-action')).toBe('PAN')
  })

  it('polls task/get for unfinished jobs while the channel is down', async () => {
    channel = false
    const root = await mount()
    const text = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=mj-prompt]'))
    input(text, '一座灯塔')
    submit(text.form!)
    await waitFor(() => expect(tasks.size).toBe(1))
    const id = [...tasks.keys()][0]!
    tasks.set(id, done(tasks.get(id)!))
    // Polled (another refresh, e.g. of the history, may show the result first on a slow machine).
    await waitFor(() => expect(calls.some((c) => c.path === 'painting/task/get' && c.body.taskId === id)).toBe(true), { timeout: 8000 })
    await waitFor(() => expect(card(root, id)!.dataset.status).toBe('SUCCESS'), { timeout: 8000 })
  })

  it('shows the refusal in Chinese and keeps the prompt', async () => {
    const root = await mount()
    const text = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=mj-prompt]'))
    const toasts: string[] = []
    const listen = (e: Event) => toasts.push((e as CustomEvent).detail.message)
    addEventListener('lingxi-toast', listen)
    input(text, '没钱的猫')
    submit(text.form!)
    await waitFor(() => expect(toasts).toContain('绘画次数不足'))
    expect(text.value).toBe('没钱的猫')
    input(text, '猫 --s 5000')
    submit(text.form!)
    await waitFor(() => expect(toasts.some((t) => t.includes('--s'))).toBe(true))
    removeEventListener('lingxi-toast', listen)
    expect(calls.filter((c) => c.path === 'painting/imagine')).toHaveLength(1)
  })

  it('describe → P1 starts an imagine with the first prompt; stop ends an unfinished job', async () => {
    const root = await mount()
    await waitFor(() => expect(root.querySelector('[data-testid=mj-prompt]')).not.toBeNull())
    const d = putTask(done(task({ action: 'DESCRIBE', prompts: ['a red fox', 'a fox in snow', 'fox, watercolor', 'fox portrait'] })))
    $workList.set([d.taskId])
    await waitFor(() => expect(card(root, d.taskId)!.querySelectorAll('ol li')).toHaveLength(4))
    byText(card(root, d.taskId)!, 'P1')!.click()
    await waitFor(() => expect(calls.find((c) => c.path === 'painting/imagine')?.body).toEqual({ prompt: 'a red fox' }))
    const started = [...tasks.values()].find((t) => t.prompt === 'a red fox')!
    await waitFor(() => expect(byText(card(root, started.taskId)!, '停止')).toBeDefined())
    byText(card(root, started.taskId)!, '停止')!.click()
    await waitFor(() => expect(card(root, started.taskId)!.dataset.status).toBe('INTERRPUT'))
    expect(card(root, started.taskId)!.querySelector('[role=progressbar]')).toBeNull()
  })

  it('the working list starts afresh at 12 jobs', async () => {
    const root = await mount()
    await waitFor(() => expect(root.querySelector('[data-testid=mj-prompt]')).not.toBeNull())
    const ids = Array.from({ length: 12 }, () => putTask(done(task({ prompt: 'x' }))).taskId)
    $workList.set(ids)
    await waitFor(() => expect(root.querySelectorAll('[data-testid=work-list] > li')).toHaveLength(12))
    const text = root.querySelector<HTMLTextAreaElement>('[data-testid=mj-prompt]')!
    input(text, '第十三个')
    submit(text.form!)
    await waitFor(() => expect(root.querySelectorAll('[data-testid=work-list] > li')).toHaveLength(1))
    expect(root.querySelector('[data-testid=work-list] p')!.textContent).toContain('第十三个')
  })

  it('takes a prompt handed over by the helper or the gallery', async () => {
    $paintingDraft.set('做同款的提示词 --ar 2:3')
    const root = await mount()
    const text = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=mj-prompt]'))
    await waitFor(() => expect(text.value).toBe('做同款的提示词 --ar 2:3'))
    await waitFor(() => expect($paintingDraft.get()).toBeNull())
    $paintingDraft.set('又一个')
    await waitFor(() => expect(text.value).toBe('又一个'))
  })
})

describe('<lingxi-painting> helper, sd, gallery', () => {
  it('helper: words build the prompt, options of one kind exclude each other, 发送 hands it to /mj', async () => {
    const root = await mount({ view: 'helper' })
    await waitFor(() => expect(root.querySelectorAll('[data-testid=helper-category]')).toHaveLength(2))
    input(root.querySelector<HTMLInputElement>('[data-testid=helper-subject]')!, '柴犬')
    byText(root, '赛博朋克')!.click()
    byText(root, '横图 16:9')!.click()
    byText(root, '竖图 9:16')!.click()
    const out = root.querySelector<HTMLTextAreaElement>('[data-testid=helper-prompt]')!
    await waitFor(() => expect(out.value).toBe('柴犬, cyberpunk --ar 9:16'))
    expect(byText(root, '横图 16:9')!.getAttribute('aria-pressed')).toBe('false')
    const asked: unknown[] = []
    const listen = (e: Event) => asked.push((e as CustomEvent).detail)
    addEventListener('lingxi-navigate', listen)
    byText(root, '发送到 AI 绘画')!.click()
    removeEventListener('lingxi-navigate', listen)
    expect(asked).toEqual([{ path: `/mj?prompt=${encodeURIComponent('柴犬, cyberpunk --ar 9:16')}` }])
    expect($paintingDraft.get()).toBe('柴犬, cyberpunk --ar 9:16')
  })

  it('sd: options from sd/options, txt2img with the chosen settings', async () => {
    const root = await mount({ view: 'sd' })
    await waitFor(() => expect(root.querySelectorAll('input[name=sd-size]')).toHaveLength(2))
    input(root.querySelector<HTMLTextAreaElement>('[data-testid=sd-prompt]')!, 'a girl in a garden')
    root.querySelectorAll<HTMLInputElement>('input[name=sd-size]')[1]!.click()
    const seed = root.querySelector<HTMLInputElement>('input[placeholder=随机]')!
    input(seed, '123')
    await new Promise((r) => setTimeout(r, 20))
    submit(root.querySelector('form')!)
    await waitFor(() =>
      expect(calls.find((c) => c.path === 'sd/txt2img')?.body).toEqual({
        prompt: 'a girl in a garden',
        width: 512,
        height: 768,
        steps: 20,
        cfgScale: 7,
        sampler: 'Euler a',
        seed: 123
      })
    )
    await waitFor(() => expect(root.querySelector('[data-testid=sd-work-list] [data-testid=task-card]')).not.toBeNull())
  })

  it('gallery: works with author and 做同款 to /mj', async () => {
    const root = await mount({ view: 'gallery' })
    await waitFor(() => expect(root.querySelectorAll('[data-testid=gallery-item]')).toHaveLength(2))
    expect(root.textContent).toContain('138****8000')
    const img = root.querySelector('[data-testid=gallery-item] img')!
    expect(img.getAttribute('srcset')).toContain('w1-160.png 160w')
    const asked: unknown[] = []
    const listen = (e: Event) => asked.push((e as CustomEvent).detail)
    addEventListener('lingxi-navigate', listen)
    byText(root.querySelector('[data-testid=gallery-item]')!, '做同款')!.click()
    removeEventListener('lingxi-navigate', listen)
    expect(asked).toEqual([{ path: `/mj?prompt=${encodeURIComponent('雪山上的灯塔 --ar 2:3')}` }])
  })
})
