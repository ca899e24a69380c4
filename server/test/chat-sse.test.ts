import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatMessages } from '../src/db/schema.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { CHAT, chatHelpers, fakeEnv, parseFrames, readAll, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'
import { createHarness } from './helpers/harness.js'

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(async () => {
  await fake.close()
})

const ctx = useHarness(() => ({ env: fakeEnv(fake) }))
const chat = chatHelpers(ctx)

const CHUNKS = ['一', '二', '三', '四', '五']
const expectedFrames = (replyId: string) =>
  [
    ...CHUNKS.map((text, i) => `id: ${i + 1}\nevent: delta\ndata: {"content":"${text}"}\n\n`),
    `id: 6\nevent: done\ndata: {"status":"complete","usage":{"promptTokens":7,"completionTokens":5,"charged":12},"messageId":"${replyId}"}\n\n`
  ].join('')

async function started(behaviour: Parameters<FakeOpenAi['script']>[0] = { kind: 'stream', chunks: CHUNKS, usage: { prompt_tokens: 7, completion_tokens: 5 } }) {
  fake.script(behaviour)
  const { token, accountId } = await chat.user()
  const topic = await chat.topic(token, { model: 'fake-gpt' })
  const sent = await chat.send(token, topic.topicId, '数到五')
  return { token, accountId, topicId: topic.topicId, ...sent.body.data }
}

describe('reply streams', () => {
  it('a late subscriber gets every event, 1..N, in exact frames, with the stream headers', async () => {
    const { token, requestId, replyId } = await started()
    await ctx.h.chat.idle()
    const res = await chat.subscribe(token, requestId, { 'Accept-Encoding': 'gzip, deflate' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    expect(res.headers.get('x-accel-buffering')).toBe('no')
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(await readAll(res)).toBe(expectedFrames(replyId))
  })

  it('Last-Event-ID 3 gets 4..N', async () => {
    const { token, requestId, replyId } = await started()
    await ctx.h.chat.idle()
    const text = await readAll(await chat.subscribe(token, requestId, { 'Last-Event-ID': '3' }))
    expect(text).toBe(expectedFrames(replyId).split('\n\n').slice(3).join('\n\n'))
    // After the final event there is nothing left to send: the stream just ends.
    expect(await readAll(await chat.subscribe(token, requestId, { 'Last-Event-ID': '6' }))).toBe('')
  })

  it('a page refreshed mid-answer continues the same answer, live', async () => {
    const { token, requestId, replyId } = await started({ kind: 'stream', chunks: CHUNKS, usage: { prompt_tokens: 7, completion_tokens: 5 }, delayMs: 60 })
    // The first page reads two events and goes away.
    const first = await readAll(await chat.subscribe(token, requestId), (text) => text.split('\n\n').length > 2)
    expect(parseFrames(first).map((f) => f.id)).toEqual(['1', '2'])
    expect(ctx.h.chat.stats().generations).toBe(1)
    // The refreshed page subscribes from the start and sees the whole answer, ending with done.
    const again = await readAll(await chat.subscribe(token, requestId))
    expect(again).toBe(expectedFrames(replyId))
    // A reconnect after event 2 gets exactly the rest.
    const rest = await readAll(await chat.subscribe(token, requestId, { 'Last-Event-ID': '2' }))
    expect(rest).toBe(expectedFrames(replyId).split('\n\n').slice(2).join('\n\n'))
  })

  it('sends comment heartbeats while the reply is quiet', async () => {
    await ctx.h.close()
    ctx.h = createHarness(ctx.db, { env: fakeEnv(fake), chat: { heartbeatMs: 40 } })
    const { token, requestId } = await started({ kind: 'stream', chunks: ['慢'], delayMs: 150 })
    const text = await readAll(await chat.subscribe(token, requestId))
    expect(text.startsWith(': ping\n\n')).toBe(true)
    expect(text).toContain('id: 1\nevent: delta\ndata: {"content":"慢"}\n\n')
    expect(text.endsWith('\n\n')).toBe(true)
  })

  it("answers the 404 envelope, not a stream, for an unknown or another account's requestId", async () => {
    const { requestId } = await started()
    const other = await chat.user('13900139000')
    for (const id of [requestId, randomUUID(), 'not-a-uuid']) {
      const res = await chat.subscribe(other.token, id)
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toContain('application/json')
      expect(await res.json()).toEqual({ code: 40400001, message: '请求不存在或已删除', data: null })
    }
    const anonymous = await ctx.h.app.request(`${CHAT}/sse/subscribe/${requestId}`)
    expect(anonymous.status).toBe(401)
    // Tokens never go in URLs: a ?token= parameter is not a login.
    expect((await ctx.h.app.request(`${CHAT}/sse/subscribe/${requestId}?token=${other.token}`)).status).toBe(401)
    expect(((await anonymous.json()) as { code: number }).code).toBe(50011004)
  })

  it('a reply still generating here is followed without reading its row, and stays 404 to another account', async () => {
    const { token, requestId, replyId } = await started({ kind: 'stream', chunks: CHUNKS, usage: { prompt_tokens: 7, completion_tokens: 5 }, delayMs: 60 })
    expect(ctx.h.chat.stats().generations).toBe(1)
    const other = await chat.user('13900139001')
    const refused = await chat.subscribe(other.token, requestId)
    expect(refused.status).toBe(404)
    expect(await refused.json()).toEqual({ code: 40400001, message: '请求不存在或已删除', data: null })
    // The owner's stream opens before the first delta may exist and still gets the whole answer.
    expect(await readAll(await chat.subscribe(token, requestId))).toBe(expectedFrames(replyId))
  })

  it('frees a subscriber that goes away (in-process and over a real socket)', async () => {
    const { token, requestId } = await started({ kind: 'stream', chunks: CHUNKS, hangAfter: 1 })
    const text = await readAll(await chat.subscribe(token, requestId), (t) => t.includes('\n\n'))
    expect(text).toContain('id: 1')
    await waitUntil(() => ctx.h.stats().subscribers === 0)
    expect(ctx.h.stats()).toMatchObject({ subscribers: 0, followers: 0 })

    const server = createAdaptorServer({ fetch: ctx.h.app.fetch }) as Server
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const controllers = Array.from({ length: 5 }, () => new AbortController())
      const streams = await Promise.all(
        controllers.map((controller) =>
          fetch(`http://127.0.0.1:${port}${CHAT}/sse/subscribe/${requestId}`, { headers: { Authorization: `Bearer ${token}` }, signal: controller.signal })
        )
      )
      for (const res of streams) {
        const reader = res.body!.getReader()
        await reader.read()
      }
      const account = await fetch(`http://127.0.0.1:${port}${CHAT}/sse/subscribe`, {
        headers: { Authorization: `Bearer ${token}` },
        signal: controllers[0]!.signal
      })
      expect(account.status).toBe(200)
      await waitUntil(() => ctx.h.stats().subscribers === 6 && ctx.h.chat.stats().accountListeners === 1)
      expect(ctx.h.chat.stats().followers).toBe(5)
      for (const controller of controllers) controller.abort()
      await waitUntil(() => ctx.h.stats().subscribers === 0)
      expect(ctx.h.stats()).toMatchObject({ subscribers: 0, followers: 0, accountListeners: 0 })
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('the account channel carries every stream event of the account, tagged with requestId, numbered on its own', async () => {
    fake.script({ kind: 'stream', chunks: ['甲', '乙'], usage: { prompt_tokens: 1, completion_tokens: 2 }, delayMs: 20 })
    const { token } = await chat.user()
    const other = await chat.user('13900139000')
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const channel = await ctx.h.app.request(`${CHAT}/sse/subscribe`, { headers: { Authorization: `Bearer ${token}` } })
    const otherChannel = await ctx.h.app.request(`${CHAT}/sse/subscribe`, { headers: { Authorization: `Bearer ${other.token}` } })
    expect(channel.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    await waitUntil(() => ctx.h.chat.stats().accountListeners === 2)
    const reading = readAll(channel, (text) => text.includes('event: done'))
    const { requestId, replyId } = (await chat.send(token, topic.topicId, '你好')).body.data
    expect(await reading).toBe(
      [
        `id: 1\nevent: delta\ndata: {"content":"甲","requestId":"${requestId}"}\n\n`,
        `id: 2\nevent: delta\ndata: {"content":"乙","requestId":"${requestId}"}\n\n`,
        `id: 3\nevent: done\ndata: {"status":"complete","usage":{"promptTokens":1,"completionTokens":2,"charged":3},"messageId":"${replyId}","requestId":"${requestId}"}\n\n`
      ].join('')
    )
    const otherReader = otherChannel.body!.getReader()
    const nothing = await Promise.race([otherReader.read().then(() => 'data'), new Promise((resolve) => setTimeout(() => resolve('nothing'), 100))])
    expect(nothing).toBe('nothing')
    await otherReader.cancel()
  })

  it('at start, replies left streaming are marked interrput; their stream ends from the saved row', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    const at = new Date()
    const requestId = randomUUID()
    const replyId = randomUUID()
    await ctx.db.db.insert(chatMessages).values({
      id: replyId,
      accountId,
      topicId: topic.topicId,
      role: 'assistant',
      content: '说到一半',
      status: 'streaming',
      requestId,
      model: 'lingxi-demo',
      createdAt: at,
      updatedAt: at
    })
    expect(await ctx.h.chat.sweep()).toBe(1)
    expect(await chat.reply(replyId)).toMatchObject({ status: 'interrput', content: '说到一半', charged: 0 })
    expect(await readAll(await chat.subscribe(token, requestId))).toBe(
      `id: 1\nevent: delta\ndata: {"content":"说到一半"}\n\nid: 2\nevent: stopped\ndata: {"status":"interrput","messageId":"${replyId}"}\n\n`
    )
    expect(await readAll(await chat.subscribe(token, requestId, { 'Last-Event-ID': '9' }))).toBe(
      `id: 10\nevent: stopped\ndata: {"status":"interrput","messageId":"${replyId}"}\n\n`
    )
    expect(await ctx.h.chat.sweep()).toBe(0)
  })
})
