// @vitest-environment happy-dom
import { $loginOpen, $user } from '../../core/stores'

// Runs under real React and under preact/compat (vitest projects 'react' and 'preact').

const flush = () => new Promise((r) => setTimeout(r, 50))

function shadow(el: Element) {
  return el.shadowRoot!
}

describe('<lingxi-login>', () => {
  beforeAll(async () => {
    await import('./login.element')
  })
  afterEach(() => {
    document.body.innerHTML = ''
    $loginOpen.set(false)
    $user.set(null)
  })

  it('adopts the shared stylesheet and renders the login button only with the attribute', async () => {
    const plain = document.createElement('lingxi-login')
    const withButton = document.createElement('lingxi-login')
    withButton.setAttribute('button', '')
    document.body.append(plain, withButton)
    await flush()
    expect(shadow(plain).adoptedStyleSheets.length + shadow(plain).querySelectorAll('style').length).toBeGreaterThan(0)
    expect(shadow(plain).querySelector('[part=button]')).toBeNull()
    await vi.waitFor(() => expect(shadow(withButton).querySelector('[part=button]')?.textContent).toBe('登录'))
    const button = shadow(withButton).querySelector<HTMLButtonElement>('[part=button]')!
    button.click()
    expect($loginOpen.get()).toBe('login')
  })

  it('keeps a property set before the element was upgraded', async () => {
    const el = document.createElement('lingxi-login-later')
    ;(el as unknown as { button: boolean }).button = true
    document.body.append(el)
    const { defineElement } = await import('../../ui/define')
    const { Login } = await import('./login')
    defineElement('lingxi-login-later', Login, { button: 'boolean' })
    await vi.waitFor(() => expect(shadow(el).querySelector('[part=button]')?.textContent).toBe('登录'))
  })

  it('opens the two-step dialog titled 手机号登录 with the get-code button dimmed while the phone is empty', async () => {
    const el = document.createElement('lingxi-login')
    document.body.append(el)
    $loginOpen.set('login')
    // The dialog is a lazy chunk: on a loaded machine it renders later than a fixed wait.
    const dialog = await vi.waitFor(() => {
      const found = shadow(el).querySelector('dialog')
      if (!found) throw new Error('no dialog yet')
      return found
    })
    expect(dialog.getAttribute('aria-label')).toBe('手机号登录')
    // showModal() runs in an effect after the dialog renders: on a loaded machine, a tick later.
    await vi.waitFor(() => expect(dialog.open).toBe(true))
    const submit = [...dialog.querySelectorAll('button')].find((b) => b.textContent === '获取验证码')!
    expect(submit.getAttribute('aria-disabled')).toBe('true')
    expect(dialog.querySelector('a[href$="/license.html"]')).not.toBeNull()
  })

  it('is titled 请输入新手机号 in the change-phone flow', async () => {
    const el = document.createElement('lingxi-login')
    document.body.append(el)
    $loginOpen.set('modify-phone')
    await vi.waitFor(() => expect(shadow(el).querySelector('dialog')?.getAttribute('aria-label')).toBe('请输入新手机号'))
    expect(shadow(el).querySelector('input[type=checkbox]')).toBeNull()
  })
})

describe('several login elements on one page', () => {
  it('show one dialog, and the next one takes over when its owner leaves', async () => {
    await import('./login.element')
    const a = document.createElement('lingxi-login')
    const b = document.createElement('lingxi-login')
    document.body.append(a, b)
    $loginOpen.set('login')
    const dialogs = () => [a, b].map((el) => el.shadowRoot?.querySelector('dialog[open]'))
    // One opens (however long a loaded machine takes), and a moment later still only one.
    await vi.waitFor(() => expect(dialogs().filter(Boolean)).toHaveLength(1))
    await new Promise((r) => setTimeout(r, 50))
    expect(dialogs().filter(Boolean)).toHaveLength(1)
    a.remove()
    await vi.waitFor(() => expect(b.shadowRoot!.querySelector('dialog[open]')).not.toBeNull())
    document.body.innerHTML = ''
    $loginOpen.set(false)
  })
})
