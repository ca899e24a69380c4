// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  $activeTopicId,
  $chatConfig,
  $messages,
  $streaming,
  $token,
  $topics,
  ApiError,
  clearTopic,
  configure,
  createTopic,
  deleteMessage,
  deleteTopic,
  loadMessages,
  regenerate,
  renameTopic,
  resetChat,
  resumeStreams,
  selectTopic,
  sendMessage,
  startChat,
  stopMessage,
  toggleContext,
  togglePin,
  type ChatMessage,
  type Topic,
} from '../../src/core'
import { user } from './helpers/fixtures'
import { resetCore } from './helpers/reset'

// A loopback fake of the chat endpoints of docs/chat-wire.md: a message store, and streams that
// keep their events so a late or reconnecting subscriber gets the ones it missed.

interface Stream {
  requestId: string
  replyId: string
  events: { id: number; event: string; data: Record<string, unknown> }[]
  ended: boolean
  subscribers: Set<ServerResponse>
}

interface Failure {
  code: number
  message: string
  status: number
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

class FakeChat {
  topics: Topic[] = []
  messages: ChatMessage[] = []
  streams = new Map<string, Stream>()
  calls: { path: string; body: Record<string, unknown>; lastEventId?: string }[] = []
  /** One-shot refusals by path. */
  failures: Record<string, Failure> = {}
  /** Answers held back by path until released. */
  gates: Record<string, Promise<void>> = {}
  /** Answers whose connection is cut after the work is done (the answer is lost). */
  lose = new Set<string>()
  /** Replays every event on reconnect, as a server that ignores Last-Event-ID would. */
  replayAll = false
  /** The events have expired: a reconnect gets only the final event, numbered after Last-Event-ID. */
  expired = false
  seq = 0
  clock = Date.now()

  reset() {
    Object.assign(this, { topics: [], messages: [], calls: [], failures: {}, gates: {}, seq: 0, replayAll: false, expired: false })
    for (const s of this.streams.values()) for (const res of s.subscribers) res.destroy()
    this.streams.clear()
    this.lose.clear()
  }

  id(prefix: string) {
    return `${prefix}${++this.seq}`
  }

  now() {
    return ++this.clock
  }

  /** Holds the next answers of `path` until the returned function is called. */
  gate(path: string): () => void {
    let release!: () => void
    this.gates[path] = new Promise<void>((r) => (release = r))
    return () => {
      delete this.gates[path]
      release()
    }
  }

  addTopic(patch: Partial<Topic> = {}): Topic {
    const time = this.now()
    const topic: Topic = {
      topicId: this.id('t'),
      name: '新对话',
      topFlag: 0,
      updateTime: time,
      createTime: time,
      chatType: 30,
      oldChatType: null,
      oldTopicIndex: null,
      roleId: null,
      roleName: null,
      roleAvatar: null,
      model: 'lingxi-demo',
      temperature: 0.7,
      contextEnabled: 1,
      ...patch,
    }
    this.topics.push(topic)
    return topic
  }

  addMessage(topicId: string, patch: Partial<ChatMessage> = {}): ChatMessage {
    const message: ChatMessage = {
      messageId: this.id('m'),
      topicId,
      role: 'user',
      content: '',
      thinking: null,
      status: 'complete',
      requestId: null,
      errorCode: null,
      errorMessage: null,
      model: null,
      createTime: this.now(),
      usage: null,
      ...patch,
    }
    this.messages.push(message)
    return message
  }

  message(messageId: string) {
    return this.messages.find((m) => m.messageId === messageId)
  }

  openStream(requestId: string, replyId: string): Stream {
    const stream: Stream = { requestId, replyId, events: [], ended: false, subscribers: new Set() }
    this.streams.set(requestId, stream)
    return stream
  }

  /** The model writes: the event is saved, applied to the stored reply and sent to subscribers. */
  emit(requestId: string, event: string, data: Record<string, unknown> = {}) {
    const stream = this.streams.get(requestId)!
    if (stream.ended) throw new Error(`stream ${requestId} has ended`)
    const reply = this.message(stream.replyId)
    if (reply && event === 'delta') {
      reply.content += (data.content as string) ?? ''
      if (data.thinking) reply.thinking = (reply.thinking ?? '') + (data.thinking as string)
    }
    if (reply && event !== 'delta') reply.status = data.status as ChatMessage['status']
    if (reply && event === 'done') reply.usage = data.usage as ChatMessage['usage']
    const entry = { id: stream.events.length + 1, event, data: { ...data, ...(event === 'delta' ? {} : { messageId: stream.replyId }) } }
    stream.events.push(entry)
    if (event !== 'delta') stream.ended = true
    for (const res of stream.subscribers) {
      res.write(frame(entry))
      if (stream.ended) res.end()
    }
    if (stream.ended) stream.subscribers.clear()
  }

  /** The network drops every open subscription of the stream. */
  drop(requestId: string) {
    const stream = this.streams.get(requestId)!
    for (const res of stream.subscribers) res.socket?.destroy()
    stream.subscribers.clear()
  }

  subscriptions(requestId: string) {
    return this.calls.filter((c) => c.path === `sse/subscribe/${requestId}`)
  }

  to(path: string) {
    return this.calls.filter((c) => c.path === path)
  }

  reply(topicId: string, userMessageId: string, requestId: string) {
    const reply = this.addMessage(topicId, { role: 'assistant', status: 'streaming', requestId, model: 'lingxi-demo' })
    this.openStream(requestId, reply.messageId)
    return { requestId, messageId: userMessageId, replyId: reply.messageId }
  }

  handle(path: string, body: Record<string, unknown>): unknown {
    const topicOf = (id: unknown) => {
      const topic = this.topics.find((t) => t.topicId === id)
      if (!topic) throw { code: 40400001, message: '话题不存在', status: 404 }
      return topic
    }
    const messageOf = (id: unknown) => {
      const m = this.message(String(id))
      if (!m) throw { code: 40400001, message: '消息不存在', status: 404 }
      return m
    }
    switch (path) {
      case 'topic/list':
        return [...this.topics].sort((a, b) => b.topFlag - a.topFlag || b.updateTime - a.updateTime)
      case 'topic/create': {
        const topic = this.addTopic({ name: (body.name as string) ?? (body.roleId ? '翻译官' : '新对话'), roleId: (body.roleId as string) ?? null })
        if (body.roleId) this.addMessage(topic.topicId, { role: 'assistant', content: '你好，我是翻译官。' })
        return topic
      }
      case 'topic/messages': {
        const all = this.messages.filter((m) => m.topicId === body.topicId).reverse()
        const size = body.pageSize as number
        const from = ((body.pageNum as number) - 1) * size
        return { list: all.slice(from, from + size), total: all.length, pageNum: body.pageNum, pageSize: size }
      }
      case 'topic/message/send': {
        const topic = topicOf(body.topicId)
        const requestId = (body.requestId as string) ?? this.id('r')
        const earlier = this.streams.get(requestId)
        if (earlier) {
          const reply = this.message(earlier.replyId)!
          return { requestId, messageId: this.messages[this.messages.indexOf(reply) - 1]!.messageId, replyId: reply.messageId }
        }
        const question = this.addMessage(topic.topicId, { content: body.content as string })
        topic.updateTime = this.now()
        return this.reply(topic.topicId, question.messageId, requestId)
      }
      case 'topic/message/regenerate': {
        const old = messageOf(body.replyId)
        const last = this.messages.filter((m) => m.topicId === old.topicId && m.role === 'assistant').at(-1)
        if (last !== old) throw { code: 40000001, message: '只能重新生成最后一条回复', status: 400 }
        const question = this.messages[this.messages.indexOf(old) - 1]!
        this.messages.splice(this.messages.indexOf(old), 1)
        return this.reply(old.topicId, question.messageId, this.id('r'))
      }
      case 'topic/message/stop': {
        const stream = this.streams.get(body.requestId as string)
        if (!stream) throw { code: 40400001, message: '请求不存在', status: 404 }
        if (!stream.ended) this.emit(stream.requestId, 'stopped', { status: 'interrput' })
        return this.message(stream.replyId)
      }
      case 'topic/message/get':
        return messageOf(body.messageId)
      case 'topic/message/del':
        messageOf(body.messageId)
        this.messages = this.messages.filter((m) => m.messageId !== body.messageId)
        return null
      case 'topic/message/clear':
        topicOf(body.topicId)
        this.messages = this.messages.filter((m) => m.topicId !== body.topicId)
        return null
      case 'topic/top/switch': {
        const topic = topicOf(body.topicId)
        topic.topFlag = topic.topFlag ? 0 : 1
        return topic
      }
      case 'topic/name/edit':
        return Object.assign(topicOf(body.topicId), { name: body.name })
      case 'topic/del':
        topicOf(body.topicId)
        this.topics = this.topics.filter((t) => t.topicId !== body.topicId)
        return null
      case 'topic/configs/save': {
        const { topicId, ...config } = body
        return Object.assign(topicOf(topicId), config)
      }
      case 'topic/configs/context/switch': {
        const topic = topicOf(body.topicId)
        topic.contextEnabled = topic.contextEnabled ? 0 : 1
        return topic
      }
    }
    throw { code: 40400001, message: `no route ${path}`, status: 404 }
  }
}

const frame = (e: { id: number; event: string; data: unknown }) => `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`

const fake = new FakeChat()
let server: ReturnType<typeof createServer>

function send(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.end(JSON.stringify(body))
}

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept, last-event-id, cache-control')
  if (req.method === 'OPTIONS') return send(res, 204, '')
  const url = new URL(req.url ?? '/', 'http://x')
  if (url.pathname === '/config/chatConfig.json') {
    await fake.gates['config']
    return send(res, 200, { models: [{ id: 'lingxi-demo', name: '灵犀演示模型' }], defaultModel: 'lingxi-demo', contextEnabled: true })
  }
  if (req.headers.authorization !== 'Bearer tok') return send(res, 401, { code: 50011004, message: '请先登录', data: null })
  if (url.pathname === '/api/v1/user/info') return send(res, 200, { code: 2000, message: 'success', data: user })
  const sse = /^\/api\/v1\/ai-chat\/(sse\/subscribe\/(.+))$/.exec(url.pathname)
  if (sse) {
    const lastEventId = req.headers['last-event-id'] as string | undefined
    fake.calls.push({ path: sse[1]!, body: {}, lastEventId })
    const stream = fake.streams.get(decodeURIComponent(sse[2]!))
    if (!stream) return send(res, 404, { code: 40400001, message: '请求不存在', data: null })
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.flushHeaders()
    if (fake.expired && lastEventId) {
      const row = fake.message(stream.replyId)!
      const event = row.status === 'complete' ? 'done' : row.status === 'interrput' ? 'stopped' : 'error'
      return res.end(frame({ id: Number(lastEventId) + 1, event, data: { status: row.status, messageId: row.messageId } }))
    }
    const after = fake.replayAll ? 0 : Number(lastEventId ?? 0)
    for (const e of stream.events) if (e.id > after) res.write(frame(e))
    if (stream.ended) return res.end()
    stream.subscribers.add(res)
    res.on('close', () => stream.subscribers.delete(res))
    return
  }
  const path = url.pathname.replace('/api/v1/ai-chat/', '')
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>
  fake.calls.push({ path, body })
  await fake.gates[path]
  const failure = fake.failures[path]
  if (failure) {
    delete fake.failures[path]
    return send(res, failure.status, { code: failure.code, message: failure.message, data: null })
  }
  try {
    const data = fake.handle(path, body)
    if (fake.lose.delete(path)) return res.socket?.destroy()
    send(res, 200, { code: 2000, message: 'success', data })
  } catch (error) {
    const f = error as Failure
    send(res, f.status ?? 500, { code: f.code ?? 50000000, message: f.message, data: null })
  }
}

beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
})
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
)
beforeEach(() => {
  resetChat()
  fake.reset()
  resetCore()
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  $token.set('tok')
})

const list = (topicId: string) => $messages.get()[topicId]?.list ?? []
const view = (topicId: string) => list(topicId).map((m) => `${m.role}:${m.content}:${m.status}`)
const reply = (topicId: string) => list(topicId).at(-1)!

async function freshTopic() {
  const topic = fake.addTopic()
  await selectTopic(topic.topicId)
  return topic.topicId
}

describe('sendMessage', () => {
  it('shows the question at once, sends a client UUID, streams deltas into the reply and ends complete', async () => {
    const t = await freshTopic()
    const release = fake.gate('topic/message/send')
    const sending = sendMessage(t, '  你好  ')
    expect(view(t)).toEqual(['user:你好:complete'])
    expect(list(t)[0]!.messageId).toMatch(/^local-/)
    expect(Object.values($streaming.get()).map((s) => s.status)).toEqual(['submitted'])
    await vi.waitFor(() => expect(fake.to('topic/message/send')).toHaveLength(1))
    release()
    const sent = await sending
    const body = fake.to('topic/message/send')[0]!.body
    expect(body).toEqual({ topicId: t, content: '你好', requestId: sent.requestId })
    expect(sent.requestId).toMatch(UUID)
    expect(list(t).map((m) => m.messageId)).toEqual([sent.messageId, sent.replyId])
    expect(view(t)).toEqual(['user:你好:complete', 'assistant::streaming'])

    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    fake.emit(sent.requestId, 'delta', { thinking: '先想一想' })
    fake.emit(sent.requestId, 'delta', { content: '你' })
    fake.emit(sent.requestId, 'delta', { content: '好！' })
    await vi.waitFor(() => expect(reply(t).content).toBe('你好！'))
    expect(reply(t).thinking).toBe('先想一想')
    expect($streaming.get()[sent.requestId]?.status).toBe('streaming')
    const usage = { promptTokens: 3, completionTokens: 2, charged: 5 }
    fake.emit(sent.requestId, 'done', { status: 'complete', usage })
    expect(await sent.finished).toBe('ready')
    expect(reply(t)).toMatchObject({ content: '你好！', status: 'complete', usage })
    expect($streaming.get()[sent.requestId]?.status).toBe('ready')
  })

  it('shows an in-band error on the reply, and the request ends in error', async () => {
    const t = await freshTopic()
    const sent = await sendMessage(t, '写首诗')
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    fake.emit(sent.requestId, 'delta', { content: '床前' })
    fake.emit(sent.requestId, 'error', { status: 'timeout', code: 50400001, message: '模型响应超时' })
    expect(await sent.finished).toBe('error')
    expect(reply(t)).toMatchObject({ content: '床前', status: 'timeout', errorCode: 50400001, errorMessage: '模型响应超时' })
    expect($streaming.get()[sent.requestId]).toMatchObject({ status: 'error', error: { code: 50400001, message: '模型响应超时' } })
  })

  it('takes the question back and rejects when the server refuses (40200001, no allowance)', async () => {
    const t = await freshTopic()
    fake.failures['topic/message/send'] = { code: 40200001, message: '对话额度不足，请充值', status: 402 }
    const error = await sendMessage(t, '你好').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ code: 40200001, message: '对话额度不足，请充值' })
    expect(list(t)).toEqual([])
    expect(Object.values($streaming.get())).toMatchObject([{ status: 'error', error: { code: 40200001 } }])
  })

  it('retries a send whose answer was lost with the same requestId, so the question is saved once', async () => {
    const t = await freshTopic()
    fake.lose.add('topic/message/send')
    const sent = await sendMessage(t, '还在吗')
    const bodies = fake.to('topic/message/send').map((c) => c.body.requestId)
    expect(bodies).toEqual([sent.requestId, sent.requestId])
    expect(fake.messages.filter((m) => m.role === 'user')).toHaveLength(1)
    expect(list(t).map((m) => m.messageId)).toEqual([sent.messageId, sent.replyId])
  })

  it('refuses empty and overlong questions without calling the server', async () => {
    const t = await freshTopic()
    await expect(sendMessage(t, ' \n ')).rejects.toMatchObject({ code: 40000001 })
    await expect(sendMessage(t, 'x'.repeat(20001))).rejects.toMatchObject({ code: 40000001 })
    expect(fake.to('topic/message/send')).toEqual([])
  })
})

describe('stopMessage', () => {
  it('returns to ready at once, shows the reply interrupted, ignores what still arrives, then takes the server copy', async () => {
    const t = await freshTopic()
    const sent = await sendMessage(t, '讲个长故事')
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    fake.emit(sent.requestId, 'delta', { content: '从前' })
    await vi.waitFor(() => expect(reply(t).content).toBe('从前'))
    const release = fake.gate('topic/message/stop')
    const stopping = stopMessage(sent.requestId)
    expect($streaming.get()[sent.requestId]?.status).toBe('ready')
    expect(reply(t).status).toBe('interrput')
    expect(await sent.finished).toBe('ready')
    fake.emit(sent.requestId, 'delta', { content: '有座山' }) // already on its way when the stop was asked
    await new Promise((r) => setTimeout(r, 50))
    expect(reply(t).content).toBe('从前')
    release()
    await stopping
    expect(fake.to('topic/message/stop')[0]!.body).toEqual({ requestId: sent.requestId })
    expect(reply(t)).toMatchObject({ content: '从前有座山', status: 'interrput' })
  })

  it('stops a request the server has not accepted yet as soon as it names the reply', async () => {
    const t = await freshTopic()
    const release = fake.gate('topic/message/send')
    const sending = sendMessage(t, '算了')
    const [requestId] = Object.keys($streaming.get())
    await stopMessage(requestId!)
    expect($streaming.get()[requestId!]?.status).toBe('ready')
    release()
    const sent = await sending
    await vi.waitFor(() => expect(reply(t).status).toBe('interrput'))
    expect(fake.to('topic/message/stop')[0]!.body).toEqual({ requestId: sent.requestId })
    expect(fake.subscriptions(sent.requestId)).toEqual([])
  })
})

describe('regenerate', () => {
  it('replaces the last reply in place and streams the new one', async () => {
    const t = await freshTopic()
    const first = await sendMessage(t, '起个名字')
    await vi.waitFor(() => expect(fake.subscriptions(first.requestId)).toHaveLength(1))
    fake.emit(first.requestId, 'delta', { content: '小明' })
    fake.emit(first.requestId, 'done', { status: 'complete' })
    await first.finished
    const again = await regenerate(first.replyId)
    expect(again.replyId).not.toBe(first.replyId)
    expect(fake.to('topic/message/regenerate')[0]!.body).toEqual({ replyId: first.replyId })
    expect(list(t).map((m) => m.messageId)).toEqual([first.messageId, again.replyId])
    expect(view(t)).toEqual(['user:起个名字:complete', 'assistant::streaming'])
    await vi.waitFor(() => expect(fake.subscriptions(again.requestId)).toHaveLength(1))
    fake.emit(again.requestId, 'delta', { content: '灵犀' })
    fake.emit(again.requestId, 'done', { status: 'complete' })
    expect(await again.finished).toBe('ready')
    expect(view(t)).toEqual(['user:起个名字:complete', 'assistant:灵犀:complete'])
  })

  it('ignores the old stream when regenerating a reply that is still arriving', async () => {
    const t = await freshTopic()
    const first = await sendMessage(t, '起个名字')
    await vi.waitFor(() => expect(fake.subscriptions(first.requestId)).toHaveLength(1))
    fake.emit(first.requestId, 'delta', { content: '旧的' })
    await vi.waitFor(() => expect(reply(t).content).toBe('旧的'))
    const again = await regenerate(first.replyId)
    fake.emit(first.requestId, 'delta', { content: '还在写' }) // the old stream goes on upstream
    await vi.waitFor(() => expect(fake.subscriptions(again.requestId)).toHaveLength(1))
    fake.emit(again.requestId, 'delta', { content: '新的' })
    fake.emit(again.requestId, 'done', { status: 'complete' })
    await again.finished
    expect(view(t)).toEqual(['user:起个名字:complete', 'assistant:新的:complete'])
    expect($streaming.get()[first.requestId]).toBeUndefined()
  })

  it('puts the old reply back when the server refuses', async () => {
    const t = fake.addTopic().topicId
    fake.addMessage(t, { content: '问' })
    const old = fake.addMessage(t, { role: 'assistant', content: '答', status: 'error', errorMessage: '失败' })
    await selectTopic(t)
    fake.failures['topic/message/regenerate'] = { code: 40200001, message: '对话额度不足', status: 402 }
    await expect(regenerate(old.messageId)).rejects.toMatchObject({ code: 40200001 })
    expect(reply(t)).toMatchObject({ messageId: old.messageId, content: '答', status: 'error' })
    expect(Object.values($streaming.get())).toEqual([])
  })
})

describe('resuming after a reload', () => {
  function seedStreaming() {
    const t = fake.addTopic().topicId
    fake.addMessage(t, { content: '介绍一下你自己' })
    const saved = fake.addMessage(t, { role: 'assistant', status: 'streaming', requestId: 'req-live' })
    fake.openStream('req-live', saved.messageId)
    for (const piece of ['你', '好，', '我']) fake.emit('req-live', 'delta', { content: piece })
    return { t, saved }
  }

  it('replays the stream from its start in place of the saved text: the answer continues without duplication', async () => {
    const { t } = seedStreaming()
    await selectTopic(t)
    await vi.waitFor(() => expect(fake.subscriptions('req-live')).toHaveLength(1))
    expect(fake.subscriptions('req-live')[0]!.lastEventId).toBeUndefined()
    await vi.waitFor(() => expect(reply(t).content).toBe('你好，我'))
    fake.emit('req-live', 'delta', { content: '是灵犀' })
    await vi.waitFor(() => expect(reply(t).content).toBe('你好，我是灵犀'))
    resumeStreams(t) // again: already followed, no second subscription
    fake.emit('req-live', 'done', { status: 'complete' })
    await vi.waitFor(() => expect(reply(t).status).toBe('complete'))
    expect(reply(t).content).toBe('你好，我是灵犀')
    expect(fake.subscriptions('req-live')).toHaveLength(1)
  })

  it('keeps the saved text on screen until the replay arrives', async () => {
    const { t } = seedStreaming()
    await loadMessages(t)
    // loaded with the server's partial copy, subscription under way
    expect(reply(t)).toMatchObject({ content: '你好，我', status: 'streaming' })
    await vi.waitFor(() => expect(fake.subscriptions('req-live')).toHaveLength(1))
    fake.emit('req-live', 'done', { status: 'complete' })
    await vi.waitFor(() => expect(reply(t).status).toBe('complete'))
    expect(reply(t).content).toBe('你好，我')
  })

  it('takes the saved copy when the stream is gone', async () => {
    const t = fake.addTopic().topicId
    fake.addMessage(t, { content: '问' })
    const saved = fake.addMessage(t, { role: 'assistant', status: 'streaming', requestId: 'req-gone', content: '半' })
    await selectTopic(t)
    saved.status = 'complete'
    saved.content = '半句话说完了'
    await vi.waitFor(() => expect(reply(t)).toMatchObject({ content: '半句话说完了', status: 'complete' }))
  })

  it('reconnects with Last-Event-ID after a network drop and appends only what it missed', async () => {
    const t = await freshTopic()
    const sent = await sendMessage(t, '数到三')
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    fake.emit(sent.requestId, 'delta', { content: '一' })
    await vi.waitFor(() => expect(reply(t).content).toBe('一'))
    fake.drop(sent.requestId)
    fake.emit(sent.requestId, 'delta', { content: '二' })
    fake.emit(sent.requestId, 'delta', { content: '三' })
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(2), { timeout: 5000 })
    expect(fake.subscriptions(sent.requestId)[1]!.lastEventId).toBe('1')
    fake.emit(sent.requestId, 'done', { status: 'complete' })
    await sent.finished
    expect(reply(t)).toMatchObject({ content: '一二三', status: 'complete' })
  })

  it('takes the saved copy when a reconnect finds the events expired (only the final event comes)', async () => {
    const t = await freshTopic()
    const sent = await sendMessage(t, '数到三')
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    fake.emit(sent.requestId, 'delta', { content: '一' })
    await vi.waitFor(() => expect(reply(t).content).toBe('一'))
    fake.drop(sent.requestId)
    fake.emit(sent.requestId, 'delta', { content: '二三' })
    fake.emit(sent.requestId, 'done', { status: 'complete' })
    fake.expired = true
    await sent.finished
    expect(fake.subscriptions(sent.requestId)[1]?.lastEventId).toBe('1')
    expect(reply(t)).toMatchObject({ content: '一二三', status: 'complete' })
  })

  it('never applies an event twice, even from a server that replays everything on reconnect', async () => {
    fake.replayAll = true
    const t = await freshTopic()
    const sent = await sendMessage(t, '数到二')
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    fake.emit(sent.requestId, 'delta', { content: '一' })
    await vi.waitFor(() => expect(reply(t).content).toBe('一'))
    fake.drop(sent.requestId)
    fake.emit(sent.requestId, 'delta', { content: '二' })
    fake.emit(sent.requestId, 'done', { status: 'complete' })
    await sent.finished
    expect(reply(t)).toMatchObject({ content: '一二', status: 'complete' })
  })
})

describe('stale answers', () => {
  it('a send answered after the topic was cleared adds nothing and follows nothing', async () => {
    const t = await freshTopic()
    const release = fake.gate('topic/message/send')
    const sending = sendMessage(t, '你好')
    await vi.waitFor(() => expect(fake.to('topic/message/send')).toHaveLength(1))
    await clearTopic(t)
    release()
    await sending
    await new Promise((r) => setTimeout(r, 50))
    expect(list(t)).toEqual([])
    expect(fake.calls.filter((c) => c.path.startsWith('sse/'))).toEqual([])
  })

  it('a stream of a cleared topic or of a deleted reply no longer writes', async () => {
    const t = await freshTopic()
    const a = await sendMessage(t, '一')
    await vi.waitFor(() => expect(fake.subscriptions(a.requestId)).toHaveLength(1))
    await deleteMessage(a.replyId)
    fake.emit(a.requestId, 'delta', { content: '幽灵' })
    const b = await sendMessage(t, '二')
    await vi.waitFor(() => expect(fake.subscriptions(b.requestId)).toHaveLength(1))
    await clearTopic(t)
    fake.emit(b.requestId, 'delta', { content: '幽灵' })
    await new Promise((r) => setTimeout(r, 50))
    expect(list(t)).toEqual([])
    expect($streaming.get()).toEqual({})
  })

  it('a logout forgets every conversation, and what arrives afterwards is dropped', async () => {
    await startChat()
    const t = await freshTopic()
    const sent = await sendMessage(t, '你好')
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    $token.set(null)
    expect($topics.get()).toBeNull()
    expect($messages.get()).toEqual({})
    expect($streaming.get()).toEqual({})
    fake.emit(sent.requestId, 'delta', { content: '迟到' })
    await new Promise((r) => setTimeout(r, 50))
    expect($messages.get()).toEqual({})
  })

  it('an older page answered after a clear is dropped', async () => {
    const t = fake.addTopic().topicId
    for (let i = 0; i < 25; i++) fake.addMessage(t, { content: `m${i}` })
    await selectTopic(t)
    const release = fake.gate('topic/messages')
    const older = loadMessages(t, { older: true })
    await vi.waitFor(() => expect(fake.to('topic/messages')).toHaveLength(2))
    const clearing = clearTopic(t)
    release()
    await Promise.all([older, clearing])
    expect(list(t)).toEqual([])
  })
})

describe('loadMessages', () => {
  it('pages newest first into one oldest-first list, and knows when the start is reached', async () => {
    const t = fake.addTopic().topicId
    for (let i = 0; i < 45; i++) fake.addMessage(t, { content: `m${i}` })
    await selectTopic(t)
    expect(list(t).map((m) => m.content)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i + 25}`))
    expect($messages.get()[t]).toMatchObject({ hasMore: true, loaded: true, loading: false })
    await loadMessages(t, { older: true })
    await loadMessages(t, { older: true })
    await loadMessages(t, { older: true }) // nothing more: no call
    expect(list(t).map((m) => m.content)).toEqual(Array.from({ length: 45 }, (_, i) => `m${i}`))
    expect($messages.get()[t]?.hasMore).toBe(false)
    expect(fake.to('topic/messages').map((c) => [c.body.pageNum, c.body.pageSize])).toEqual([
      [1, 20],
      [2, 20],
      [3, 20],
    ])
  })

  it('leaves no gap when messages were deleted or sent between pages', async () => {
    const t = fake.addTopic().topicId
    for (let i = 0; i < 45; i++) fake.addMessage(t, { content: `m${i}` })
    await selectTopic(t)
    await deleteMessage(list(t)[3]!.messageId)
    const sent = await sendMessage(t, '新问题')
    fake.emit(sent.requestId, 'done', { status: 'complete' })
    await sent.finished
    while ($messages.get()[t]?.hasMore) await loadMessages(t, { older: true })
    expect(list(t).map((m) => m.messageId)).toEqual(fake.messages.filter((m) => m.topicId === t).map((m) => m.messageId))
  })
})

describe('topics', () => {
  it('startChat loads the models and the topics and opens the newest topic', async () => {
    const older = fake.addTopic({ name: '旧话题' })
    const newer = fake.addTopic({ name: '新话题' })
    fake.addMessage(newer.topicId, { content: '在吗' })
    await startChat()
    expect($chatConfig.get()?.models.map((m) => m.id)).toEqual(['lingxi-demo'])
    expect($topics.get()?.map((t) => t.topicId)).toEqual([newer.topicId, older.topicId])
    expect($activeTopicId.get()).toBe(newer.topicId)
    expect(view(newer.topicId)).toEqual(['user:在吗:complete'])
  })

  it('a topic created while startChat is still loading stays the active one', async () => {
    // The first message sent right after login: the topic list has answered (empty), the models
    // have not, and the send creates a topic. startChat must not then reset the view to no topic.
    $chatConfig.set(null)
    const release = fake.gate('config')
    const started = startChat()
    await vi.waitFor(() => expect($topics.get()).toEqual([]))
    const created = await createTopic()
    expect($activeTopicId.get()).toBe(created.topicId)
    release()
    await started
    expect($activeTopicId.get()).toBe(created.topicId)
    expect($topics.get()?.map((t) => t.topicId)).toEqual([created.topicId])
  })

  it('createTopic makes the new topic active; a role topic starts with its welcome message', async () => {
    const plain = await createTopic()
    expect($activeTopicId.get()).toBe(plain.topicId)
    expect($messages.get()[plain.topicId]).toMatchObject({ list: [], loaded: true })
    expect(fake.to('topic/messages')).toEqual([]) // a new topic without a role has nothing to load
    const role = await createTopic({ roleId: 'role-1' })
    expect(fake.to('topic/create').map((c) => c.body)).toEqual([{}, { roleId: 'role-1' }])
    expect($activeTopicId.get()).toBe(role.topicId)
    expect(view(role.topicId)).toEqual(['assistant:你好，我是翻译官。:complete'])
  })

  it('pins, renames, saves config and deletes, keeping the list ordered', async () => {
    const a = fake.addTopic({ name: 'a' })
    const b = fake.addTopic({ name: 'b' })
    await startChat()
    expect($topics.get()?.map((t) => t.name)).toEqual(['b', 'a'])
    await togglePin(a.topicId)
    expect($topics.get()?.map((t) => [t.name, t.topFlag])).toEqual([
      ['a', 1],
      ['b', 0],
    ])
    await renameTopic(b.topicId, '  周末计划 ')
    expect(fake.to('topic/name/edit')[0]!.body).toEqual({ topicId: b.topicId, name: '周末计划' })
    await expect(renameTopic(b.topicId, '   ')).rejects.toMatchObject({ code: 40000001 })
    await expect(renameTopic(b.topicId, 'x'.repeat(51))).rejects.toMatchObject({ code: 40000001 })
    expect(fake.to('topic/name/edit')).toHaveLength(1)
    await toggleContext(b.topicId)
    expect($topics.get()?.find((t) => t.topicId === b.topicId)?.contextEnabled).toBe(0)
    await selectTopic(b.topicId)
    await deleteTopic(b.topicId)
    expect($topics.get()?.map((t) => t.name)).toEqual(['a'])
    expect($activeTopicId.get()).toBe(a.topicId)
    expect($messages.get()[b.topicId]).toBeUndefined()
  })
})
