// @vitest-environment happy-dom
import { $confirm, $toasts } from '../../core/stores'
import { confirm } from '../../core/emit'
import { answerConfirm, installGlobalListeners } from '../../core/events'
import { $english as english } from '../../ui/i18n'
import { en } from '../../ui/locale-en'
import { $english, translate } from './translate'

// The toasts and confirmations in the page's language (issue 16): English once a `locale="en"`
// loaded it — the server's known messages too, numbers and quoted names kept — else as they came.
// Runs under React and preact/compat.

beforeAll(async () => {
  installGlobalListeners()
  await import('./toaster.element')
})
afterEach(() => {
  $english.set(undefined)
  $toasts.set([])
  while ($confirm.get()) answerConfirm(false)
  document.body.innerHTML = ''
})

/** The toaster's texts on screen: its toasts, and the confirmation's title, message and buttons. */
async function shown(el: HTMLElement) {
  return vi.waitFor(() => {
    const texts = (selector: string) => [...el.shadowRoot!.querySelectorAll(selector)].map((n) => n.textContent?.trim() ?? '')
    const confirmation = texts('dialog h2, dialog p, dialog button[type=button]:not([aria-label])')
    if (confirmation.length !== 4) throw new Error('no confirmation yet')
    // (a toast of the element's own start, the page having no API here, may be there too)
    return { toasts: texts('[part=toast]'), confirmation }
  })
}

describe('translate', () => {
  it('reads the page-wide English store (src/ui/i18n.ts), not one of its own', () => {
    expect($english).toBe(english)
  })

  it('leaves every message as it came while the page is zh-CN', () => {
    expect(translate('短信验证码已发送')).toBe('短信验证码已发送')
    expect(translate('验证码错误，还可以再试 2 次')).toBe('验证码错误，还可以再试 2 次')
  })

  it('translates a message, one with numbers or a quoted name, and leaves an unknown one as it came', () => {
    $english.set(en)
    expect(translate('短信验证码已发送')).toBe('Verification code sent')
    expect(translate('验证码错误，还可以再试 2 次')).toBe('Wrong code. 2 tries left.')
    expect(translate('获取验证码过于频繁，请 12 分钟后再试')).toBe('Too many codes asked for. Try again in 12 min.')
    // a name with digits in it stays whole
    expect(translate('确定删除「周报 2024」吗？')).toBe('Delete “周报 2024”?')
    expect(translate('余额不足，请充值')).toBe('余额不足，请充值')
    expect(translate('验证码错误，还可以再试 次')).toBe('验证码错误，还可以再试 次')
  })
})

describe('<lingxi-toaster> in English', () => {
  it('shows toasts and a confirmation in Chinese, then in English once the dictionary is there', async () => {
    const el = document.createElement('lingxi-toaster')
    document.body.append(el)
    window.dispatchEvent(new CustomEvent('lingxi-toast', { detail: { message: '验证码错误，还可以再试 3 次', type: 'warning' } }))
    const answer = confirm({ title: '删除话题', message: '确定删除「读书笔记」吗？其中的消息将一并删除，且无法恢复。', confirmText: '删除' })
    const before = await shown(el)
    expect(before.toasts).toContain('验证码错误，还可以再试 3 次')
    expect(before.confirmation).toEqual(['删除话题', '确定删除「读书笔记」吗？其中的消息将一并删除，且无法恢复。', '取消', '删除'])
    $english.set(en)
    await vi.waitFor(async () => {
      const after = await shown(el)
      expect(after.toasts).toContain('Wrong code. 3 tries left.')
      expect(after.toasts).not.toContain('验证码错误，还可以再试 3 次')
      expect(after.confirmation).toEqual(['Delete topic', 'Delete “读书笔记”? Its messages go with it and cannot be restored.', 'Cancel', 'Delete'])
    })
    answerConfirm(true)
    expect(await answer).toBe(true)
  })
})
