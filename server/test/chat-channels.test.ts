import { createServer } from 'node:net'
import { eq, sql } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { adminAudit, upstreamChannels } from '../src/db/schema.js'
import { loadConfig } from '../src/config.js'
import { prepareChannels } from '../src/replies/channels.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, parseFrames, readAll } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const OPERATOR = '13900000001'
const SECRET = Buffer.alloc(32, 7).toString('base64')
const KEY_A = 'sk-channel-a-SECRET-0001'
const KEY_B = 'sk-channel-b-SECRET-0002'

let a: FakeOpenAi
let b: FakeOpenAi
let closedUrl: string
beforeAll(async () => {
  a = await startFakeOpenAi({ apiKey: KEY_A })
  b = await startFakeOpenAi({ apiKey: KEY_B })
  // A port nobody listens on: connection refused.
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  closedUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}`
  await new Promise<void>((resolve) => probe.close(() => resolve()))
})
afterAll(async () => {
  await a.close()
  await b.close()
})
beforeEach(() => vi.stubEnv('ADMIN_PHONES', OPERATOR))
afterEach(() => vi.unstubAllEnvs())

const ctx = useHarness(() => ({ env: { CHANNEL_SECRET_KEY: SECRET, START_TOKENS: '100000', CHAT_TIMEOUT_MS: '2000' } }))
const chat = chatHelpers(ctx)
beforeEach(async () => {
  await ctx.db.db.execute(sql`truncate admin_audit`)
  a.requests.length = 0
  b.requests.length = 0
  a.script({ kind: 'stream', chunks: ['来自', 'A'], usage: { prompt_tokens: 9, completion_tokens: 3 } })
  b.script({ kind: 'stream', chunks: ['来自', 'B'], usage: { prompt_tokens: 9, completion_tokens: 3 } })
})

const admin = async () => (await ctx.h.login(OPERATOR)).accessToken

async function channel(token: string, body: Record<string, unknown>) {
  const res = await ctx.h.post<{ channel: { id: number } }>('/api/admin/channels/save', { models: ['fake-gpt'], ...body }, { token })
  expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
  return res.body.data.channel.id
}

/** A first, B second (lower priority). */
async function twoChannels(first = a.url) {
  const token = await admin()
  await channel(token, { name: 'A', baseUrl: first, keys: [KEY_A], priority: 10 })
  await channel(token, { name: 'B', baseUrl: b.url, keys: [KEY_B], priority: 0 })
  return token
}

async function exchange(token: string) {
  const topic = await chat.topic(token, { model: 'fake-gpt' })
  const sent = await chat.send(token, topic.topicId)
  expect(sent.body.code, JSON.stringify(sent.body)).toBe(2000)
  await ctx.h.chat.idle()
  const frames = parseFrames(await readAll(await chat.subscribe(token, sent.body.data.requestId)))
  return { frames, reply: await chat.reply(sent.body.data.replyId) }
}

describe('failover between channels before the first token', () => {
  it.each([
    [
      '429',
      () => a.script({ kind: 'http-error', status: 429, body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } }),
      false
    ],
    ['500', () => a.script({ kind: 'http-error', status: 500, body: { error: { message: 'boom', type: 'server_error' } } }), false],
    ['ECONNREFUSED', () => {}, true]
  ])('the first channel answers %s: the second answers, and the user sees one normal reply', async (_, script, refused) => {
    await twoChannels(refused ? closedUrl : a.url)
    script()
    const user = await chat.user()
    const { frames, reply } = await exchange(user.token)
    expect(reply).toMatchObject({ status: 'complete', content: '来自B', cost: 12 })
    expect(frames.map((f) => f.event)).toEqual(['delta', 'delta', 'done'])
    expect(a.requests.length).toBe(refused ? 0 : 1)
    expect(b.requests.length).toBe(1)
    expect(b.requests[0]!.headers.authorization).toBe(`Bearer ${KEY_B}`)
  })

  it('does not retry a failure after the first token: the reply ends as an error, the second channel is never asked', async () => {
    await twoChannels()
    a.script({ kind: 'stream', chunks: ['半句', '话'], cutAfter: 1 })
    const user = await chat.user()
    const { reply } = await exchange(user.token)
    expect(reply).toMatchObject({ status: 'error', content: '半句', charged: 0 })
    expect(b.requests.length).toBe(0)
  })

  it('does not fail over on a refusal another channel would repeat (400): the user gets its message', async () => {
    await twoChannels()
    a.script({ kind: 'http-error', status: 400, body: { error: { message: 'bad', type: 'invalid_request_error' } } })
    const user = await chat.user()
    const { reply } = await exchange(user.token)
    expect(reply.status).toBe('error')
    expect(b.requests.length).toBe(0)
  })

  it('cools a channel down after 3 failures in a row, shows it in the console, and tries it again after the cool-down', async () => {
    const token = await twoChannels()
    a.script({ kind: 'http-error', status: 503, body: { error: { message: 'overloaded' } } })
    const user = await chat.user()
    for (let i = 0; i < 3; i++) expect((await exchange(user.token)).reply.content).toBe('来自B')
    expect(a.requests.length).toBe(3)

    // Cooling: B first, A not asked at all.
    expect((await exchange(user.token)).reply.content).toBe('来自B')
    expect(a.requests.length).toBe(3)
    const list = await ctx.h.post<{
      list: { name: string; health: { calls: number; errors: number; errorRate: number; cooledUntil: string | null; latencyMs: number | null } }[]
    }>('/api/admin/channels/list', {}, { token })
    const [ha, hb] = list.body.data.list.map((c) => c.health)
    expect(ha).toMatchObject({ calls: 3, errors: 3, errorRate: 1 })
    expect(ha!.cooledUntil).not.toBeNull()
    expect(hb).toMatchObject({ calls: 4, errors: 0, errorRate: 0, cooledUntil: null })
    expect(hb!.latencyMs).toBeGreaterThanOrEqual(0)

    // Cool-down over, A healthy again: it answers first.
    ctx.h.clock.advance(60_001)
    a.script({ kind: 'stream', chunks: ['来自', 'A'], usage: { prompt_tokens: 9, completion_tokens: 3 } })
    expect((await exchange(user.token)).reply.content).toBe('来自A')
  })

  it('spreads one priority by weight', async () => {
    const token = await admin()
    await channel(token, { name: 'A', baseUrl: a.url, keys: [KEY_A], weight: 1 })
    await channel(token, { name: 'B', baseUrl: b.url, keys: [KEY_B], weight: 9 })
    const user = await chat.user()
    for (let i = 0; i < 20; i++) await exchange(user.token)
    expect(a.requests.length + b.requests.length).toBe(20)
    expect(b.requests.length).toBeGreaterThan(a.requests.length)
  })
})

describe('channel keys at rest', () => {
  it('stores keys encrypted, and no answer or audit line carries them (last 4 characters only)', async () => {
    const token = await twoChannels()
    const rows = await ctx.db.db.select().from(upstreamChannels)
    const raw = JSON.stringify(rows)
    expect(raw).not.toContain(KEY_A)
    expect(raw).not.toContain(KEY_B)
    expect(rows[0]!.keys[0]).toMatch(/^v1\./)
    expect(rows.map((r) => r.keyHints)).toEqual([['0001'], ['0002']])
    const list = await ctx.h.post('/api/admin/channels/list', {}, { token })
    expect(JSON.stringify(list.body)).not.toContain('SECRET')
    expect(list.body.data).toMatchObject({
      secretConfigured: true,
      list: [
        { name: 'A', keyHints: ['0001'] },
        { name: 'B', keyHints: ['0002'] }
      ]
    })
    const audit = JSON.stringify(await ctx.db.db.select().from(adminAudit))
    expect(audit).toContain('channel.create')
    expect(audit).not.toContain('SECRET')

    // Changing other fields keeps the keys; the stored cipher text still opens under the secret.
    const id = rows[0]!.id
    await channel(token, { id, name: 'A2', baseUrl: a.url, priority: 10 })
    const user = await chat.user()
    expect((await exchange(user.token)).reply.content).toBe('来自A')
  })

  it('seeds OPENAI_* as channel #1 when the table is empty, and refuses to start when channels exist without the key', async () => {
    const env = { DATA_DIR: '/tmp', OPENAI_BASE_URL: a.url, OPENAI_API_KEY: KEY_A, OPENAI_MODELS: 'fake-gpt' }
    await prepareChannels(ctx.db.db, loadConfig({ ...env, CHANNEL_SECRET_KEY: SECRET }).chat)
    await prepareChannels(ctx.db.db, loadConfig({ ...env, CHANNEL_SECRET_KEY: SECRET }).chat)
    const rows = await ctx.db.db.select().from(upstreamChannels)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ baseUrl: a.url, keyHints: ['0001'], models: [] })
    expect(JSON.stringify(rows)).not.toContain(KEY_A)
    await expect(prepareChannels(ctx.db.db, loadConfig(env).chat)).rejects.toThrow(/CHANNEL_SECRET_KEY/)
    expect(() => loadConfig({ ...env, CHANNEL_SECRET_KEY: 'too-short' })).toThrow(/CHANNEL_SECRET_KEY must be 32 bytes/)
  })

  it('refuses to store a channel without CHANNEL_SECRET_KEY, in Chinese', async () => {
    vi.stubEnv('CHANNEL_SECRET_KEY', '')
    await ctx.h.close()
    ctx.h = (await import('./helpers/harness.js')).createHarness(ctx.db, { env: { START_TOKENS: '100000' } })
    const res = await ctx.h.post('/api/admin/channels/save', { name: 'A', baseUrl: a.url, keys: [KEY_A] }, { token: await admin() })
    expect(res.body).toMatchObject({ code: 40000001, message: expect.stringContaining('CHANNEL_SECRET_KEY') })
  })
})

describe('per-model price ratios', () => {
  it('charges usage × ratio, lists the ratio to users, and writes model and ratio in the balance log and the audit log', async () => {
    const token = await twoChannels()
    const set = await ctx.h.post('/api/admin/models/price', { modelId: 'fake-gpt', price: { input: 2, output: 3 } }, { token })
    expect(set.body).toMatchObject({ code: 2000, data: { modelId: 'fake-gpt', price: { input: 2, output: 3 } } })
    const served = await ctx.h.request<never>('/config/chatConfig.json')
    const config = served.body as unknown as { models: { id: string; price: unknown }[] }
    expect(config.models.find((m) => m.id === 'fake-gpt')!.price).toEqual({ input: 2, output: 3 })

    const user = await chat.user()
    const { reply } = await exchange(user.token)
    // 9 prompt tokens × 2 + 3 completion tokens × 3.
    expect(reply).toMatchObject({ status: 'complete', promptTokens: 9, completionTokens: 3, cost: 27, charged: 27 })
    expect(await chat.balance(user.accountId)).toBe(100_000 - 27)
    expect((await chat.log(user.accountId)).at(-1)).toEqual({
      kind: 'tokens',
      amount: -27,
      balance: 100_000 - 27,
      reason: '对话：fake-gpt（fake-gpt，输入 ×2，输出 ×3）'
    })
    const [line] = await ctx.db.db.select().from(adminAudit).where(eq(adminAudit.action, 'model.price'))
    expect(line).toMatchObject({ target: 'model:fake-gpt', before: { input: 1, output: 1 }, after: { input: 2, output: 3 } })

    const models = await ctx.h.post<{ list: { id: string; custom: boolean }[] }>('/api/admin/models/list', {}, { token })
    expect(models.body.data.list.find((m) => m.id === 'fake-gpt')).toMatchObject({ custom: true, price: { input: 2, output: 3 } })
    const bad = await ctx.h.post('/api/admin/models/price', { modelId: 'fake-gpt', price: { input: -1, output: 3 } }, { token })
    expect(bad.body).toMatchObject({ code: 40000001, message: expect.stringContaining('倍率不能小于 0') })
  })

  it('never overspends with 50 replies in parallel', async () => {
    const token = await twoChannels()
    await ctx.h.post('/api/admin/models/price', { modelId: 'fake-gpt', price: { input: 2, output: 3 } }, { token })
    a.script({ kind: 'stream', chunks: ['来自', 'A'], usage: { prompt_tokens: 9, completion_tokens: 3 }, delayMs: 20 })
    const user = await chat.user()
    const START = 40_000
    await chat.setTokens(user.accountId, START)
    const topics = []
    for (let i = 0; i < 50; i++) topics.push(await chat.topic(user.token, { model: 'fake-gpt' }))
    const sends = await Promise.all(topics.map((t) => chat.send(user.token, t.topicId)))
    await ctx.h.chat.idle()
    const accepted = sends.filter((s) => s.body.code === 2000)
    const refused = sends.filter((s) => s.body.code === 40200001)
    expect(accepted.length + refused.length).toBe(50)
    expect(accepted.length).toBeGreaterThan(0)
    expect(refused.length).toBeGreaterThan(0)
    const replies = await Promise.all(accepted.map((s) => chat.reply(s.body.data.replyId)))
    const charged = replies.reduce((sum, r) => sum + (r.charged ?? 0), 0)
    expect(replies.every((r) => r.status === 'complete' && r.charged === 27)).toBe(true)
    expect(await chat.balance(user.accountId)).toBe(START - charged)
    const spent = (await chat.log(user.accountId)).filter((l) => l.amount < 0).reduce((sum, l) => sum - l.amount, 0)
    expect(spent).toBe(charged)
  })
})
