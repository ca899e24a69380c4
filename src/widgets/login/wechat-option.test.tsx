// @vitest-environment happy-dom
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startSession } from '../../core/auth'
import { configure } from '../../core/config'
import { installGlobalListeners } from '../../core/events'
import { $loginOpen, $systemConfig, $toasts, $token } from '../../core/stores'
import { EVENT_LOGIN, EVENT_WX_LOGIN } from '../../core/wire'

// The login dialog's 微信登录 (src/ui/login/login-dialog.tsx): hidden when the server has no WeChat
// app, the terms first, a popup on the authorize address, and after the popup's wx_login_success
// the user, 登录成功！ and, for a new WeChat account, 绑定手机号. Runs under React and preact/compat.

let server: ReturnType<typeof createServer>
const opened: { url: string; target: string }[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
    res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept')
    if (req.method === 'OPTIONS') return res.end()
    res.setHeader('content-type', 'application/json')
    const path = new URL(req.url ?? '/', 'http://x').pathname
    // the page loads system.json at boot: it says what the test set
    if (path === '/config/system.json') return res.end(JSON.stringify($systemConfig.get() ?? { permissionCodes: {} }))
    if (path === '/api/v1/user/info') {
      return res.end(
        JSON.stringify({
          code: 2000,
          message: 'success',
          data: { accountId: 'w1', phone: 'wx0abc', nickName: '微信用户', avatarUrl: '', state: 1, tokens: 1, mjCount: 0, sunoCount: 0, permissionCodes: [] }
        })
      )
    }
    res.end(JSON.stringify({ code: 2000, message: 'success', data: { bodyList: [] } }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  installGlobalListeners()
  window.open = ((url: string, target: string) => {
    opened.push({ url: String(url), target })
    return {} as Window
  }) as typeof window.open
  await import('./login.element')
  // The page's boot fetches system.json once: done here, so its answer cannot land in a later test
  // (it once overwrote the second test's wechatLogin: true with the first test's false).
  await startSession()
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
afterEach(() => {
  document.body.innerHTML = ''
  $loginOpen.set(false)
  $systemConfig.set(null)
  $toasts.set([])
  $token.set(null)
  opened.length = 0
})

const flush = () => new Promise((r) => setTimeout(r, 50))
const button = (root: ParentNode, name: string) => [...root.querySelectorAll<HTMLElement>('button')].find((b) => b.textContent?.trim() === name)

/** The open dialog, once its phone field is there (a loaded machine may take longer than one flush). */
async function dialog() {
  const el = document.createElement('lingxi-login')
  document.body.append(el)
  $loginOpen.set('login')
  await flush()
  return vi.waitFor(() => {
    const d = el.shadowRoot?.querySelector('dialog')
    if (!d?.querySelector('input')) throw new Error('the login dialog is not open yet')
    return d
  })
}
/** Clicks the dialog's 微信登录 button, once rendered. */
async function clickWechat(d: HTMLDialogElement) {
  const b = await vi.waitFor(() => {
    const found = button(d, '微信登录')
    if (!found) throw new Error('no 微信登录 button yet')
    return found
  })
  b.click()
}

describe('微信登录 in the login dialog', () => {
  it('is hidden when system.json says wechatLogin: false', async () => {
    $systemConfig.set({ permissionCodes: {}, wechatLogin: false })
    expect(button(await dialog(), '微信登录')).toBeUndefined()
  })

  it('asks for the terms, then opens the authorize address in a popup', async () => {
    $systemConfig.set({ permissionCodes: {}, wechatLogin: true })
    const d = await dialog()
    await clickWechat(d)
    await vi.waitFor(() => expect(d.textContent).toContain('请勾选同意后再登录'))
    expect(opened).toHaveLength(0)
    const box = d.querySelector<HTMLInputElement>('input[type=checkbox]')!
    box.click()
    await flush()
    await clickWechat(d)
    expect(opened).toHaveLength(1)
    const url = new URL(opened[0]!.url)
    expect(url.pathname).toBe('/api/v1/auth/wechat/authorize')
    expect(url.searchParams.get('popup')).toBe('1')
    expect(url.searchParams.get('redirect')).toBe(location.pathname + location.search)
  })

  it('after the popup: the user, 登录成功！ and 绑定手机号 for a new WeChat account', async () => {
    $systemConfig.set({ permissionCodes: {}, wechatLogin: true })
    const d = await dialog()
    d.querySelector<HTMLInputElement>('input[type=checkbox]')!.click()
    await flush()
    await clickWechat(d)
    // what the answer page does: the server set the HttpOnly session cookie, then the event on
    // this window; the page holds a marker, never the token (ADR 0019)
    window.dispatchEvent(new CustomEvent(EVENT_WX_LOGIN, { detail: { accountId: 'w1', needPhone: true } }))
    await vi.waitFor(() => expect($toasts.get().map((t) => t.message)).toContain('登录成功！'))
    expect($token.get()).toMatch(/^session:/)
    await vi.waitFor(() => expect($loginOpen.get()).toBe('modify-phone'))
    await vi.waitFor(() => expect(document.querySelector('lingxi-login')!.shadowRoot!.querySelector('dialog')!.getAttribute('aria-label')).toBe('绑定手机号'))
  })

  it('a redirect login of an account without a phone (empty phone in ?login=) opens 绑定手机号', async () => {
    await dialog()
    $loginOpen.set(false)
    window.dispatchEvent(new CustomEvent(EVENT_LOGIN, { detail: { accountId: 'w2', phone: '13800138000' } }))
    await flush()
    expect($loginOpen.get()).toBe(false)
    window.dispatchEvent(new CustomEvent(EVENT_LOGIN, { detail: { accountId: 'w2', phone: '' } }))
    await vi.waitFor(() => expect(document.querySelector('lingxi-login')!.shadowRoot!.querySelector('dialog')!.getAttribute('aria-label')).toBe('绑定手机号'))
  })
})
