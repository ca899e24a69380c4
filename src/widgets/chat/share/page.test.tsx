// @vitest-environment happy-dom
import '../../../ui/markdown/test-dom'
import { flushSync } from 'react-dom'
import { createRoot, type Root } from 'react-dom/client'
import { SharePage } from './page'

// The public share page, fed by a stubbed fetch. Runs under real React and under preact/compat.

let root: Root | null = null
let shadow: ShadowRoot
let bodies: unknown[] = []

function answer(status: number, body: unknown) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init: RequestInit) => {
      bodies.push({ url: _url, body: JSON.parse(String(init.body)), headers: init.headers })
      return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
    })
  )
}

const PAYLOAD = '<script>window.pwned=1</script>\n\n<img src=x onerror="window.pwned=1">\n\n[点我](javascript:window.pwned=1) **粗体**'

beforeEach(() => {
  bodies = []
  const host = document.createElement('div')
  document.body.append(host)
  shadow = host.attachShadow({ mode: 'open' })
  const mountPoint = document.createElement('div')
  shadow.append(mountPoint)
  root = createRoot(mountPoint)
})

afterEach(() => {
  flushSync(() => root?.unmount())
  root = null
  document.body.replaceChildren()
  vi.unstubAllGlobals()
  delete (window as unknown as { pwned?: number }).pwned
})

describe('<SharePage>', () => {
  it('shows the snapshot read-only, with markdown rendered and every payload inert', async () => {
    answer(200, {
      code: 2000,
      message: '操作成功',
      data: {
        shareId: 'a'.repeat(24),
        title: '<img src=x onerror=alert(1)>',
        roleName: null,
        roleAvatar: null,
        createTime: Date.now(),
        messages: [
          { role: 'user', content: '<b>问题</b>', thinking: null, status: 'complete', createTime: Date.now() },
          { role: 'assistant', content: PAYLOAD, thinking: null, status: 'interrput', createTime: Date.now() }
        ]
      }
    })
    flushSync(() => root!.render(<SharePage shareId={'a'.repeat(24)} />))
    await vi.waitFor(() => expect(shadow.querySelector('.lx-md strong')?.textContent).toBe('粗体'))
    expect(bodies).toMatchObject([{ url: expect.stringMatching(/\/api\/v1\/ai-chat\/share\/get$/), body: { shareId: 'a'.repeat(24) } }])
    // sent without a bearer: the page is the same for everyone
    expect((bodies[0] as { headers: Record<string, string> }).headers.Authorization).toBeUndefined()
    expect(shadow.querySelector('h1')?.textContent).toBe('<img src=x onerror=alert(1)>')
    expect(document.head.querySelector('meta[name="robots"]')?.getAttribute('content')).toBe('noindex, nofollow')
    const messages = shadow.querySelectorAll('[data-testid="shared-message"]')
    expect([...messages].map((m) => m.getAttribute('data-role'))).toEqual(['user', 'assistant'])
    expect(messages[0]!.textContent).toContain('<b>问题</b>')
    expect(messages[1]!.textContent).toContain('<script>window.pwned=1</script>')
    expect(messages[1]!.textContent).toContain('已中断')
    expect(shadow.querySelectorAll('script, iframe, object, embed, [onerror], [onclick]')).toHaveLength(0)
    expect(shadow.querySelectorAll('img')).toHaveLength(0)
    const link = [...shadow.querySelectorAll('a')].find((a) => a.textContent === '点我')
    expect(link?.hasAttribute('href')).toBe(false)
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined()
    // nothing to send with: no form, no field, no composer
    expect(shadow.querySelectorAll('textarea, input, form')).toHaveLength(0)
    expect([...shadow.querySelectorAll('a')].find((a) => a.textContent === '在灵犀中继续对话')?.getAttribute('href')).toBe('/chat')
  })

  it('says the link is gone when the server answers 404', async () => {
    answer(404, { code: 40400001, message: '分享不存在或已撤销', data: null })
    flushSync(() => root!.render(<SharePage shareId="nope" />))
    await vi.waitFor(() => expect(shadow.querySelector('[data-testid="share-gone"]')?.textContent).toBe('分享不存在或已撤销'))
    expect(shadow.querySelector('[data-testid="shared-message"]')).toBeNull()
  })
})
