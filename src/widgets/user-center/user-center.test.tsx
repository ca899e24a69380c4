// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { answerConfirm, installGlobalListeners } from '../../core/events'
import { $confirm, $loginOpen, $toasts, $token, $user } from '../../core/stores'
import type { LoginUser } from '../../core/types'

// <lingxi-user-center> against a loopback fake of user/*. Runs under real React and under preact/compat.

const baseUser: LoginUser = {
  accountId: 'a1',
  userId: 'a1',
  phone: '13800138000',
  nickName: '小灵',
  avatarUrl: '',
  state: 1,
  tokens: 123456,
  mjCount: 20,
  sunoCount: 9999,
  permissionCodes: []
}
let account: LoginUser
const calls: { path: string; body: Record<string, unknown> }[] = []
let server: ReturnType<typeof createServer>

const entries = Array.from({ length: 23 }, (_, i) => ({
  id: String(23 - i),
  kind: i % 2 ? 'mj' : 'tokens',
  amount: -(i + 1),
  balance: 1000 - i,
  reason: `对话：演示模型 #${23 - i}`,
  createTime: Date.UTC(2026, 0, 1) + i
}))

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type')
  if (req.method === 'OPTIONS') return res.end()
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/api/v1/', '')
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>
  calls.push({ path, body })
  res.setHeader('content-type', 'application/json')
  const send = (data: unknown) => res.end(JSON.stringify({ code: 2000, message: 'success', data }))
  const page = <T,>(list: T[]) => {
    const n = body.pageNum as number
    const size = body.pageSize as number
    return send({ list: list.slice((n - 1) * size, n * size), total: list.length, pageNum: n, pageSize: size })
  }
  if (path === 'user/info') return send(account)
  if (path === 'user/balanceLog') return page(entries)
  if (path === 'user/rechargeLog')
    return page(account.tokens > 200000 ? [{ id: '1', cardCode: 'LX-****-9F2A', tokens: 100000, mjCount: 10, sunoCount: 0, createTime: 1 }] : [])
  if (path === 'user/rechargeCardCode') {
    if (body.cardCode !== 'LX-GOOD') return res.end(JSON.stringify({ code: 40400001, message: '卡密不存在或已被使用', data: null }))
    account = { ...account, tokens: account.tokens + 100000, mjCount: account.mjCount + 10 }
    return send({ tokens: account.tokens, mjCount: account.mjCount, sunoCount: account.sunoCount })
  }
  if (path === 'user/profile/save') {
    account = { ...account, ...body }
    return send(account)
  }
  res.end(JSON.stringify({ code: 40400001, message: path, data: null }))
}

beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  installGlobalListeners()
  await import('./user-center.element')
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(() => {
  account = { ...baseUser }
  calls.length = 0
  $token.set('tok')
  $user.set({ ...baseUser })
})
afterEach(() => {
  document.body.innerHTML = ''
  $token.set(null)
  $user.set(null)
  $toasts.set([])
  $loginOpen.set(false)
  while ($confirm.get()) answerConfirm(false)
})

async function mount(tab = 'general') {
  const el = document.createElement('lingxi-user-center')
  el.setAttribute('tab', tab)
  document.body.append(el)
  const root = el.shadowRoot!
  await vi.waitFor(() => expect(root.querySelector('[role=tabpanel]')).not.toBeNull())
  return { el, root }
}

const button = (root: ParentNode, text: string) =>
  [...root.querySelectorAll('button')].find((b) => b.textContent?.trim() === text || b.getAttribute('aria-label') === text)
const type = (input: HTMLInputElement, value: string) => {
  input.value = value
  input.dispatchEvent(new Event('input', { bubbles: true }))
}

describe('<lingxi-user-center>', () => {
  it('shows the allowances in w+ units and the balance log a page at a time', async () => {
    const { root } = await mount()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=log-row]')).toHaveLength(10))
    expect(['tokens', 'mj', 'suno'].map((k) => root.querySelector(`[data-testid=allowance-${k}]`)!.textContent)).toEqual(['12.3w+', '20', '9999'])
    expect(root.querySelector('[data-testid=log-row]')!.textContent).toContain('对话：演示模型 #23')
    expect(root.textContent).toContain('第 1 / 3 页')
    button(root, '下一页')!.click()
    await vi.waitFor(() => expect(root.textContent).toContain('第 2 / 3 页'))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=log-row]')!.textContent).toContain('#13'))
    expect(calls.filter((c) => c.path === 'user/balanceLog').map((c) => c.body.pageNum)).toEqual([1, 2])
  })

  it('says 已过期 instead of numbers when the account has expired', async () => {
    account.state = 0
    $user.set({ ...baseUser, state: 0 })
    const { root } = await mount()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=allowance-tokens]')!.textContent).toBe('已过期'))
    expect(root.querySelector('[data-testid=allowance-suno]')!.textContent).toBe('已过期')
  })

  it('switches tabs with the arrow keys and asks the page for the address', async () => {
    const { root } = await mount()
    const asked: unknown[] = []
    const listen = (e: Event) => asked.push((e as CustomEvent).detail)
    addEventListener('lingxi-navigate', listen)
    root.querySelector('[role=tablist]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }))
    await vi.waitFor(() => expect(root.querySelector('[role=tab][aria-selected=true]')!.textContent).toBe('卡密兑换'))
    removeEventListener('lingxi-navigate', listen)
    expect(asked).toEqual([{ path: '/usercenter?id=card' }])
  })

  it('redeems a card: an empty or refused card is said next to the field, a good one updates the balances and the log', async () => {
    const { root } = await mount('card')
    const input = root.querySelector<HTMLInputElement>('#lx-card-code')!
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(root.querySelector('[role=alert]')?.textContent).toBe('请输入卡密'))
    expect(calls.some((c) => c.path === 'user/rechargeCardCode')).toBe(false)
    type(input, 'LX-BAD')
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(root.querySelector('[role=alert]')?.textContent).toBe('卡密不存在或已被使用'))
    expect($user.get()!.tokens).toBe(123456)
    type(input, ' LX-GOOD ')
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect($user.get()!.tokens).toBe(223456))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=log-row]')?.textContent).toContain('LX-****-9F2A'))
    expect(
      $toasts
        .get()
        .map((t) => t.message)
        .join()
    ).toContain('兑换成功')
    expect(calls.filter((c) => c.path === 'user/rechargeCardCode').map((c) => c.body.cardCode)).toEqual(['LX-BAD', 'LX-GOOD'])
  })

  it('saves the nickname, checks it first, opens change phone, and logs out after confirming', async () => {
    const { root } = await mount('setting')
    const input = root.querySelector<HTMLInputElement>('#lx-nickname')!
    type(input, '  ')
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(root.querySelector('[role=alert]')?.textContent).toBe('昵称不能为空'))
    type(input, '灵犀用户')
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect($user.get()!.nickName).toBe('灵犀用户'))
    expect(calls.find((c) => c.path === 'user/profile/save')!.body).toEqual({ nickName: '灵犀用户' })
    button(root, '修改手机号')!.click()
    expect($loginOpen.get()).toBe('modify-phone')
    $loginOpen.set(false)
    button(root, '退出登录')!.click()
    await vi.waitFor(() => expect($confirm.get()?.message).toBe('确定要退出当前账号吗？'))
    answerConfirm(true)
    await vi.waitFor(() => expect($token.get()).toBeNull())
  })
})
