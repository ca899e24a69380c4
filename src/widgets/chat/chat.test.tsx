// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { answerConfirm } from '../../core/events'
import { $confirm, $loginOpen, $token } from '../../core/stores'
import { resetChat, type ChatMessage, type Topic } from './state'

// <lingxi-chat> against a loopback fake of the chat endpoints. Runs under real React and under
// preact/compat (vitest projects 'react' and 'preact').

const DAY = 864e5
const now = Date.now()

function topic(topicId: string, name: string, patch: Partial<Topic> = {}): Topic {
  return {
    topicId,
    name,
    topFlag: 0,
    updateTime: now,
    createTime: now,
    chatType: 30,
    oldChatType: null,
    oldTopicIndex: null,
    roleId: null,
    roleName: null,
    roleAvatar: null,
    model: 'lingxi-demo',
    temperature: 0.7,
    contextEnabled: 1,
    ...patch
  }
}

function message(messageId: string, role: ChatMessage['role'], content: string, patch: Partial<ChatMessage> = {}): ChatMessage {
  return {
    messageId,
    topicId: 't1',
    role,
    content,
    thinking: null,
    status: 'complete',
    requestId: null,
    errorCode: null,
    errorMessage: null,
    model: null,
    createTime: now,
    usage: null,
    ...patch
  }
}

let topics: Topic[] = []
let messages: ChatMessage[] = []
const calls: { path: string; body: Record<string, unknown> }[] = []
let server: ReturnType<typeof createServer>

function json(res: ServerResponse, data: unknown, code = 2000) {
  res.setHeader('content-type', 'application/json')
  res.end(JSON.stringify(code === 2000 ? { code, message: 'success', data } : { code, message: String(data), data: null }))
}

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept, last-event-id')
  if (req.method === 'OPTIONS') return res.end()
  const path = new URL(req.url ?? '/', 'http://x').pathname
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>
  calls.push({ path, body })
  if (path === '/config/chatConfig.json') return json(res, { models: [{ id: 'lingxi-demo', name: '灵犀演示模型' }], defaultModel: 'lingxi-demo' })
  if (path.startsWith('/api/v1/ai-chat/sse/subscribe/')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    return res.end('id: 1\nevent: delta\ndata: {"content":"这是回答"}\n\nid: 2\nevent: done\ndata: {"status":"complete"}\n\n')
  }
  if (path === '/api/v1/report') return json(res, { reportId: 'r1', duplicate: false })
  switch (path.replace('/api/v1/ai-chat/', '')) {
    case 'topic/list':
      return json(res, topics)
    case 'topic/messages':
      return json(res, { list: messages.filter((m) => m.topicId === body.topicId).reverse(), total: messages.length, pageNum: 1, pageSize: 20 })
    case 'topic/message/send':
      return json(res, { requestId: body.requestId, messageId: 'q9', replyId: 'a9' })
    case 'topic/create': {
      // slow enough for a question typed at once to arrive first
      await new Promise((r) => setTimeout(r, 150))
      const created = topic('t9', '新的对话')
      topics.unshift(created)
      return json(res, created)
    }
    case 'topic/message/clear':
      messages = []
      return json(res, null)
  }
  json(res, `no route ${path}`, 40400001)
}

beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  await import('./chat.element')
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(() => {
  topics = [
    topic('t1', '周末去哪玩'),
    topic('t0', '置顶的话题', { topFlag: 1, updateTime: now - 30 * DAY }),
    topic('t2', '三天前的话题', { updateTime: now - 3 * DAY, roleId: 'r1', roleName: '翻译官', roleAvatar: '🧑‍🏫' })
  ]
  messages = [message('q1', 'user', '推荐个地方'), message('a1', 'assistant', '', { status: 'error', errorMessage: '上游出错了' })]
  calls.length = 0
})
afterEach(() => {
  document.body.innerHTML = ''
  $token.set(null)
  resetChat()
  $loginOpen.set(false)
  while ($confirm.get()) answerConfirm(false)
})

function mount() {
  const el = document.createElement('lingxi-chat')
  document.body.append(el)
  return el.shadowRoot!
}

const chatCalls = () => calls.filter((c) => c.path.includes('/ai-chat/') || c.path.includes('chatConfig'))

describe('<lingxi-chat>', () => {
  it('logged out: a login prompt whose button opens the login, and no chat calls', async () => {
    const root = mount()
    await vi.waitFor(() => expect(root.textContent).toContain('登录后开始对话'))
    const button = [...root.querySelectorAll('button')].find((b) => b.textContent === '登录')!
    button.click()
    expect($loginOpen.get()).toBe('login')
    await new Promise((r) => setTimeout(r, 50))
    expect(chatCalls()).toEqual([])
  })

  it('lists the topics in their groups and shows the newest topic with per-message status', async () => {
    $token.set('tok')
    const root = mount()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=topic-item]')).toHaveLength(3))
    expect([...root.querySelectorAll('nav[aria-label=话题列表] h3')].map((h) => h.textContent)).toEqual(['置顶', '今天', '七天内'])
    expect([...root.querySelectorAll('[data-testid=topic-item]')].map((li) => li.textContent)).toEqual(['置顶的话题', '周末去哪玩', '🧑‍🏫三天前的话题']) // a role topic shows the role's avatar
    // the newest topic (not the pinned one) opens
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=message]')).toHaveLength(2))
    expect(root.querySelector('[aria-current=true]')?.textContent).toBe('周末去哪玩')
    expect(root.querySelector('header h2')?.textContent).toBe('周末去哪玩')
    const log = root.querySelector('[role=log]')!
    // the log is not live (a streamed reply would be read again and again): the history is not read out
    expect(log.getAttribute('aria-live')).toBe('off')
    const live = root.querySelector('[data-testid=live-reply]')!
    expect(live.getAttribute('aria-live')).toBe('polite')
    expect(live.textContent).toBe('')
    const [question, answer] = [...root.querySelectorAll<HTMLElement>('[data-testid=message]')]
    expect(question!.dataset).toMatchObject({ role: 'user', status: 'complete' })
    expect(answer!.dataset).toMatchObject({ role: 'assistant', status: 'error' })
    expect(answer!.textContent).toContain('回复失败：上游出错了')
    expect([...answer!.querySelectorAll('button')].map((b) => b.textContent || b.getAttribute('aria-label'))).toContain('重试')
    for (const b of root.querySelectorAll('button')) expect(b.textContent!.trim() || b.getAttribute('aria-label')).toBeTruthy()
  })

  it('sends from the composer and shows the streamed answer', async () => {
    $token.set('tok')
    const root = mount()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=message]')).toHaveLength(2))
    const field = root.querySelector<HTMLTextAreaElement>('[data-testid=composer]')!
    field.value = '去杭州怎么样'
    field.dispatchEvent(new Event('input', { bubbles: true }))
    await vi.waitFor(() => expect(field.value).toBe('去杭州怎么样'))
    field.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(calls.some((c) => c.path.endsWith('topic/message/send'))).toBe(true))
    expect(calls.find((c) => c.path.endsWith('topic/message/send'))!.body).toMatchObject({ topicId: 't1', content: '去杭州怎么样' })
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=message]')).toHaveLength(4))
    const last = () => [...root.querySelectorAll<HTMLElement>('[data-testid=message]')].at(-1)!
    await vi.waitFor(() => expect(last().dataset.status).toBe('complete'))
    // the reply's text arrives through the lazily loaded renderer: wait for it rather than race it
    await vi.waitFor(() => expect(last().textContent).toContain('这是回答'))
    await vi.waitFor(() => expect(field.value).toBe(''))
    // a screen reader hears the streamed reply once, from the polite region (the log is not live)
    await vi.waitFor(() => expect(root.querySelector('[data-testid=live-reply]')!.textContent).toContain('这是回答'))
  })

  it('a question sent while 新建对话 is still creating the topic goes to the new topic', async () => {
    $token.set('tok')
    const root = mount()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=message]')).toHaveLength(2))
    ;[...root.querySelectorAll<HTMLButtonElement>('button')]
      .find((b) => b.getAttribute('aria-label') === '新建对话' || b.textContent?.trim() === '新建对话')!
      .click()
    const field = root.querySelector<HTMLTextAreaElement>('[data-testid=composer]')!
    field.value = '新话题的第一个问题'
    field.dispatchEvent(new Event('input', { bubbles: true }))
    await vi.waitFor(() => expect(field.value).toBe('新话题的第一个问题'))
    field.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(calls.some((c) => c.path.endsWith('topic/message/send'))).toBe(true))
    expect(calls.filter((c) => c.path.endsWith('topic/create'))).toHaveLength(1)
    expect(calls.find((c) => c.path.endsWith('topic/message/send'))!.body).toMatchObject({ topicId: 't9', content: '新话题的第一个问题' })
  })

  it('举报 on a reply sends the reason to the operators, and says so', async () => {
    messages = [message('q1', 'user', '推荐个地方'), message('a2', 'assistant', '去西湖看看')]
    $token.set('tok')
    const root = mount()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=message]')).toHaveLength(2))
    const [question, answer] = [...root.querySelectorAll<HTMLElement>('[data-testid=message]')]
    // only replies carry it: a person does not report their own question
    expect(question!.querySelector('button[aria-label=举报]')).toBeNull()
    answer!.querySelector<HTMLButtonElement>('button[aria-label=举报]')!.click()
    const form = await vi.waitFor(() => {
      const found = root.querySelector<HTMLFormElement>('[data-testid=report-dialog]')
      if (!found) throw new Error('no report dialog yet')
      return found
    })
    const submit = () => form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    // the dialog clears its form in an effect after it first shows: a person is never that fast
    await new Promise((r) => setTimeout(r, 50))
    submit()
    await vi.waitFor(() => expect(form.textContent).toContain('请选择举报理由'))
    expect(calls.some((c) => c.path === '/api/v1/report')).toBe(false)
    form.querySelector<HTMLInputElement>('input[value=暴力血腥]')!.click()
    await vi.waitFor(() => expect(form.querySelector<HTMLInputElement>('input[value=暴力血腥]')!.checked).toBe(true))
    submit()
    await vi.waitFor(() => expect(calls.find((c) => c.path === '/api/v1/report')?.body).toEqual({ kind: 'reply', itemId: 'a2', reason: '暴力血腥' }))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=report-dialog]')).toBeNull())
  })

  it('obeys lingxi-chat-command: clear asks first, then empties the conversation', async () => {
    $token.set('tok')
    const root = mount()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=message]')).toHaveLength(2))
    dispatchEvent(new CustomEvent('lingxi-chat-command', { detail: { command: 'clear' } }))
    await vi.waitFor(() => expect($confirm.get()?.title).toBe('清空对话'))
    answerConfirm(true)
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=message]')).toHaveLength(0))
    expect(calls.find((c) => c.path.endsWith('topic/message/clear'))!.body).toEqual({ topicId: 't1' })
    expect(root.textContent).toContain('你好，我是灵犀')
  })

  it('send() and prefill() from the page: the question goes with the page title and URL, or without with page-context="off"', async () => {
    $token.set('tok')
    document.title = '青禾书店 · 新书推荐'
    const el = document.createElement('lingxi-chat') as HTMLElementTagNameMap['lingxi-chat']
    el.prefill('草稿')
    document.body.append(el)
    const root = el.shadowRoot!
    const field = () => root.querySelector<HTMLTextAreaElement>('[data-testid=composer]')
    await vi.waitFor(() => expect(field()?.value).toBe('草稿'))
    expect(calls.some((c) => c.path.endsWith('topic/message/send'))).toBe(false)
    el.send('这本书讲什么？')
    await vi.waitFor(() => expect(calls.some((c) => c.path.endsWith('topic/message/send'))).toBe(true))
    expect(calls.find((c) => c.path.endsWith('topic/message/send'))!.body).toMatchObject({
      topicId: 't1',
      content: '这本书讲什么？',
      page: { title: '青禾书店 · 新书推荐', url: location.href }
    })
    const sends = () => calls.filter((c) => c.path.endsWith('topic/message/send'))
    el.context = { title: '《三体》', url: 'https://books.example.com/1' }
    el.send('作者是谁？')
    await vi.waitFor(() => expect(sends()).toHaveLength(2))
    expect(sends()[1]!.body.page).toEqual({ title: '《三体》', url: 'https://books.example.com/1' })
    el.setAttribute('page-context', 'off')
    el.send('还有呢？')
    await vi.waitFor(() => expect(sends()).toHaveLength(3))
    expect(sends()[2]!.body).not.toHaveProperty('page')
    // a request is carried out once: a later render sends nothing again
    el.setAttribute('welcome', '欢迎')
    await new Promise((r) => setTimeout(r, 50))
    expect(sends()).toHaveLength(3)
  })
})
