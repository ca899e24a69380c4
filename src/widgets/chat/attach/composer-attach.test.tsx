// @vitest-environment happy-dom
import { createElement } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { Composer, type ComposerProps } from '../composer'
import { $chatConfig, outbox } from '../state'
import { kindOf } from './upload'

// The composer's attachments (attach/tray.tsx, loaded on first use): paste and drop, the checks
// before anything is sent, progress, remove, and the files handed to the next question.
// Runs under real React and under preact/compat (vitest projects 'react' and 'preact').

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52])

/** XMLHttpRequest as the upload uses it: the test moves each request along. */
class FakeXhr {
  static all: FakeXhr[] = []
  method = ''
  url = ''
  headers: Record<string, string> = {}
  body: unknown
  withCredentials = false
  status = 0
  responseText = ''
  upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null }
  onload: (() => void) | null = null
  onerror: (() => void) | null = null
  onabort: (() => void) | null = null
  aborted = false
  constructor() {
    FakeXhr.all.push(this)
  }
  open(method: string, url: string) {
    this.method = method
    this.url = url
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value
  }
  send(body: unknown) {
    this.body = body
  }
  abort() {
    this.aborted = true
    this.onabort?.()
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ lengthComputable: true, loaded, total })
  }
  answer(code: number, data: unknown, message = '操作成功') {
    this.status = code === 2000 ? 200 : 400
    this.responseText = JSON.stringify({ code, message, data })
    this.onload?.()
  }
}

const attachment = (name: string, kind: 'image' | 'document', id = `att-${name}`) => ({
  attachmentId: id,
  kind,
  name,
  contentType: kind === 'image' ? 'image/png' : 'text/plain',
  size: 16,
  width: kind === 'image' ? 1 : null,
  height: kind === 'image' ? 1 : null,
  pages: null,
  chars: kind === 'image' ? null : 5,
  clipped: false,
  url: `/api/v1/ai-chat/attachment/file/${id}`,
  thumbUrl: null,
  createTime: 0
})

let root: Root
let host: HTMLDivElement
const realXhr = globalThis.XMLHttpRequest

beforeEach(() => {
  FakeXhr.all = []
  globalThis.XMLHttpRequest = FakeXhr as unknown as typeof XMLHttpRequest
  URL.createObjectURL ??= () => 'blob:preview'
  URL.revokeObjectURL ??= () => {}
  outbox.files = []
  $chatConfig.set({
    models: [{ id: 'seeing', name: '识图模型', vision: true } as never, { id: 'blind', name: '纯文本模型' }],
    defaultModel: 'seeing',
    contextEnabled: true
  })
})

afterEach(async () => {
  ;(await import('./tray')).clear()
  root.unmount()
  host.remove()
  globalThis.XMLHttpRequest = realXhr
})

async function mount(props: Partial<ComposerProps> = {}) {
  const sent: string[] = []
  const all: ComposerProps = {
    busy: false,
    onSend: (text) => {
      sent.push(text)
      return true
    },
    onStop: () => {},
    ...props
  }
  host = document.createElement('div')
  document.body.append(host)
  root = createRoot(host)
  root.render(createElement(Composer, all))
  await vi.waitFor(() => expect(host.querySelector('textarea')).not.toBeNull())
  return { sent, field: host.querySelector('textarea')! }
}

function paste(target: Element, files: File[]) {
  const event = new Event('paste', { bubbles: true, cancelable: true })
  Object.defineProperty(event, 'clipboardData', { value: { files: Object.assign(files, { item: (i: number) => files[i] }) } })
  target.dispatchEvent(event)
  return event.defaultPrevented
}

function drop(target: Element, files: File[]) {
  // happy-dom's elements have no `ondrop`, so preact listens to "Drop" as written (browsers have it).
  const name = 'ondrop' in target ? 'drop' : 'Drop'
  const event = new Event(name, { bubbles: true, cancelable: true })
  Object.defineProperty(event, 'dataTransfer', { value: { files, types: ['Files'] } })
  target.dispatchEvent(event)
  if (!event.defaultPrevented && name === 'Drop') {
    const again = new Event('drop', { bubbles: true, cancelable: true })
    Object.defineProperty(again, 'dataTransfer', { value: { files, types: ['Files'] } })
    target.dispatchEvent(again)
    return again.defaultPrevented
  }
  return event.defaultPrevented
}

const chips = () => [...host.querySelectorAll<HTMLElement>('[data-testid="attachment"]')]
const sendButton = () => host.querySelector<HTMLButtonElement>('button[aria-label="发送"]')!
const alertText = () => host.querySelector('[role="alert"]')?.textContent ?? null

describe('<Composer> attachments', () => {
  it('a pasted image and a dropped text file upload with progress, then go with the question', async () => {
    const { sent, field } = await mount()
    expect(paste(field, [new File([PNG], 'cat.png', { type: 'image/png' })])).toBe(true)
    await vi.waitFor(() => expect(FakeXhr.all).toHaveLength(1))
    const image = FakeXhr.all[0]!
    expect(image.method).toBe('POST')
    expect(image.url).toContain('/api/v1/oss/upload/put/chat-attachment?name=cat.png')
    expect(image.headers['X-Lingxi-Request']).toBe('1')
    expect(image.withCredentials).toBe(true)
    await vi.waitFor(() => expect(chips()).toHaveLength(1))
    image.progress(50, 100)
    await vi.waitFor(() => expect(host.querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow')).toBe('48'))
    // Still uploading: the question waits, and says why.
    expect(sendButton().disabled).toBe(false)
    sendButton().click()
    await vi.waitFor(() => expect(alertText()).toBe('附件还在上传，请稍候'))
    expect(sent).toEqual([])

    const row = host.querySelector('textarea')!.parentElement!
    expect(drop(row, [new File(['第一行\n第二行'], 'notes.md', { type: 'text/markdown' })])).toBe(true)
    await vi.waitFor(() => expect(FakeXhr.all).toHaveLength(2))
    image.answer(2000, attachment('cat.png', 'image'))
    FakeXhr.all[1]!.answer(2000, attachment('notes.md', 'document'))
    await vi.waitFor(() => expect(chips().map((c) => c.dataset.state)).toEqual(['done', 'done']))

    // No text: the files alone make a question.
    sendButton().click()
    await vi.waitFor(() => expect(sent).toEqual(['请看附件']))
    expect(outbox.files.map((f) => f.attachmentId)).toEqual(['att-cat.png', 'att-notes.md'])
    await vi.waitFor(() => expect(chips()).toEqual([]))
  })

  it('refuses before sending: a model that cannot see images, a wrong type, an SVG, a file too big', async () => {
    $chatConfig.set({ models: [{ id: 'blind', name: '纯文本模型' }], defaultModel: 'blind', contextEnabled: true })
    const { field } = await mount()
    paste(field, [new File([PNG], 'cat.png', { type: 'image/png' })])
    await vi.waitFor(() => expect(alertText()).toBe('模型「纯文本模型」不能识别图片：请移除图片，或在对话设置里换用支持识图的模型'))
    paste(field, [new File([new Uint8Array([0x7f, 0x45, 0x4c, 0x46])], 'run.exe')])
    await vi.waitFor(() => expect(alertText()).toBe('「run.exe」只能添加图片（PNG、JPEG、WebP、GIF）或文档（PDF、DOCX、TXT、Markdown、CSV）'))
    paste(field, [new File(['<svg/>'], 'x.svg', { type: 'image/svg+xml' })])
    await vi.waitFor(() => expect(alertText()).toBe('「x.svg」不能添加网页或 SVG 文件，请另存为 PDF 或图片'))
    const big = new File(['x'], 'big.txt')
    Object.defineProperty(big, 'size', { value: 21 * 1024 * 1024 })
    paste(field, [big])
    await vi.waitFor(() => expect(alertText()).toBe('「big.txt」文档不能超过 20 MB'))
    expect(FakeXhr.all).toEqual([])
    expect(chips()).toEqual([])
  })

  it('a refused upload shows its reason, blocks the question, and goes with its remove button', async () => {
    const { sent, field } = await mount()
    paste(field, [new File(['a,b\n1,2'], 'data.csv')])
    await vi.waitFor(() => expect(FakeXhr.all).toHaveLength(1))
    FakeXhr.all[0]!.answer(40000001, null, '文本文件必须是 UTF-8 编码')
    await vi.waitFor(() => expect(chips()[0]?.dataset.state).toBe('error'))
    expect(chips()[0]!.textContent).toContain('文本文件必须是 UTF-8 编码')
    sendButton().click()
    await vi.waitFor(() => expect(alertText()).toBe('有附件上传失败，请移除后再发送'))
    host.querySelector<HTMLButtonElement>('button[aria-label="移除「data.csv」"]')!.click()
    await vi.waitFor(() => expect(chips()).toEqual([]))
    expect(sendButton().disabled).toBe(true)
    expect(sent).toEqual([])
  })

  it('removing a file while it uploads stops its upload', async () => {
    const { field } = await mount()
    paste(field, [new File([PNG], 'cat.png', { type: 'image/png' })])
    await vi.waitFor(() => expect(FakeXhr.all).toHaveLength(1))
    await vi.waitFor(() => expect(chips()).toHaveLength(1))
    host.querySelector<HTMLButtonElement>('button[aria-label="移除「cat.png」"]')!.click()
    await vi.waitFor(() => expect(FakeXhr.all[0]!.aborted).toBe(true))
    expect(chips()).toEqual([])
  })

  it('a paste of text alone is the browser’s', async () => {
    const { field } = await mount()
    expect(paste(field, [])).toBe(false)
    expect(FakeXhr.all).toEqual([])
  })
})

describe('kindOf', () => {
  it('tells images and documents by their first bytes, plain text by its name', () => {
    expect(kindOf(PNG, 'x.txt')).toBe('image')
    expect(kindOf(new TextEncoder().encode('%PDF-1.7'), 'a')).toBe('document')
    expect(kindOf(new Uint8Array([0x50, 0x4b, 0x03, 0x04]), 'a.docx')).toBe('document')
    expect(kindOf(new TextEncoder().encode('hello'), 'a.md')).toBe('document')
    expect(kindOf(new TextEncoder().encode('hello'), 'a.exe')).toBeNull()
  })
})
