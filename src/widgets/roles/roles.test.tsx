// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { answerConfirm } from '../../core/events'
import { takeHandoff } from '../../core/handoff'
import { $confirm, $token } from '../../core/stores'
import { $roleTags, type Role } from './state'

// <lingxi-roles> against a loopback fake of the role-play endpoints. Runs under real React and
// under preact/compat.

const role = (roleId: string, name: string, mine = false): Role => ({
  roleId,
  name,
  avatar: '🧑‍🏫',
  description: `${name}的简介`,
  systemPrompt: '你是……',
  welcomeMessage: null,
  tags: [{ tagId: 'g1', name: '学习' }],
  isPublic: !mine,
  mine,
  createTime: 1,
  updateTime: 1
})

let roles: Role[] = []
const calls: { path: string; body: Record<string, unknown> }[] = []
let server: ReturnType<typeof createServer>

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type')
  if (req.method === 'OPTIONS') return res.end()
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/api/v1/ai-chat/', '')
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>
  calls.push({ path, body })
  const data: Record<string, unknown> = {
    'role-play/tag/list': [
      { tagId: 'g1', name: '学习', count: 12 },
      { tagId: 'g2', name: '职场', count: 3 }
    ],
    'role-play/list': { list: roles.filter((r) => !body.keyword || r.name.includes(String(body.keyword))), total: roles.length, pageNum: 1, pageSize: 24 },
    'role-play/del': null,
    'topic/create': {
      topicId: 'tr',
      name: '英语老师',
      topFlag: 0,
      updateTime: 1,
      createTime: 1,
      roleId: body.roleId,
      roleName: '英语老师',
      roleAvatar: '🧑‍🏫'
    },
    'topic/messages': { list: [], total: 0, pageNum: 1, pageSize: 20 }
  }
  res.setHeader('content-type', 'application/json')
  res.end(JSON.stringify(path in data ? { code: 2000, message: 'success', data: data[path] } : { code: 40400001, message: path, data: null }))
}

beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  await import('./roles.element')
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(() => {
  roles = [role('r1', '英语老师'), role('r2', '面试官', true)]
  calls.length = 0
  $token.set('tok')
})
afterEach(() => {
  document.body.innerHTML = ''
  $token.set(null)
  $roleTags.set(null)
  takeHandoff('chat')
  while ($confirm.get()) answerConfirm(false)
})

async function mount() {
  const el = document.createElement('lingxi-roles')
  document.body.append(el)
  const root = el.shadowRoot!
  await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=role-card]')).toHaveLength(2))
  return root
}

const button = (root: ParentNode, text: string) =>
  [...root.querySelectorAll('button')].find((b) => b.textContent?.trim() === text || b.getAttribute('aria-label') === text)

describe('<lingxi-roles>', () => {
  it('shows the tag chips with their counts around 全部 and 我的, and filters by them', async () => {
    const root = await mount()
    await vi.waitFor(() => expect(root.querySelectorAll('[aria-label=按标签筛选] button')).toHaveLength(4))
    expect([...root.querySelectorAll('[aria-label=按标签筛选] button')].map((b) => b.textContent)).toEqual(['全部', '学习12', '职场3', '我的'])
    button(root, '职场3')!.click()
    await vi.waitFor(() => expect(calls.at(-1)).toEqual({ path: 'role-play/list', body: { pageNum: 1, pageSize: 24, tagId: 'g2' } }))
    button(root, '我的')!.click()
    await vi.waitFor(() => expect(calls.at(-1)?.body).toEqual({ pageNum: 1, pageSize: 24, mine: true }))
  })

  it('searches 300 ms after the last keystroke, once', async () => {
    const root = await mount()
    const search = root.querySelector<HTMLInputElement>('input[type=search]')!
    const before = calls.filter((c) => c.path === 'role-play/list').length
    for (const text of ['英', '英语', '英语老']) {
      search.value = text
      search.dispatchEvent(new Event('input', { bubbles: true }))
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(calls.filter((c) => c.path === 'role-play/list')).toHaveLength(before)
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=role-card]')).toHaveLength(1))
    expect(
      calls
        .filter((c) => c.path === 'role-play/list')
        .slice(before)
        .map((c) => c.body.keyword)
    ).toEqual(['英语老'])
  })

  it('开始对话 creates a topic with the role, leaves it for the chat and asks the page to open /chat', async () => {
    const root = await mount()
    const asked: unknown[] = []
    const listen = (e: Event) => asked.push((e as CustomEvent).detail)
    addEventListener('lingxi-navigate', listen)
    button(root.querySelector('[data-testid=role-card]')!, '开始对话')!.click()
    await vi.waitFor(() => expect(asked).toEqual([{ path: '/chat', topicId: 'tr' }]))
    removeEventListener('lingxi-navigate', listen)
    expect(calls.find((c) => c.path === 'topic/create')!.body).toEqual({ roleId: 'r1' })
    // the chat makes it the active topic when it takes it (tests/unit/chat.test.ts)
    expect(takeHandoff('chat')).toMatchObject({ topicId: 'tr', roleId: 'r1' })
  })

  it('only my roles can be edited or deleted; delete asks first', async () => {
    const root = await mount()
    const [theirs, mine] = [...root.querySelectorAll('[data-testid=role-card]')]
    expect(button(theirs!, '删除角色')).toBeUndefined()
    button(mine!, '删除角色')!.click()
    await vi.waitFor(() => expect($confirm.get()?.message).toContain('面试官'))
    answerConfirm(true)
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=role-card]')).toHaveLength(1))
    expect(calls.find((c) => c.path === 'role-play/del')!.body).toEqual({ roleId: 'r2' })
  })

  it('the create form says in Chinese what is missing and sends nothing', async () => {
    const root = await mount()
    button(root, '创建角色')!.click()
    await vi.waitFor(() => expect(root.querySelector('form')).not.toBeNull())
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(root.querySelectorAll('form [role=alert]').length).toBe(3))
    expect([...root.querySelectorAll('form [role=alert]')].map((p) => p.textContent)).toEqual([
      '请输入角色名称',
      '请输入角色简介',
      '请输入角色设定（系统提示词）'
    ])
    expect(calls.some((c) => c.path === 'role-play/save')).toBe(false)
  })
})
