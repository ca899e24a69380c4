import { createServer } from 'node:net'
import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { adminAudit, paintingTasks, upstreamChannels } from '../src/db/schema.js'
import { encryptKey, keyHint } from '../src/replies/channels-crypto.js'
import type { WireTask } from '../src/modules/painting/wire.js'
import { type FakeA1111, startFakeA1111 } from './fakes/a1111.js'
import { type FakeMidjourneyProxy, startFakeMidjourneyProxy } from './fakes/midjourney-proxy.js'
import { type PaintingHarness, usePaintingHarness } from './helpers/painting.js'

// Painting upstreams behind channels (kind midjourney / sd): failover before the upstream took the
// task, the task's channel for polls and actions, cool-down, keys never shown, one charge.
const MJ = '/api/v1/painting'
const OPERATOR = '13900000009'
const SECRET = Buffer.alloc(32, 9)
const KEY_A = 'mj-secret-AAAA-1111'
const KEY_B = 'mj-secret-BBBB-2222'

let a: FakeMidjourneyProxy
let b: FakeMidjourneyProxy
let sdA: FakeA1111
let sdB: FakeA1111
let closedUrl: string
beforeAll(async () => {
  a = await startFakeMidjourneyProxy({ secret: KEY_A })
  b = await startFakeMidjourneyProxy({ secret: KEY_B })
  sdA = await startFakeA1111({ auth: 'sd:aaaa' })
  sdB = await startFakeA1111({ auth: 'sd:bbbb' })
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  closedUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}`
  await new Promise<void>((resolve) => probe.close(() => resolve()))
})
afterAll(async () => {
  await Promise.all([a.close(), b.close(), sdA.close(), sdB.close()])
})
beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
  for (const f of [a, b]) {
    f.requests.length = 0
    f.nextSubmits.length = 0
  }
  for (const f of [sdA, sdB]) {
    f.requests.length = 0
    f.behaviour = { kind: 'ok' }
  }
})
afterEach(() => vi.unstubAllEnvs())

const ctx = usePaintingHarness(() => ({
  env: {
    MJ_PROXY_URL: a.url,
    MJ_API_SECRET: KEY_A,
    A1111_URL: sdA.url,
    A1111_AUTH: 'sd:aaaa',
    CHANNEL_SECRET_KEY: SECRET.toString('base64'),
    ADMIN_PHONES: OPERATOR,
    PAINTING_TIMEOUT_MS: '600000'
  },
  painting: { tuning: { pollStaleMs: 0 } }
}))

/** Stores a channel as the console would, and has the channel list read again. */
async function addChannel(h: PaintingHarness, kind: string, name: string, baseUrl: string, key: string, priority: number) {
  const at = new Date(h.clock.now())
  const [row] = await ctx.db.db
    .insert(upstreamChannels)
    .values({ kind, name, baseUrl, keys: [encryptKey(SECRET, key)], keyHints: [keyHint(key)], models: [], priority, createdAt: at, updatedAt: at })
    .returning()
  h.clock.advance(6000)
  return row!.id
}

const submits = (f: FakeMidjourneyProxy) => f.requests.filter((r) => r.path.startsWith('/mj/submit/')).length

async function imagine(token: string, prompt = 'a red fox in snow') {
  return ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt }, token)
}

describe('midjourney-proxy channels', () => {
  it.each([
    ['HTTP 500', () => a.nextSubmits.push('http-500'), false],
    ['a refused connection', () => {}, true]
  ])('the first channel fails with %s: the second takes the task, charged once; polls and actions go to it', async (_, cue, refused) => {
    const h = ctx.h
    const idA = await addChannel(h, 'midjourney', 'A', refused ? closedUrl : a.url, KEY_A, 10)
    const idB = await addChannel(h, 'midjourney', 'B', b.url, KEY_B, 0)
    cue()
    const { token, accountId } = await h.login()
    const start = await h.mjCount(accountId)
    const res = await imagine(token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    expect(res.body.data.status).toBe('SUBMITTED')
    expect(submits(a)).toBe(refused ? 0 : 1)
    expect(submits(b)).toBe(1)
    expect(b.requests[0]!.headers['mj-api-secret']).toBe(KEY_B)
    const row = await h.row(res.body.data.taskId)
    expect(row.channelId).toBe(idB)
    expect(await h.mjCount(accountId)).toBe(start - 1)

    // Polling asks B only.
    a.requests.length = 0
    b.succeed(b.last().id)
    await h.runtime.tick()
    expect(b.requests.some((r) => r.path === '/mj/task/list-by-condition')).toBe(true)
    expect(a.requests).toHaveLength(0)
    expect((await h.settled(token, res.body.data.taskId)).status).toBe('SUCCESS')

    // An action on it goes to B even though A comes first now (and A is healthy).
    if (refused) await ctx.db.db.update(upstreamChannels).set({ baseUrl: a.url }).where(eq(upstreamChannels.id, idA))
    h.clock.advance(61_000)
    const up = await h.post<WireTask>(`${MJ}/action`, { taskId: res.body.data.taskId, action: 'UPSCALE', index: 1 }, token)
    expect(up.body.code, JSON.stringify(up.body)).toBe(2000)
    expect(a.requests.filter((r) => r.path === '/mj/submit/change')).toHaveLength(0)
    expect(b.requests.filter((r) => r.path === '/mj/submit/change')).toHaveLength(1)
    expect((await h.row(up.body.data.taskId)).channelId).toBe(idB)
    expect(await h.mjCount(accountId)).toBe(start - 2)
  })

  it('no failover once the upstream answered for the task itself: a refusal (code 9) ends it, refunded once', async () => {
    const h = ctx.h
    await addChannel(h, 'midjourney', 'A', a.url, KEY_A, 10)
    await addChannel(h, 'midjourney', 'B', b.url, KEY_B, 0)
    a.nextSubmits.push('system-error')
    const { token, accountId } = await h.login()
    const start = await h.mjCount(accountId)
    const res = await imagine(token)
    expect(res.body.code).toBe(50200001)
    expect(res.body.message).toMatch(/次数已退回/)
    expect(submits(a)).toBe(1)
    expect(submits(b)).toBe(0)
    expect(await h.mjCount(accountId)).toBe(start)
    expect((await h.log(accountId)).filter((l) => l.amount > 0)).toHaveLength(1)
  })

  it('every channel failing: one refund, a Chinese error', async () => {
    const h = ctx.h
    await addChannel(h, 'midjourney', 'A', closedUrl, KEY_A, 10)
    await addChannel(h, 'midjourney', 'B', b.url, KEY_B, 0)
    b.nextSubmits.push('http-500')
    const { token, accountId } = await h.login()
    const start = await h.mjCount(accountId)
    const res = await imagine(token)
    expect(res.body.code).toBe(50200001)
    expect(res.body.message).toMatch(/绘画服务出错（HTTP 500）.*次数已退回/)
    expect(await h.mjCount(accountId)).toBe(start)
    expect((await h.log(accountId)).filter((l) => l.amount > 0)).toHaveLength(1)
  })

  it('a channel failing 3 times cools down for 60 s (tried last), then is tried again and recovers', async () => {
    const h = ctx.h
    await addChannel(h, 'midjourney', 'A', a.url, KEY_A, 10)
    await addChannel(h, 'midjourney', 'B', b.url, KEY_B, 0)
    // Logged in first (a login moves the test clock past the SMS code's wait).
    const operator = await h.login(OPERATOR)
    const { token } = await h.login()
    a.nextSubmits.push('http-500', 'http-500', 'http-500')
    for (let i = 0; i < 3; i++) expect((await imagine(token)).body.code).toBe(2000)
    expect(submits(a)).toBe(3)
    expect(submits(b)).toBe(3)
    // Cooling: B first, A untouched.
    expect((await imagine(token)).body.code).toBe(2000)
    expect(submits(a)).toBe(3)
    expect(submits(b)).toBe(4)
    // The console shows it.
    const list = await h.post<{ list: { name: string; kind: string; health: { cooledUntil: string | null; errors: number } }[] }>(
      '/api/admin/channels/list',
      {},
      operator.token
    )
    const shown = list.body.data.list.find((c) => c.name === 'A')!
    expect(shown.kind).toBe('midjourney')
    expect(shown.health.cooledUntil).not.toBeNull()
    expect(shown.health.errors).toBe(3)
    // After 60 s A comes first again; it answers, and is healthy.
    h.clock.advance(60_001)
    expect((await imagine(token)).body.code).toBe(2000)
    expect(submits(a)).toBe(4)
    expect(submits(b)).toBe(4)
    const after = await h.post<{ list: { name: string; health: { cooledUntil: string | null; consecutiveFailures: number } }[] }>(
      '/api/admin/channels/list',
      {},
      operator.token
    )
    expect(after.body.data.list.find((c) => c.name === 'A')!.health).toMatchObject({ cooledUntil: null, consecutiveFailures: 0 })
  })

  it('20 parallel submits with the first channel down: all on B, each charged exactly once', async () => {
    const h = ctx.h
    await addChannel(h, 'midjourney', 'A', closedUrl, KEY_A, 10)
    const idB = await addChannel(h, 'midjourney', 'B', b.url, KEY_B, 0)
    const { token, accountId } = await h.login()
    await h.setMjCount(accountId, 20)
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => imagine(token, `fox ${i}`)))
    expect(answers.map((r) => r.body.code)).toEqual(Array(20).fill(2000))
    expect(submits(b)).toBe(20)
    const rows = await ctx.db.db.select().from(paintingTasks).where(eq(paintingTasks.accountId, accountId))
    expect(rows.map((r) => r.channelId)).toEqual(Array(20).fill(idB))
    expect(await h.mjCount(accountId)).toBe(0)
    expect((await h.log(accountId)).filter((l) => l.amount > 0)).toHaveLength(0)
  })

  it('keys never reach a row in clear, an answer, an audit line or the log', async () => {
    const h = ctx.h
    const operator = await h.login(OPERATOR)
    const saved = await h.post<{ channel: { id: number; kind: string; keyHints: string[] } }>(
      '/api/admin/channels/save',
      { kind: 'midjourney', name: 'C', baseUrl: `${b.url}/mj/`, keys: [KEY_B] },
      operator.token
    )
    expect(saved.body.code, JSON.stringify(saved.body)).toBe(2000)
    expect(saved.body.data.channel).toMatchObject({ kind: 'midjourney', keyHints: ['2222'] })
    const [row] = await ctx.db.db.select().from(upstreamChannels).where(eq(upstreamChannels.id, saved.body.data.channel.id))
    expect(row!.baseUrl).toBe(b.url)
    const { token } = await h.login()
    expect((await imagine(token)).body.code).toBe(2000)
    expect(b.requests.at(-1)!.headers['mj-api-secret']).toBe(KEY_B)
    const list = await h.post('/api/admin/channels/list', {}, operator.token)
    const audit = await ctx.db.db.select().from(adminAudit)
    for (const text of [JSON.stringify(row), JSON.stringify(saved.body), JSON.stringify(list.body), JSON.stringify(audit), JSON.stringify(h.logger.entries)]) {
      expect(text).not.toContain(KEY_B)
    }
    // A channel's kind stays; a bad kind is refused in Chinese, and nothing is stored.
    const change = await h.post('/api/admin/channels/save', { id: saved.body.data.channel.id, kind: 'suno', name: 'C', baseUrl: b.url }, operator.token)
    expect(change.body).toMatchObject({ code: 40000001, message: '渠道类型不能修改，请新建一个渠道' })
    const bad = await h.post('/api/admin/channels/save', { kind: 'dalle', name: 'D', baseUrl: b.url }, operator.token)
    expect(bad.body.code).toBe(40000001)
    expect(await ctx.db.db.select().from(upstreamChannels)).toHaveLength(1)
  })

  it('tasks saved without a channel (before channels) are polled at the env upstream', async () => {
    const h = ctx.h
    const { token } = await h.login()
    // No stored midjourney channel: MJ_PROXY_URL is the channel, and the task keeps no id.
    const res = await imagine(token)
    expect(res.body.code).toBe(2000)
    expect((await h.row(res.body.data.taskId)).channelId).toBeNull()
    await addChannel(h, 'midjourney', 'B', b.url, KEY_B, 0)
    a.succeed(a.last().id)
    b.requests.length = 0
    await h.runtime.tick()
    expect(b.requests).toHaveLength(0)
    expect((await h.settled(token, res.body.data.taskId)).status).toBe('SUCCESS')
  })
})

describe('AUTOMATIC1111 channels', () => {
  const BODY = { prompt: 'a lighthouse', negativePrompt: 'lowres', width: 512, height: 512, steps: 20, cfgScale: 7, sampler: 'Euler a' }
  it.each([
    ['HTTP 500', () => (sdA.behaviour = { kind: 'error', status: 500, error: 'OutOfMemoryError', detail: 'CUDA' }), false],
    ['HTTP 429', () => (sdA.behaviour = { kind: 'error', status: 429, error: 'Busy', detail: '' }), false],
    ['a refused connection', () => {}, true]
  ])('the first UI fails with %s: the second draws it, charged once', async (_, cue, refused) => {
    const h = ctx.h
    await addChannel(h, 'sd', 'SD A', refused ? closedUrl : sdA.url, 'sd:aaaa', 10)
    const idB = await addChannel(h, 'sd', 'SD B', sdB.url, 'sd:bbbb', 0)
    cue()
    const { token, accountId } = await h.login()
    const start = await h.mjCount(accountId)
    const res = await h.post<WireTask>('/api/v1/sd/txt2img', BODY, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    const done = await h.settled(token, res.body.data.taskId)
    expect(done.status).toBe('SUCCESS')
    const call = sdB.requests.find((r) => r.path === '/sdapi/v1/txt2img')!
    expect(call.headers.authorization).toBe(`Basic ${Buffer.from('sd:bbbb').toString('base64')}`)
    expect(sdA.requests.filter((r) => r.path === '/sdapi/v1/txt2img')).toHaveLength(refused ? 0 : 1)
    expect((await h.row(res.body.data.taskId)).channelId).toBe(idB)
    expect(await h.mjCount(accountId)).toBe(start - 1)
  })

  it('a refusal of the picture itself (HTTP 422) is not sent elsewhere: FAILURE, refunded', async () => {
    const h = ctx.h
    await addChannel(h, 'sd', 'SD A', sdA.url, 'sd:aaaa', 10)
    await addChannel(h, 'sd', 'SD B', sdB.url, 'sd:bbbb', 0)
    sdA.behaviour = { kind: 'error', status: 422, error: 'ValidationError', detail: 'bad sampler' }
    const { token, accountId } = await h.login()
    const start = await h.mjCount(accountId)
    const res = await h.post<WireTask>('/api/v1/sd/txt2img', BODY, token)
    expect(res.body.code).toBe(2000)
    expect((await h.settled(token, res.body.data.taskId)).status).toBe('FAILURE')
    expect(sdB.requests.filter((r) => r.path === '/sdapi/v1/txt2img')).toHaveLength(0)
    expect(await h.mjCount(accountId)).toBe(start)
  })
})
