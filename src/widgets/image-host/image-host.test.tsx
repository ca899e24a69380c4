// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { answerConfirm, installGlobalListeners } from '../../core/events'
import { $confirm, $toasts, $token } from '../../core/stores'
import type { Image } from '../../core/upload'

// <lingxi-image-host> against a loopback fake of getOssSTS → PUT → complete and images/*. Runs
// under real React and under preact/compat.

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3, 4])
const image = (n: number): Image => ({
  imageId: `i${n}`,
  url: `/files/images/${n}.png`,
  thumbUrl: `/files/images/${n}.thumb.webp`,
  name: `图${n}.png`,
  contentType: 'image/png',
  size: 2048,
  width: 640,
  height: 480,
  createTime: n
})

let images: Image[] = []
let albums: { albumId: string; name: unknown; imageCount: number; coverUrl: null; createTime: number }[] = []
const calls: { method: string; path: string; body: unknown }[] = []
let server: ReturnType<typeof createServer>
let base = ''

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type')
  res.setHeader('Access-Control-Allow-Methods', 'POST, PUT')
  if (req.method === 'OPTIONS') return res.end()
  const url = new URL(req.url ?? '/', 'http://x')
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const raw = Buffer.concat(chunks)
  const body = req.method === 'PUT' ? raw.length : (JSON.parse(raw.toString() || '{}') as Record<string, unknown>)
  const path = url.pathname.replace('/api/v1/', '')
  calls.push({ method: req.method ?? '', path, body })
  res.setHeader('content-type', 'application/json')
  const send = (data: unknown) => res.end(JSON.stringify({ code: 2000, message: 'success', data }))
  const b = body as Record<string, unknown>
  if (path === 'images/list') {
    const start = ((b.pageNum as number) - 1) * (b.pageSize as number)
    return send({ list: images.slice(start, start + (b.pageSize as number)), total: images.length, pageNum: b.pageNum, pageSize: b.pageSize })
  }
  if (path === 'images/album/list') return send(albums)
  if (path === 'images/album/add') {
    const album = { albumId: `a${albums.length + 1}`, name: b.name, imageCount: 0, coverUrl: null, createTime: 1 }
    albums.push(album)
    return send(album)
  }
  if (path === 'images/move') {
    for (const album of albums) if (album.albumId === b.albumId) album.imageCount += (b.imageIds as string[]).length
    return send({ moved: (b.imageIds as string[]).length })
  }
  if (path === 'images/del') {
    images = images.filter((i) => i.imageId !== b.imageId)
    return send(true)
  }
  if (path === 'oss/upload/getOssSTS') {
    return send({
      provider: 'local',
      uploadUrl: `/api/v1/oss/upload/put/images/new.png?sig=1`,
      method: 'PUT',
      headers: {},
      expiresAt: 0,
      key: 'images/new.png',
      fileUrl: ''
    })
  }
  if (path.startsWith('oss/upload/put/')) return send(null)
  if (path === 'oss/upload/complete') {
    const made = { ...image(99), name: '新图.png' }
    images = [made, ...images]
    return send(made)
  }
  res.end(JSON.stringify({ code: 40400001, message: path, data: null }))
}

beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  configure({ apiBase: base })
  installGlobalListeners()
  await import('./image-host.element')
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(() => {
  images = Array.from({ length: 30 }, (_, i) => image(30 - i))
  albums = []
  calls.length = 0
  $token.set('tok')
})
afterEach(() => {
  document.body.innerHTML = ''
  $token.set(null)
  $toasts.set([])
  while ($confirm.get()) answerConfirm(false)
})

async function mount() {
  const el = document.createElement('lingxi-image-host')
  document.body.append(el)
  const root = el.shadowRoot!
  await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=image-card]')).toHaveLength(24))
  return root
}

const button = (root: ParentNode, label: string) =>
  [...root.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === label || b.textContent?.trim() === label)

function choose(root: ShadowRoot, files: File[]) {
  const input = root.querySelector<HTMLInputElement>('input[type=file]')!
  Object.defineProperty(input, 'files', { configurable: true, value: files })
  input.dispatchEvent(new Event('change', { bubbles: true }))
}

describe('<lingxi-image-host>', () => {
  it('asks a logged-out visitor to log in', async () => {
    $token.set(null)
    const el = document.createElement('lingxi-image-host')
    document.body.append(el)
    await vi.waitFor(() => expect(el.shadowRoot!.textContent).toContain('登录后使用图床'))
  })

  it('shows my images a page at a time (加载更多 loads the rest)', async () => {
    const root = await mount()
    expect(root.textContent).toContain('共 30 张')
    button(root, '加载更多')!.click()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=image-card]')).toHaveLength(30))
    expect(calls.filter((c) => c.path === 'images/list').map((c) => (c.body as { pageNum: number }).pageNum)).toEqual([1, 2])
    expect(button(root, '加载更多')).toBeUndefined()
  })

  it('uploads a chosen image with a progress bar and puts it first; a bad file gets its own error', async () => {
    const root = await mount()
    choose(root, [new File([PNG], '新图.png', { type: 'image/png' }), new File(['MZ not an image'], 'evil.png', { type: 'image/png' })])
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=upload-job]')).toHaveLength(2))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=image-card] img')!.getAttribute('alt')).toBe('新图.png'))
    const jobs = [...root.querySelectorAll('[data-testid=upload-job]')]
    const bad = jobs.find((j) => j.textContent?.includes('evil.png'))!
    expect(bad.querySelector('[role=alert]')!.textContent).toBe('只能上传 PNG、JPEG、WebP 或 GIF 图片')
    const good = jobs.find((j) => j.textContent?.includes('新图.png'))!
    expect(good.querySelector('[role=progressbar]')!.getAttribute('aria-valuenow')).toBe('100')
    expect(calls.filter((c) => c.path === 'oss/upload/getOssSTS')).toHaveLength(1)
    expect(calls.find((c) => c.method === 'PUT')!.body).toBe(PNG.length)
    expect(root.textContent).toContain('共 31 张')
  })

  it('creates an album, shows it, uploads into it and moves an image out of it', async () => {
    const root = await mount()
    button(root, '＋ 新建相册')!.click()
    const field = await vi.waitFor(() => {
      const input = root.querySelector<HTMLInputElement>('input[aria-label=新相册名称]')
      if (!input) throw new Error('no field yet')
      return input
    })
    field.value = '旅行'
    field.dispatchEvent(new Event('input', { bubbles: true }))
    await new Promise((r) => setTimeout(r, 20)) // the name is rendered before the form is sent
    field.form!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(calls.find((c) => c.path === 'images/album/add')?.body).toEqual({ name: '旅行' }))
    await vi.waitFor(() => expect(button(root, '旅行 (0)')?.getAttribute('aria-pressed')).toBe('true'))
    await vi.waitFor(() => expect(calls.filter((c) => c.path === 'images/list').at(-1)?.body).toEqual({ pageNum: 1, pageSize: 24, albumId: 'a1' }))
    choose(root, [new File([PNG], '新图.png', { type: 'image/png' })])
    await vi.waitFor(() => expect(calls.find((c) => c.path === 'images/move')?.body).toEqual({ imageIds: ['i99'], albumId: 'a1' }))
    await vi.waitFor(() => expect(button(root, '旅行 (1)')).toBeDefined())
    const select = await vi.waitFor(() => {
      const found = root.querySelector<HTMLSelectElement>('select[aria-label="移动 新图.png 到相册"]')
      if (!found) throw new Error('no select yet')
      return found
    })
    expect(select.value).toBe('a1')
    select.value = ''
    select.dispatchEvent(new Event('change', { bubbles: true }))
    await vi.waitFor(() => expect(calls.filter((c) => c.path === 'images/move').at(-1)?.body).toEqual({ imageIds: ['i99'], albumId: null }))
    // shown album: the image leaves the grid
    await vi.waitFor(() => expect(root.querySelector('select[aria-label="移动 新图.png 到相册"]')).toBeNull())
  })

  it('copies a link as URL, Markdown or HTML', async () => {
    const root = await mount()
    const written: string[] = []
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void written.push(t) } })
    const card = root.querySelector('[data-testid=image-card]')!
    button(card, '复制 URL 链接')!.click()
    button(card, '复制 Markdown 链接')!.click()
    button(card, '复制 HTML 链接')!.click()
    await vi.waitFor(() => expect(written).toHaveLength(3))
    const url = `${base}/files/images/30.png`
    expect(written).toEqual([url, `![图30](${url})`, `<img src="${url}" alt="图30">`])
    expect($toasts.get().map((t) => t.message)).toContain('已复制到剪切板！')
  })

  it('deletes an image after confirming', async () => {
    const root = await mount()
    button(root, '删除 图30.png')!.click()
    await vi.waitFor(() => expect($confirm.get()?.message).toContain('图30.png'))
    answerConfirm(true)
    await vi.waitFor(() => expect(root.querySelector('[data-testid=image-card] img')!.getAttribute('alt')).toBe('图29.png'))
    expect(calls.find((c) => c.path === 'images/del')!.body).toEqual({ imageId: 'i30' })
  })

  it('previews an image; the arrow keys move through the grid', async () => {
    const root = await mount()
    button(root, '预览 图30.png')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=lightbox]')).not.toBeNull())
    const box = root.querySelector('[data-testid=lightbox]')!
    expect(box.querySelector('img')!.getAttribute('src')).toBe(base + '/files/images/30.png')
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=lightbox] img')!.getAttribute('src')).toBe(base + '/files/images/29.png'))
    root.querySelector('[data-testid=lightbox]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }))
    root.querySelector('[data-testid=lightbox]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=lightbox] img')!.getAttribute('src')).toBe(base + '/files/images/7.png'))
    expect(root.textContent).toContain('第 24 / 24 张')
  })
})
