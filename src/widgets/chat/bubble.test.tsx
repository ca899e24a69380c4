// @vitest-environment happy-dom
import { $loginOpen, $token } from '../../core/stores'

// <lingxi-chat mode="bubble">: the launcher, the panel, the open state on the host, the methods
// and the events. Runs under real React and under preact/compat (vitest projects 'react' and
// 'preact'). Logged out, so no chat request is made; Chromium runs the whole flow (tests/e2e).

type ChatElement = HTMLElementTagNameMap['lingxi-chat']
const flush = () => new Promise((r) => setTimeout(r, 30))

beforeAll(async () => {
  // The session's boot asks for the system config: offline here (a toast nobody shows).
  vi.stubGlobal('fetch', () => Promise.reject(new TypeError('offline')))
  await import('./chat.element')
})
afterAll(() => vi.unstubAllGlobals())
afterEach(() => {
  document.body.innerHTML = ''
  localStorage.clear()
  $token.set(null)
  $loginOpen.set(false)
})

function mount(attrs: Record<string, string> = {}) {
  const el = document.createElement('lingxi-chat') as ChatElement
  el.setAttribute('mode', 'bubble')
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v)
  const events: string[] = []
  for (const type of ['lingxi-open', 'lingxi-close']) el.addEventListener(type, (e) => events.push(`${e.type}:${(e as CustomEvent).composed}:${e.bubbles}`))
  document.body.append(el)
  const root = el.shadowRoot!
  const launcher = () => root.querySelector<HTMLButtonElement>('[part=launcher]')!
  const panel = () => root.querySelector<HTMLElement>('[part=panel]')!
  return { el, root, events, launcher, panel }
}

describe('<lingxi-chat mode="bubble">', () => {
  it('shows a launcher named by `label` (default 打开灵犀 AI 对话), and a closed panel', async () => {
    const a = mount()
    await vi.waitFor(() => expect(a.launcher()).not.toBeNull())
    expect(a.launcher().getAttribute('aria-label')).toBe('打开灵犀 AI 对话')
    expect(a.launcher().getAttribute('aria-expanded')).toBe('false')
    expect(a.panel().getAttribute('role')).toBe('dialog')
    expect(a.panel().getAttribute('aria-label')).toBe('灵犀 AI')
    expect(a.panel().children).toHaveLength(0) // the conversation loads on first opening
    const b = mount({ label: '问问客服' })
    await vi.waitFor(() => expect(b.launcher().getAttribute('aria-label')).toBe('问问客服'))
  })

  it('opens from the launcher: `open` on the host, lingxi-open (bubbling, composed), the panel with its header', async () => {
    const { el, events, launcher, panel } = mount()
    await vi.waitFor(() => expect(launcher()).not.toBeNull())
    launcher().click()
    await vi.waitFor(() => expect(el.hasAttribute('open')).toBe(true))
    expect(el.open).toBe(true)
    await vi.waitFor(() => expect(launcher().getAttribute('aria-expanded')).toBe('true'))
    await vi.waitFor(() => expect(panel().textContent).toContain('登录后开始对话'))
    expect(panel().querySelector('h2')!.textContent).toBe('灵犀 AI')
    await vi.waitFor(() => expect(events).toEqual(['lingxi-open:true:true']))
  })

  it('Esc in the panel closes it, announces lingxi-close and gives the focus back to the launcher', async () => {
    const { el, events, launcher, panel } = mount({ open: '' })
    await vi.waitFor(() => expect(panel().textContent).toContain('登录后开始对话'))
    panel().querySelector<HTMLButtonElement>('button')!.focus()
    panel().dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(el.hasAttribute('open')).toBe(false))
    await vi.waitFor(() => expect(el.shadowRoot!.activeElement).toBe(launcher()))
    await vi.waitFor(() => expect(events).toEqual(['lingxi-open:true:true', 'lingxi-close:true:true']))
  })

  it('show(), hide(), toggle() and the `open` property drive it; false removes the attribute', async () => {
    const { el, events, launcher } = mount()
    await vi.waitFor(() => expect(launcher()).not.toBeNull())
    el.show()
    await vi.waitFor(() => expect(launcher().getAttribute('aria-expanded')).toBe('true'))
    el.toggle()
    await vi.waitFor(() => expect(launcher().getAttribute('aria-expanded')).toBe('false'))
    el.open = true
    expect(el.getAttribute('open')).toBe('')
    await vi.waitFor(() => expect(launcher().getAttribute('aria-expanded')).toBe('true'))
    el.open = false
    expect(el.hasAttribute('open')).toBe(false)
    el.hide()
    await vi.waitFor(() => expect(launcher().getAttribute('aria-expanded')).toBe('false'))
    await vi.waitFor(() => expect(events).toEqual(['lingxi-open:true:true', 'lingxi-close:true:true', 'lingxi-open:true:true', 'lingxi-close:true:true']))
  })

  it("obeys lingxi('open') and lingxi('close') (the lingxi-command window event)", async () => {
    const { el, launcher } = mount()
    await vi.waitFor(() => expect(launcher()).not.toBeNull())
    dispatchEvent(new CustomEvent('lingxi-command', { detail: { command: 'open' } }))
    await vi.waitFor(() => expect(el.hasAttribute('open')).toBe(true))
    dispatchEvent(new CustomEvent('lingxi-command', { detail: { command: 'close' } }))
    await vi.waitFor(() => expect(el.hasAttribute('open')).toBe(false))
  })

  it('shows the greeting once: dismissed, it stays away (a new text shows again)', async () => {
    const a = mount({ greeting: '你好，有什么可以帮你？' })
    const greeting = () => a.root.querySelector('[part=greeting]')
    await vi.waitFor(() => expect(greeting()?.textContent).toContain('你好，有什么可以帮你？'))
    greeting()!.querySelector<HTMLButtonElement>('[aria-label=关闭提示]')!.click()
    await vi.waitFor(() => expect(greeting()).toBeNull())
    a.el.remove()
    const b = mount({ greeting: '你好，有什么可以帮你？' })
    await flush()
    expect(b.root.querySelector('[part=greeting]')).toBeNull()
    b.el.setAttribute('greeting', '新品上架，问问我')
    await vi.waitFor(() => expect(b.root.querySelector('[part=greeting]')?.textContent).toContain('新品上架'))
  })

  it('shows an announcement for embeds under the panel’s header, above the rest of the panel', async () => {
    const announcement = { id: 7, title: '维护通知', body: '本周六维护一小时。' }
    vi.stubGlobal('fetch', (url: string) =>
      String(url).endsWith('/api/v1/announcements')
        ? Promise.resolve(new Response(JSON.stringify({ code: 2000, message: '操作成功', data: [announcement] })))
        : Promise.reject(new TypeError('offline'))
    )
    try {
      const { panel } = mount({ open: '' })
      await vi.waitFor(() => expect(panel().querySelector('[part=announcement]')?.textContent).toContain('本周六维护一小时。'))
      await vi.waitFor(() => expect(panel().textContent).toContain('登录后开始对话'))
      const order = [...panel().children].map((el) => el.getAttribute('part'))
      expect(order).toEqual(['panel-header', 'announcement', 'base'])
    } finally {
      vi.stubGlobal('fetch', () => Promise.reject(new TypeError('offline')))
    }
  })

  it('puts the launcher bottom-left with position="bottom-left", and colours it with `color`', async () => {
    const { el, root } = mount({ position: 'bottom-left', color: '#1677ff' })
    await vi.waitFor(() => expect(root.querySelector('[part=dock]')).not.toBeNull())
    const dock = root.querySelector<HTMLElement>('[part=dock]')!
    expect(dock.className).toContain('left-[var(--lx-x,20px)]')
    expect(dock.style.getPropertyValue('--color-primary')).toBe('#1677ff')
    el.setAttribute('position', 'bottom-right')
    await vi.waitFor(() => expect(root.querySelector<HTMLElement>('[part=dock]')!.className).toContain('right-[var(--lx-x,20px)]'))
    el.setAttribute('position', 'left')
    await vi.waitFor(() => expect(root.querySelector<HTMLElement>('[part=dock]')!.className).toContain('left-[var(--lx-x,20px)]'))
  })

  it('moves the launcher and the panel by `offset` (one value for both sides, or side and bottom)', async () => {
    const { el, root, panel } = mount({ offset: '24' })
    await vi.waitFor(() => expect(root.querySelector('[part=dock]')).not.toBeNull())
    const dock = () => root.querySelector<HTMLElement>('[part=dock]')!
    expect([dock().style.getPropertyValue('--lx-x'), dock().style.getPropertyValue('--lx-y')]).toEqual(['24px', '24px'])
    el.offset = '16px 96'
    await vi.waitFor(() => expect(dock().style.getPropertyValue('--lx-y')).toBe('96px'))
    expect(dock().style.getPropertyValue('--lx-x')).toBe('16px')
    expect(panel().style.getPropertyValue('--lx-y')).toBe('96px')
    el.removeAttribute('offset')
    await vi.waitFor(() => expect(dock().style.getPropertyValue('--lx-y')).toBe(''))
  })

  it('shows `icon` on the closed launcher', async () => {
    const { root, launcher } = mount({ icon: 'https://cdn.example.com/bot.png' })
    await vi.waitFor(() => expect(launcher()).not.toBeNull())
    expect(launcher().querySelector('img')?.getAttribute('src')).toBe('https://cdn.example.com/bot.png')
    expect(root.querySelector('[part=launcher] img')?.getAttribute('alt')).toBe('')
  })

  it('counts replies finished while closed on the launcher (badge, accessible name); opening clears it', async () => {
    const { el, root, launcher } = mount({ label: '问问客服' })
    await vi.waitFor(() => expect(launcher()).not.toBeNull())
    const reply = () => el.dispatchEvent(new CustomEvent('lingxi-message', { detail: { topicId: 't', messageId: 'm', content: '好' } }))
    reply()
    reply()
    await vi.waitFor(() => expect(root.querySelector('[part=badge]')?.textContent).toBe('2'))
    expect(launcher().getAttribute('aria-label')).toBe('问问客服 · 2 条新回复')
    el.show()
    await vi.waitFor(() => expect(root.querySelector('[part=badge]')).toBeNull())
    expect(launcher().getAttribute('aria-label')).toBe('问问客服')
    reply() // while open: nothing to count
    el.hide()
    await flush()
    expect(root.querySelector('[part=badge]')).toBeNull()
  })

  it('send() and prefill() open the panel and leave the request for the conversation', async () => {
    const { el } = mount()
    el.prefill('草稿')
    await vi.waitFor(() => expect(el.open).toBe(true))
    expect(el.request).toEqual({ prefill: '草稿' })
    el.hide()
    el.send('你好')
    await vi.waitFor(() => expect(el.open).toBe(true))
    expect(el.request).toEqual({ send: '你好' })
  })

  it('destroy() removes the element', async () => {
    const { el, launcher } = mount()
    await vi.waitFor(() => expect(launcher()).not.toBeNull())
    el.destroy()
    expect(el.isConnected).toBe(false)
  })

  it('keeps a property set before the element was defined', async () => {
    const el = document.createElement('lingxi-chat-later') as ChatElement
    el.setAttribute('mode', 'bubble')
    el.greeting = '先设置的问候'
    document.body.append(el)
    const { defineElement } = await import('../../ui/define')
    const { Chat } = await import('./chat')
    defineElement('lingxi-chat-later', Chat, { mode: 'string', greeting: 'string' })
    await vi.waitFor(() => expect(el.shadowRoot?.querySelector('[part=greeting]')?.textContent).toContain('先设置的问候'))
    expect(el.getAttribute('greeting')).toBe('先设置的问候')
  })
})
