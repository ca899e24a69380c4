// @vitest-environment happy-dom
import { $user } from '../../core/stores'
import type { LoginUser } from '../../core/types'

// Runs under real React and under preact/compat.

const user: LoginUser = {
  accountId: 'a1',
  userId: 'a1',
  phone: '13800138000',
  nickName: '灵犀用户8000',
  avatarUrl: '',
  state: 1,
  tokens: 123456,
  mjCount: 20,
  sunoCount: 9999,
  permissionCodes: ['AI_TOOLS_CHAT']
} as LoginUser

async function openPanel() {
  const el = document.createElement('lingxi-profile')
  document.body.append(el)
  const root = el.shadowRoot!
  await vi.waitFor(() => expect(root.querySelector('[part=trigger]')).not.toBeNull())
  ;(root.querySelector('[part=trigger]') as HTMLButtonElement).click()
  await vi.waitFor(() => expect(root.querySelector('[role=menuitem]')).not.toBeNull())
  ;(root.querySelector('[role=menuitem]') as HTMLButtonElement).click()
  await vi.waitFor(() => expect(root.querySelector('[part=panel][open]')).not.toBeNull())
  return root
}

describe('<lingxi-profile>', () => {
  beforeAll(async () => {
    await import('./profile.element')
  })
  afterEach(() => {
    document.body.innerHTML = ''
    $user.set(null)
  })

  it('renders nothing while logged out', async () => {
    const el = document.createElement('lingxi-profile')
    document.body.append(el)
    await new Promise((r) => setTimeout(r, 50))
    expect(el.shadowRoot!.querySelector('button')).toBeNull()
  })

  it('shows the masked phone and the three allowances, ≥ 10000 as x.yw+', async () => {
    $user.set(user)
    const root = await openPanel()
    expect(root.querySelector('[data-testid=header-phone]')!.textContent).toBe('138****8000')
    expect(root.querySelector('[data-testid=profile-phone]')!.textContent).toBe('138****8000')
    expect([...root.querySelectorAll('[data-testid=usage-value]')].map((n) => n.textContent)).toEqual(['12.3w+', '20', '9999'])
  })

  it('shows 已过期 instead of numbers when the account state is 0', async () => {
    $user.set({ ...user, state: 0 })
    const root = await openPanel()
    expect([...root.querySelectorAll('[data-testid=usage-value]')].map((n) => n.textContent)).toEqual(['已过期', '已过期', '已过期'])
  })
})
