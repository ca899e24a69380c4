// @vitest-environment happy-dom
import { createElement } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { Composer, type ComposerProps } from './composer'

// Runs under real React and under preact/compat (vitest projects 'react' and 'preact').

let root: Root
let host: HTMLDivElement

async function mount(props: Partial<ComposerProps> = {}) {
  const sent: string[] = []
  const stops: number[] = []
  const all: ComposerProps = {
    busy: false,
    onSend: (text) => {
      sent.push(text)
      return true
    },
    onStop: () => stops.push(1),
    ...props
  }
  host = document.createElement('div')
  document.body.append(host)
  root = createRoot(host)
  root.render(createElement(Composer, all))
  await vi.waitFor(() => expect(host.querySelector('textarea')).not.toBeNull())
  return {
    sent,
    stops,
    field: host.querySelector('textarea')!,
    rerender: (p: Partial<ComposerProps>) => root.render(createElement(Composer, { ...all, ...p }))
  }
}

async function type(field: HTMLTextAreaElement, text: string) {
  field.value = text
  field.dispatchEvent(new Event('input', { bubbles: true }))
  await vi.waitFor(() => expect(field.value).toBe(text))
}

/** Dispatches a keydown and tells whether the page's default (a line break) was prevented. */
function key(field: HTMLTextAreaElement, init: KeyboardEventInit & { keyCode?: number }) {
  const event = new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true, ...init })
  if (init.keyCode !== undefined) Object.defineProperty(event, 'keyCode', { value: init.keyCode })
  field.dispatchEvent(event)
  return event.defaultPrevented
}

const tick = () => new Promise((r) => setTimeout(r, 20))
const button = (name: string) => host.querySelector<HTMLButtonElement>(`button[aria-label="${name}"]`)

afterEach(() => {
  root.unmount()
  host.remove()
})

describe('<Composer> keyboard', () => {
  it('Enter sends the trimmed text, clears the field and keeps the focus there', async () => {
    const { sent, field } = await mount()
    field.focus()
    await type(field, '  你好，灵犀  ')
    expect(key(field, {})).toBe(true)
    await tick()
    expect(sent).toEqual(['你好，灵犀'])
    await vi.waitFor(() => expect(field.value).toBe(''))
    expect(document.activeElement).toBe(field)
  })

  it('Shift+Enter breaks the line and sends nothing', async () => {
    const { sent, field } = await mount()
    await type(field, '第一行')
    expect(key(field, { shiftKey: true })).toBe(false)
    await tick()
    expect(sent).toEqual([])
  })

  it('Enter confirming an IME candidate never sends (isComposing, keyCode 229, between composition events)', async () => {
    const { sent, field } = await mount()
    await type(field, 'nihao')
    expect(key(field, { isComposing: true })).toBe(false)
    expect(key(field, { keyCode: 229 })).toBe(false)
    field.dispatchEvent(new CompositionEvent('compositionstart', { bubbles: true }))
    expect(key(field, {})).toBe(false)
    await type(field, '你好')
    field.dispatchEvent(new CompositionEvent('compositionend', { bubbles: true, data: '你好' }))
    await tick()
    expect(sent).toEqual([])
    expect(key(field, {})).toBe(true)
    await tick()
    expect(sent).toEqual(['你好'])
  })

  it('sends nothing while empty: Enter does nothing and the send button is disabled', async () => {
    const { sent, field } = await mount()
    await type(field, '   \n ')
    key(field, {})
    await tick()
    expect(sent).toEqual([])
    expect(button('发送')!.disabled).toBe(true)
    await type(field, '好')
    await vi.waitFor(() => expect(button('发送')!.disabled).toBe(false))
    button('发送')!.click()
    await tick()
    expect(sent).toEqual(['好'])
  })

  it('while a reply streams, a stop button replaces send and Enter sends nothing', async () => {
    const { sent, stops, field } = await mount({ busy: true })
    expect(button('发送')).toBeNull()
    await type(field, '下一个问题')
    key(field, {})
    await tick()
    expect(sent).toEqual([])
    button('停止生成')!.click()
    expect(stops).toEqual([1])
    expect(field.value).toBe('下一个问题')
  })

  it('gives the text back when the question did not go through', async () => {
    const { field } = await mount({ onSend: () => Promise.resolve(false) })
    await type(field, '额度用完了吗')
    key(field, {})
    await vi.waitFor(() => expect(field.value).toBe('额度用完了吗'))
  })

  it('counts characters near the 20000 limit and refuses more', async () => {
    const { sent, field } = await mount({ notice: '对话额度不足' })
    expect(host.querySelector('[role=alert]')?.textContent).toContain('对话额度不足')
    await type(field, 'a'.repeat(17999))
    expect(host.textContent).not.toContain('/ 20000')
    await type(field, 'a'.repeat(18000))
    await vi.waitFor(() => expect(host.textContent).toContain('18000 / 20000'))
    await type(field, 'a'.repeat(20001))
    await vi.waitFor(() => expect(host.textContent).toContain('20001 / 20000，超出字数上限'))
    expect(button('发送')!.disabled).toBe(true)
    key(field, {})
    await tick()
    expect(sent).toEqual([])
  })
})
