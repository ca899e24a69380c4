import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { composeApp } from '../src/app.js'
import { createSessionStreams, type SessionStreams } from '../src/auth/session-streams.js'
import { authenticate, revokeSession } from '../src/auth/sessions.js'
import { TOKEN_TTL_MS } from '../src/auth/tokens.js'
import { createChat } from '../src/replies/index.js'
import { accounts } from '../src/db/schema.js'
import { createMemoryBus, createRedisBus } from '../src/events/index.js'
import { createConsoleSmsProvider } from '../src/sms/console-provider.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { CHAT, chatHelpers, fakeEnv, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'
import { createHarness } from './helpers/harness.js'

// The reply lookup that runs between a stream's authentication and its registration: the race
// test holds streams there while their session is revoked. A reply generated on this node needs
// no lookup (modules/chat/stream-route.ts), so while the gate is set the runtime says it generates
// none here, as for a reply generated on another node, which is read from the database.
const gate = vi.hoisted(() => ({ hold: undefined as Promise<void> | undefined, waiting: 0 }))
vi.mock('../src/replies/runtime.js', async (importOriginal) => {
  const runtime = await importOriginal<typeof import('../src/replies/runtime.js')>()
  return {
    ...runtime,
    createChatRuntime(...args: Parameters<typeof runtime.createChatRuntime>) {
      const created = runtime.createChatRuntime(...args)
      const generating = created.generating.bind(created)
      created.generating = (accountId, requestId) => (gate.hold ? undefined : generating(accountId, requestId))
      return created
    }
  }
})
vi.mock('../src/modules/chat/repo.js', async (importOriginal) => {
  const repo = await importOriginal<typeof import('../src/modules/chat/repo.js')>()
  return {
    ...repo,
    async findReplyByRequest(...args: Parameters<typeof repo.findReplyByRequest>) {
      const hold = gate.hold
      if (hold) {
        gate.waiting++
        await hold
      }
      return repo.findReplyByRequest(...args)
    }
  }
})

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(async () => {
  await fake.close()
})

const ctx = useHarness(() => ({ env: fakeEnv(fake) }))
const chat = chatHelpers(ctx)

/** A question whose answer sends one delta and then hangs until stopped: its stream stays open. */
const SLOW = '慢慢说'
beforeEach(() => {
  gate.hold = undefined
  gate.waiting = 0
  fake.script((request) =>
    request.body.messages.at(-1)?.content === SLOW
      ? { kind: 'stream', chunks: ['一', '二'], hangAfter: 1 }
      : { kind: 'stream', chunks: ['下', '一'], usage: { prompt_tokens: 1, completion_tokens: 2 } }
  )
})

const OLD = '13800138000'
const NEW = '13900139000'
const STRANGER = '13700137000'
/** Revoked streams must end this soon (they used to stay open until the client left). */
const PROMPTLY = 2000

type Fetch = (path: string, init?: RequestInit) => Response | Promise<Response>

/** Reads an event stream in the background: the text so far and whether the server ended it. */
function watch(res: Response) {
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const state = { text: '', ended: false }
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      state.text += decoder.decode(value, { stream: true })
    }
  })()
    .catch(() => {})
    .finally(() => (state.ended = true))
  return state
}

const replyStream = (token: string, requestId: string, on: Fetch = ctx.h.app.request) =>
  on(`${CHAT}/sse/subscribe/${requestId}`, { headers: { Authorization: `Bearer ${token}` } })
const accountChannel = (token: string, on: Fetch = ctx.h.app.request) => on(`${CHAT}/sse/subscribe`, { headers: { Authorization: `Bearer ${token}` } })

/** Two sessions of one account (two devices), and a reply of it that streams until stopped. */
async function twoDevices() {
  const a = await ctx.h.login(OLD)
  const b = await ctx.h.login(OLD)
  expect(b.accountId).toBe(a.accountId)
  const topic = await chat.topic(a.accessToken, { model: 'fake-gpt' })
  const sent = await chat.send(a.accessToken, topic.topicId, SLOW)
  expect(sent.body.code).toBe(2000)
  return { a: a.accessToken, b: b.accessToken, accountId: a.accountId, slow: sent.body.data.requestId }
}

/** The owner's next reply, sent with `token`; resolves its requestId once `channel` heard its end. */
async function nextReply(token: string, channel: { text: string }) {
  const topic = await chat.topic(token, { model: 'fake-gpt' })
  const sent = await chat.send(token, topic.topicId, '下一个')
  expect(sent.body.code).toBe(2000)
  const { requestId } = sent.body.data
  await waitUntil(() => channel.text.includes(`event: done\ndata: {"status":"complete"`) && channel.text.includes(`"requestId":"${requestId}"`))
  return requestId
}

async function changePhone(token: string) {
  const sent = await ctx.h.post('/api/v1/auth/modify-phone-sms-code', { enCode: '86', phone: NEW }, { token })
  expect(sent.body.code).toBe(2000)
  const res = await ctx.h.post<{ accessToken: string }>('/api/v1/auth/modify-phone', { enCode: '86', phone: NEW, code: ctx.h.lastCode(NEW) }, { token })
  expect(res.body.code).toBe(2000)
  return res.body.data.accessToken
}

describe('revoking a session closes its streams', () => {
  it('logout ends the reply stream and the account channel of its token at once; the next reply reaches only the other token', async () => {
    const { a, b, slow } = await twoDevices()
    const aReply = watch(await replyStream(a, slow))
    const aChannel = watch(await accountChannel(a))
    const bReply = watch(await replyStream(b, slow))
    const bChannel = watch(await accountChannel(b))
    await waitUntil(() => aReply.text.includes('event: delta') && bReply.text.includes('event: delta') && ctx.h.chat.stats().accountListeners === 2)

    expect((await ctx.h.post('/api/v1/auth/logout', {}, { token: a })).body.code).toBe(2000)
    await waitUntil(() => aReply.ended && aChannel.ended, PROMPTLY)
    // The stream just closes: no event is invented, so the reply's numbering stays intact.
    expect(aReply.text).not.toMatch(/event: (done|error|stopped)/)
    // What the client's reconnect then hears: the envelope that fires its unauthorized handling.
    const again = await replyStream(a, slow)
    expect(again.status).toBe(401)
    expect(((await again.json()) as { code: number }).code).toBe(50011006)

    const next = await nextReply(b, bChannel)
    expect(aChannel.text).not.toContain(next)
    // Token B's streams stay open: its reply stream still hears the slow reply's end.
    expect(bReply.ended).toBe(false)
    expect((await chat.post('topic/message/stop', { requestId: slow }, b)).body.code).toBe(2000)
    await waitUntil(() => bReply.ended)
    expect(bReply.text).toContain('event: stopped')
    expect(bChannel.ended).toBe(false)
  })

  it("modify-phone ends the streams of every old session of the account, not the new token's nor another account's", async () => {
    const { a, b, slow } = await twoDevices()
    const stranger = await ctx.h.login(STRANGER)
    const aChannel = watch(await accountChannel(a))
    const bReply = watch(await replyStream(b, slow))
    const bChannel = watch(await accountChannel(b))
    const strangerChannel = watch(await accountChannel(stranger.accessToken))
    await waitUntil(() => bReply.text.includes('event: delta') && ctx.h.chat.stats().accountListeners === 3)

    const fresh = await changePhone(a)
    await waitUntil(() => aChannel.ended && bReply.ended && bChannel.ended, PROMPTLY)
    expect(strangerChannel.ended).toBe(false)

    const freshChannel = watch(await accountChannel(fresh))
    const freshReply = watch(await replyStream(fresh, slow))
    await waitUntil(() => freshReply.text.includes('event: delta'))
    const next = await nextReply(fresh, freshChannel)
    for (const closed of [aChannel, bChannel]) expect(closed.text).not.toContain(next)
    expect(freshReply.ended).toBe(false)
    expect(strangerChannel.ended).toBe(false)
  })

  it('a stream opened while its session is being revoked is closed too', async () => {
    const { a, slow } = await twoDevices()
    let release!: () => void
    gate.hold = new Promise<void>((resolve) => (release = resolve))
    // Authenticated, then held before it registers…
    const opening = replyStream(a, slow)
    await waitUntil(() => gate.waiting === 1)
    // …while the logout commits and is announced…
    expect((await ctx.h.post('/api/v1/auth/logout', {}, { token: a })).body.code).toBe(2000)
    gate.hold = undefined
    release()
    // …so it opens (it was let in before the logout) and must then close by itself.
    const stream = watch(await opening)
    await waitUntil(() => stream.ended, PROMPTLY)
    expect(ctx.h.stats().subscribers).toBe(0)
  })

  it('a session that expires while its streams are open ends them at the next heartbeat', async () => {
    await ctx.h.close()
    ctx.h = createHarness(ctx.db, { env: fakeEnv(fake), chat: { heartbeatMs: 40 } })
    const { a, slow } = await twoDevices()
    ctx.h.clock.advance(TOKEN_TTL_MS - 5 * 60_000)
    const channel = watch(await accountChannel(a))
    const reply = watch(await replyStream(a, slow))
    await waitUntil(() => channel.text.includes(': ping') && reply.text.includes(': ping'))
    expect(channel.ended || reply.ended).toBe(false)
    ctx.h.clock.advance(5 * 60_000)
    await waitUntil(() => channel.ended && reply.ended, PROMPTLY)
    const again = await accountChannel(a)
    expect(((await again.json()) as { code: number }).code).toBe(50011005)
  })
})

/**
 * A second API node on the same database and event bus: with REDIS_URL, a bus connection of its
 * own under the harness's prefix (one deployment); in memory, the harness's bus (one process).
 */
function secondNode() {
  const h = ctx.h
  const bus = h.bus.prefix ? createRedisBus({ url: process.env.REDIS_URL!, prefix: h.bus.prefix }) : h.bus
  const node = createChat({ db: ctx.db.db, config: h.config, bus, logger: h.logger, now: h.clock.now })
  const { app, streams } = composeApp({
    chat: node,
    db: ctx.db.db,
    config: h.config,
    sms: createConsoleSmsProvider(() => {}),
    kv: h.kv,
    logger: h.logger,
    now: h.clock.now
  })
  return {
    request: app.request as Fetch,
    chat: node,
    async close() {
      await node.close()
      streams.closeAll()
      if (bus !== h.bus) await bus.close()
    }
  }
}

describe('revoking a session closes its streams on every node', () => {
  it('logout and modify-phone on one node end the streams opened on the other; other tokens keep theirs', async () => {
    const other = secondNode()
    try {
      const { a, b, slow } = await twoDevices()
      const aReply = watch(await replyStream(a, slow, other.request))
      const aChannel = watch(await accountChannel(a, other.request))
      const bChannel = watch(await accountChannel(b, other.request))
      await waitUntil(() => aReply.text.includes('event: delta') && other.chat.stats().accountListeners === 2)

      expect((await ctx.h.post('/api/v1/auth/logout', {}, { token: a })).body.code).toBe(2000)
      await waitUntil(() => aReply.ended && aChannel.ended, PROMPTLY)
      // The next reply runs on this node and reaches token B's channel on the other one only.
      const next = await nextReply(b, bChannel)
      expect(aChannel.text).not.toContain(next)
      expect(bChannel.ended).toBe(false)

      const fresh = await changePhone(b)
      await waitUntil(() => bChannel.ended, PROMPTLY)
      const freshChannel = watch(await accountChannel(fresh, other.request))
      await waitUntil(() => other.chat.stats().accountListeners === 1)
      const last = await nextReply(fresh, freshChannel)
      expect(bChannel.text).not.toContain(last)
      expect(freshChannel.ended).toBe(false)
    } finally {
      await other.close()
    }
  })
})

describe('a cached session is refused on the next request after its revocation, on every node', () => {
  it('logout, modify-phone and an announced account change reach the cache of this node and of the other', async () => {
    const other = secondNode()
    const info = (token: string, on: Fetch) => on('/api/v1/user/info', { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: '{}' })
    const code = async (res: Response | Promise<Response>) => ((await (await res).json()) as { code: number }).code
    try {
      const { a, b, accountId } = await twoDevices()
      // Both nodes read (and keep) both sessions.
      for (const on of [ctx.h.app.request as Fetch, other.request]) for (const token of [a, b]) expect(await code(info(token, on))).toBe(2000)
      expect(ctx.h.sessionCache.size()).toBe(2)

      // The node that made the change drops its entry before it answers; the other node hears of it
      // over the bus (Redis pub/sub when configured: a few milliseconds later), well inside the
      // cache's 5 s lifetime, so it is awaited there with a bound of PROMPTLY.
      const soonOn = (check: () => Promise<boolean>) => waitUntil(check, PROMPTLY)
      expect((await ctx.h.post('/api/v1/auth/logout', {}, { token: a })).body.code).toBe(2000)
      expect(await code(info(a, ctx.h.app.request))).toBe(50011006)
      await soonOn(async () => (await code(info(a, other.request))) === 50011006)
      expect(await code(info(b, other.request))).toBe(2000)

      const fresh = await changePhone(b)
      expect(await code(info(b, ctx.h.app.request))).toBe(50011006)
      await soonOn(async () => (await code(info(b, other.request))) === 50011006)
      expect(await code(info(fresh, other.request))).toBe(2000)

      // An account change announced by its maker (the CLI with REDIS_URL, or a route of the server).
      await ctx.db.db.update(accounts).set({ state: 0 }).where(eq(accounts.id, accountId))
      await ctx.h.accountChanged(accountId)
      const state = async (on: Fetch) => ((await (await info(fresh, on)).json()) as { data: { state: number } }).data.state
      expect(await state(ctx.h.app.request)).toBe(0)
      await soonOn(async () => (await state(other.request)) === 0)
    } finally {
      await other.close()
    }
  })
})

describe('session streams registry', () => {
  it('closes a stream whose session was revoked without an announcement (lost, or before it registered)', async () => {
    const { accessToken } = await ctx.h.login(OLD)
    const auth = await authenticate(ctx.db.db, `Bearer ${accessToken}`, ctx.h.clock.now())
    const registry = (checkMs: number) => createSessionStreams({ bus: createMemoryBus(), db: ctx.db.db, now: ctx.h.clock.now, logger: ctx.h.logger, checkMs })
    const open = (streams: SessionStreams) => {
      const stream = { closed: false, remove: () => {} }
      stream.remove = streams.add(auth, () => {
        stream.closed = true
        stream.remove()
      })
      return stream
    }
    const checking = registry(30)
    const early = open(checking)
    // Its session is valid: the check after registering and the periodic ones leave it open.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(early.closed).toBe(false)
    // Revoked behind the bus's back: the periodic check finds it.
    await revokeSession(ctx.db.db, auth.sessionId, 'logout', ctx.h.clock.now())
    await waitUntil(() => early.closed, PROMPTLY)
    expect(checking.size()).toBe(0)
    // Registered after the revocation (and its announcement): the check right after registering
    // finds it, long before a periodic one would.
    const slow = registry(60_000)
    const late = open(slow)
    await waitUntil(() => late.closed, PROMPTLY)
    expect(slow.size()).toBe(0)
    expect(ctx.h.logger.entries.filter((e) => e.level === 'error')).toEqual([])
  })
})
