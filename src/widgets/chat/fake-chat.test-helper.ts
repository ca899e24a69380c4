import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach } from 'vitest'
import { user } from '../../../tests/unit/helpers/fixtures'
import { resetCore } from '../../../tests/unit/helpers/reset'
import { configure } from '../../core/config'
import { $token } from '../../core/stores'
import { $messages, resetChat, type ChatMessage, type Topic } from './state'

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

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

export class FakeChat {
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
      ...patch
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
      ...patch
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
    // `moderated` (content safety's notice) replaces the text and is followed by `error`.
    const passing = event === 'delta' || event === 'moderated'
    if (reply && event === 'moderated') reply.content = (data.content as string) ?? ''
    if (reply && !passing) reply.status = data.status as ChatMessage['status']
    if (reply && event === 'done') reply.usage = data.usage as ChatMessage['usage']
    const entry = { id: stream.events.length + 1, event, data: { ...data, ...(event === 'delta' ? {} : { messageId: stream.replyId }) } }
    stream.events.push(entry)
    if (!passing) stream.ended = true
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

function send(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.end(JSON.stringify(body))
}

async function serve(fake: FakeChat, req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept, last-event-id, cache-control')
  if (req.method === 'OPTIONS') return send(res, 204, '')
  const url = new URL(req.url ?? '/', 'http://x')
  if (url.pathname === '/config/chatConfig.json') {
    await fake.gates.config
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

/** The fake on a loopback port (`server.address()`). */
export function serveFakeChat(fake: FakeChat): Server {
  return createServer((req, res) => void serve(fake, req, res))
}

/**
 * A fake on a loopback port for the tests of this file, the chat's stores and the page reset
 * before each, logged in as `tok`.
 */
export function setUpFakeChat(): FakeChat {
  const fake = new FakeChat()
  let server: Server
  beforeAll(async () => {
    server = serveFakeChat(fake)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  })
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  )
  beforeEach(() => {
    resetChat()
    fake.reset()
    resetCore()
    configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
    $token.set('tok')
  })
  return fake
}

/** A topic's messages as `role:content:status`. */
export const view = (topicId: string) => ($messages.get()[topicId]?.list ?? []).map((m) => `${m.role}:${m.content}:${m.status}`)
