// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { ApiError } from '../../core/api'
import { $token } from '../../core/stores'
import { setUpFakeChat, UUID, view } from './fake-chat.test-helper'
import { clearTopic, deleteMessage, regenerate } from './message-actions'
import { loadMessages, resumeStreams, selectTopic, sendMessage, stopMessage } from './replies'
import { $messages, $streaming, $topics } from './state'
import { startChat } from './topics'

// The chat's messages and the replies streaming into them (replies.ts), against a loopback fake of
// the chat endpoints that keeps each stream's events, as the server does.

const fake = setUpFakeChat()

const list = (topicId: string) => $messages.get()[topicId]?.list ?? []
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

  it('replaces what was shown with the notice when content safety stops the reply (moderated, then 42200001)', async () => {
    const t = await freshTopic()
    const sent = await sendMessage(t, '讲个故事')
    await vi.waitFor(() => expect(fake.subscriptions(sent.requestId)).toHaveLength(1))
    fake.emit(sent.requestId, 'delta', { content: '不该出现的内容' })
    fake.emit(sent.requestId, 'moderated', { content: '该回复包含违规信息，已停止显示。' })
    fake.emit(sent.requestId, 'error', { status: 'error', code: 42200001, message: '回复包含违规信息' })
    expect(await sent.finished).toBe('error')
    expect(reply(t)).toMatchObject({ content: '该回复包含违规信息，已停止显示。', status: 'error', errorCode: 42200001 })
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
      [3, 20]
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
