// @vitest-environment happy-dom
import { flushSync } from 'react-dom'
import { createRoot, type Root } from 'react-dom/client'
import { $topics, type Topic } from '../state'
import ShareDialog from './dialog'

// The 导出与分享 dialog against a stubbed fetch. Runs under real React and under preact/compat.

let root: Root | null = null
let shadow: ShadowRoot
let calls: { path: string; body: Record<string, unknown> }[] = []

const topic = (topicId: string, name: string): Topic => ({
  topicId,
  name,
  topFlag: 0,
  updateTime: 1,
  createTime: 1,
  chatType: 30,
  oldChatType: null,
  oldTopicIndex: null,
  roleId: null,
  roleName: null,
  roleAvatar: null,
  model: 'lingxi-demo',
  temperature: 0.7,
  contextEnabled: 1
})
const share = (shareId: string, topicId: string, title: string) => ({ shareId, topicId, title, path: `/share/${shareId}`, messageCount: 2, createTime: 1 })

beforeEach(() => {
  calls = []
  $topics.set([topic('t1', '周末计划'), topic('t2', '别的话题')])
  const stored = [share('s'.repeat(24), 't2', '别的话题')]
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = url.replace(/^.*\/api\/v1\/ai-chat\//, '')
      const body = JSON.parse(String(init.body)) as Record<string, unknown>
      calls.push({ path, body })
      let data: unknown = null
      if (path === 'share/list') data = { list: stored, total: stored.length, pageNum: 1, pageSize: 100 }
      if (path === 'share/create') {
        const made = share('n'.repeat(24), 't1', '周末计划')
        stored.unshift(made)
        data = made
      }
      return new Response(JSON.stringify({ code: 2000, message: '操作成功', data }), { headers: { 'Content-Type': 'application/json' } })
    })
  )
  Object.defineProperty(navigator, 'clipboard', { value: { writeText: vi.fn(async () => {}) }, configurable: true })
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
  $topics.set(null)
})

const button = (name: string) => [...shadow.querySelectorAll('button')].find((b) => b.textContent?.trim() === name)

describe('<ShareDialog>', () => {
  it('creates a link (copied), lists the other topics’ links, and revokes after a second click', async () => {
    const onClose = vi.fn()
    flushSync(() => root!.render(<ShareDialog topicId="t1" onClose={onClose} />))
    await vi.waitFor(() => expect(shadow.querySelector('details summary')?.textContent).toBe('我的其他分享（1）'))
    expect(shadow.querySelector('[data-testid="share-link"]')?.closest('details')).not.toBeNull()

    button('创建分享链接')!.click()
    await vi.waitFor(() => expect(shadow.querySelector('[role="status"]')?.textContent).toBe('已创建分享链接'))
    expect(calls.find((c) => c.path === 'share/create')?.body).toEqual({ topicId: 't1' })
    const field = shadow.querySelector<HTMLInputElement>('section [data-testid="share-link"] input')!
    expect(field.value).toBe(`${location.origin}/share/${'n'.repeat(24)}`)
    expect(navigator.clipboard.writeText).toHaveBeenCalledWith(field.value)
    expect(button('生成新的分享链接')).toBeDefined()

    // the first click only asks; the second revokes
    button('撤销')!.click()
    await vi.waitFor(() => expect(button('确认撤销')).toBeDefined())
    expect(calls.some((c) => c.path === 'share/revoke')).toBe(false)
    button('确认撤销')!.click()
    await vi.waitFor(() => expect(shadow.querySelector('[role="status"]')?.textContent).toBe('已撤销分享，链接已失效'))
    expect(calls.find((c) => c.path === 'share/revoke')?.body).toEqual({ shareId: 'n'.repeat(24) })
    expect(shadow.querySelector('section [data-testid="share-link"]')).toBeNull()
    expect(onClose).not.toHaveBeenCalled()
  })

  it('closes when its topic is gone (deleted meanwhile)', async () => {
    const onClose = vi.fn()
    flushSync(() => root!.render(<ShareDialog topicId="t1" onClose={onClose} />))
    $topics.set([topic('t2', '别的话题')])
    await vi.waitFor(() => expect(onClose).toHaveBeenCalled())
  })
})
