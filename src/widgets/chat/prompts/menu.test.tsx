// @vitest-environment happy-dom
import { createElement } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { Composer } from '../composer'
import { setUpFakeChat } from '../fake-chat.test-helper'
import { wantsMenu } from './menu'
import { type PromptList, promptItems, resetPrompts } from './prompts'

// The composer's `/` menu (prompts/menu.tsx) against the loopback fake; under React and preact/compat.

const fake = setUpFakeChat()
const LIST: PromptList = {
  mine: [{ promptId: 'p1', title: '翻译成英文', content: '请翻译：', createTime: 1, updateTime: 1 }],
  roles: [{ roleId: 'r1', title: '模拟面试官', avatar: '👔', content: '你是一位面试官' }]
}

let root: Root
let host: HTMLDivElement
beforeEach(() => {
  resetPrompts()
  const handle = fake.handle.bind(fake)
  fake.handle = (path, body) => (path === 'prompt/list' ? LIST : handle(path, body))
})
afterEach(() => {
  root?.unmount()
  host?.remove()
})

async function mount() {
  const sent: string[] = []
  host = document.createElement('div')
  document.body.append(host)
  root = createRoot(host)
  root.render(createElement(Composer, { busy: false, onSend: (t: string) => sent.push(t) > 0, onStop: () => {} }))
  await vi.waitFor(() => expect(host.querySelector('textarea')).not.toBeNull())
  return { sent, field: host.querySelector('textarea')! }
}

async function type(field: HTMLTextAreaElement, text: string) {
  field.value = text
  field.dispatchEvent(new Event('input', { bubbles: true }))
  await vi.waitFor(() => expect(field.value).toBe(text))
}

const key = (field: HTMLTextAreaElement, name: string) => field.dispatchEvent(new KeyboardEvent('keydown', { key: name, bubbles: true, cancelable: true }))
const options = () => [...host.querySelectorAll('[role=option]')]
const menu = () => host.querySelector('[data-testid=prompt-menu]')

describe('prompt shortcuts', () => {
  it('filters saved prompts first, then the roles’', () => {
    expect(promptItems(LIST, '').map((i) => i.title)).toEqual(['翻译成英文', '模拟面试官'])
    expect(promptItems(LIST, ' 面试 ').map((i) => i.title)).toEqual(['模拟面试官'])
    expect(promptItems(LIST, '翻译：').map((i) => i.key)).toEqual(['p:p1'])
    expect(promptItems(null, '')).toEqual([])
    expect(wantsMenu('/翻')).toBe(true)
    expect(wantsMenu('a/')).toBe(false)
    expect(wantsMenu('/a\nb')).toBe(false)
  })

  it('`/` opens the menu; arrows move, Enter puts the prompt in the field without sending', async () => {
    const { field, sent } = await mount()
    await type(field, '/')
    await vi.waitFor(() => expect(options()).toHaveLength(2))
    expect(options()[0]!.getAttribute('aria-selected')).toBe('true')
    await vi.waitFor(() => expect(field.getAttribute('aria-activedescendant')).toBe(options()[0]!.id))
    key(field, 'ArrowDown')
    await vi.waitFor(() => expect(options()[1]!.getAttribute('aria-selected')).toBe('true'))
    key(field, 'ArrowDown')
    await vi.waitFor(() => expect(options()[0]!.getAttribute('aria-selected')).toBe('true'))
    key(field, 'ArrowUp')
    await vi.waitFor(() => expect(options()[1]!.getAttribute('aria-selected')).toBe('true'))
    key(field, 'Enter')
    await vi.waitFor(() => expect(field.value).toBe('你是一位面试官'))
    expect(menu()).toBeNull()
    expect(sent).toEqual([])
    expect(fake.to('prompt/list')).toHaveLength(1)
  })

  it('typing filters; Escape closes until the text changes; Enter then sends as usual', async () => {
    const { field, sent } = await mount()
    await type(field, '/翻译')
    await vi.waitFor(() => expect(options()).toHaveLength(1))
    await type(field, '/没有这个')
    await vi.waitFor(() => expect(menu()?.textContent).toContain('没有匹配的提示词'))
    await type(field, '/')
    await vi.waitFor(() => expect(options()).toHaveLength(2))
    key(field, 'Escape')
    await vi.waitFor(() => expect(menu()).toBeNull())
    expect(field.value).toBe('/')
    key(field, 'Enter')
    await vi.waitFor(() => expect(sent).toEqual(['/']))
  })

  it('a click picks an option', async () => {
    const { field } = await mount()
    await type(field, '/')
    await vi.waitFor(() => expect(options()).toHaveLength(2))
    ;(options()[0] as HTMLElement).click()
    await vi.waitFor(() => expect(field.value).toBe('请翻译：'))
  })
})
