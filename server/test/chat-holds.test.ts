/**
 * Issue 13, money: a reply's cost is held before anything goes upstream and settled when it
 * ends; upstream usage is validated; one charging policy for every way a reply ends; accounting
 * that fails never leaves a reply streaming. Real app, real PGlite (PostgreSQL with DATABASE_URL).
 */
import { randomUUID } from 'node:crypto'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hold } from '../src/allowances/ledger.js'
import { holdTokens, MIN_ANSWER_TOKENS, TOKENS } from '../src/replies/accounting.js'
import { countTokens } from '../src/replies/context.js'
import { createApp } from '../src/app.js'
import { createChat } from '../src/replies/index.js'
import { createChatRuntime } from '../src/replies/runtime.js'
import { createRedisBus } from '../src/events/index.js'
import { createConsoleSmsProvider } from '../src/sms/console-provider.js'
import { balanceLog, chatMessages } from '../src/db/schema.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv, parseFrames, readAll, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'
import { memoryLogger } from './helpers/harness.js'

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(async () => {
  await fake.close()
})

const ctx = useHarness(() => ({ env: fakeEnv(fake) }))
const chat = chatHelpers(ctx)

/** fake-gpt: price 1/1, no max_tokens, 16384 context → 2048 tokens held for the answer. */
const ANSWER_RESERVE = 2048

async function replies(accountId: string) {
  return ctx.db.db
    .select()
    .from(chatMessages)
    .where(and(eq(chatMessages.accountId, accountId), eq(chatMessages.role, 'assistant')))
}

/** Every charge is in the log, the log chains to the balance, and nothing is still held. */
async function expectBooksBalance(accountId: string, start: number) {
  const rows = await replies(accountId)
  expect(rows.filter((r) => r.status === 'streaming')).toEqual([])
  expect(rows.every((r) => r.held === 0)).toBe(true)
  const charged = rows.reduce((sum, r) => sum + (r.charged ?? 0), 0)
  const log = await chat.log(accountId)
  const logged = log.filter((l) => l.kind === 'tokens' && l.reason.startsWith('对话')).reduce((sum, l) => sum + l.amount, 0)
  expect(logged + charged).toBe(0)
  expect(await chat.balance(accountId)).toBe(start - charged)
  return { rows, charged, log }
}

describe('holds: a reply is paid for before it is generated', () => {
  it('100 concurrent sends against a balance for about 9 replies: the rest are refused before any upstream call, and none is free', async () => {
    const { token, accountId } = await chat.user()
    // A topic each, so no send carries another's question as history: every hold is the same size.
    const topics = await Promise.all(Array.from({ length: 100 }, () => chat.topic(token, { model: 'fake-gpt' })))
    const prompt = 7 + (await countTokens('并发'))
    const start = 9 * (prompt + ANSWER_RESERVE) + 100
    await chat.setTokens(accountId, start)
    // Every reply waits until all 100 sends are answered: what is accepted is decided by the holds alone.
    let release!: () => void
    const hold = new Promise<void>((resolve) => (release = resolve))
    fake.script({ kind: 'stream', chunks: ['好', '的'], usage: { prompt_tokens: 12, completion_tokens: 30 }, hold })
    const upstream = fake.requests.length
    const sent = await Promise.all(Array.from({ length: 100 }, (_, i) => chat.send(token, topics[i]!.topicId, '并发')))
    release()
    const accepted = sent.filter((r) => r.body.code === 2000)
    const refused = sent.filter((r) => r.body.code === 40200001)
    expect(accepted.length + refused.length).toBe(100)
    // Nine full holds, plus one that takes the 100 left (more than a short answer needs) with a limit.
    expect(accepted.length).toBe(10)
    for (const r of refused) expect(r.status).toBe(402)
    await ctx.h.chat.idle()
    expect(fake.requests.length - upstream).toBe(accepted.length)
    const { rows, charged } = await expectBooksBalance(accountId, start)
    expect(rows).toHaveLength(accepted.length)
    // Every reply was paid in full: nobody got an answer for free.
    for (const r of rows) expect(r).toMatchObject({ status: 'complete', cost: 42, charged: 42 })
    expect(charged).toBe(42 * accepted.length)
    // The log chains (each balance = the previous + its amount) although the replies ended in any order.
    let balance = start
    for (const line of (await chat.log(accountId)).filter((l) => l.reason.startsWith('对话'))) {
      balance += line.amount
      expect(line.balance).toBe(balance)
    }
  })

  it('two API nodes on one database (and one Redis with REDIS_URL): 100 sends split between them still cannot spend more than the balance', async () => {
    const h = ctx.h
    const bus = h.bus.prefix ? createRedisBus({ url: process.env.REDIS_URL!, prefix: h.bus.prefix }) : h.bus
    const chatB = createChat({ db: ctx.db.db, config: h.config, bus, logger: h.logger, now: h.clock.now })
    const appB = createApp({
      chat: chatB,
      db: ctx.db.db,
      config: h.config,
      sms: createConsoleSmsProvider(() => {}),
      kv: h.kv,
      logger: h.logger,
      now: h.clock.now
    })
    try {
      const { token, accountId } = await chat.user()
      const topics = await Promise.all(Array.from({ length: 100 }, () => chat.topic(token, { model: 'fake-gpt' })))
      const prompt = 7 + (await countTokens('并发'))
      const start = 9 * (prompt + ANSWER_RESERVE) + 100
      await chat.setTokens(accountId, start)
      let release!: () => void
      const hold = new Promise<void>((resolve) => (release = resolve))
      fake.script({ kind: 'stream', chunks: ['好', '的'], usage: { prompt_tokens: 12, completion_tokens: 30 }, hold })
      const upstream = fake.requests.length
      const send = (i: number) => {
        const body = JSON.stringify({ topicId: topics[i]!.topicId, content: '并发' })
        const init = { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body }
        const res = i % 2 === 0 ? h.app.request('/api/v1/ai-chat/topic/message/send', init) : appB.request('/api/v1/ai-chat/topic/message/send', init)
        return Promise.resolve(res).then(async (r) => (await r.json()) as { code: number })
      }
      const sent = await Promise.all(Array.from({ length: 100 }, (_, i) => send(i)))
      release()
      expect(sent.filter((r) => r.code === 2000)).toHaveLength(10)
      expect(sent.filter((r) => r.code === 40200001)).toHaveLength(90)
      await Promise.all([h.chat.idle(), chatB.idle()])
      expect(fake.requests.length - upstream).toBe(10)
      const { charged } = await expectBooksBalance(accountId, start)
      expect(charged).toBe(420)
    } finally {
      await chatB.close()
      if (bus !== h.bus) await bus.close()
    }
  })

  it('holds the estimate while the reply streams, and gives the rest back at the end', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    let release!: () => void
    const hold = new Promise<void>((resolve) => (release = resolve))
    fake.script({ kind: 'stream', chunks: ['一', '二'], usage: { prompt_tokens: 10, completion_tokens: 2 }, hold })
    const res = await chat.send(token, topic.topicId, '数一数')
    const prompt = 7 + (await countTokens('数一数'))
    expect((await chat.reply(res.body.data!.replyId)).held).toBe(prompt + ANSWER_RESERVE)
    expect(await chat.balance(accountId)).toBe(100_000 - prompt - ANSWER_RESERVE)
    release()
    await ctx.h.chat.idle()
    expect(await chat.reply(res.body.data!.replyId)).toMatchObject({ held: 0, cost: 12, charged: 12 })
    expect(await chat.balance(accountId)).toBe(100_000 - 12)
    expect((await chat.log(accountId)).at(-1)).toEqual({ kind: 'tokens', amount: -12, balance: 100_000 - 12, reason: '对话：fake-gpt' })
  })

  it('a balance short of the estimate limits the answer (max_tokens) to what it pays for; below a short answer the send is refused', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const prompt = 7 + (await countTokens('短'))
    await chat.setTokens(accountId, prompt + 200)
    // The upstream claims more than max_tokens allowed: the charge stops at the hold.
    fake.script({ kind: 'stream', chunks: ['长'], usage: { prompt_tokens: prompt, completion_tokens: 5000 } })
    const res = await chat.send(token, topic.topicId, '短')
    expect(res.body.code).toBe(2000)
    await ctx.h.chat.idle()
    expect(fake.requests.at(-1)!.body.max_tokens).toBe(200)
    expect(await chat.reply(res.body.data!.replyId)).toMatchObject({ status: 'complete', cost: prompt + 5000, charged: prompt + 200, held: 0 })
    expect(await chat.balance(accountId)).toBe(0)
    expect((await chat.log(accountId)).at(-1)).toEqual({
      kind: 'tokens',
      amount: -(prompt + 200),
      balance: 0,
      reason: `对话：fake-gpt（余额不足，应扣 ${prompt + 5000}）`
    })

    await chat.setTokens(accountId, prompt + MIN_ANSWER_TOKENS - 1)
    const upstream = fake.requests.length
    const refused = await chat.send(token, topic.topicId, '短')
    expect(refused.status).toBe(402)
    expect(refused.body.code).toBe(40200001)
    expect(refused.body.message).toContain('对话额度不足')
    expect(fake.requests.length).toBe(upstream)
    expect(await chat.balance(accountId)).toBe(prompt + MIN_ANSWER_TOKENS - 1)
  })

  it('the demo model honours the limit too, offline', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    const prompt = 7 + (await countTokens('你好'))
    await chat.setTokens(accountId, prompt + 80)
    const res = await chat.send(token, topic.topicId, '你好')
    await ctx.h.chat.idle()
    const reply = await chat.reply(res.body.data!.replyId)
    expect(reply.status).toBe('complete')
    expect(reply.completionTokens!).toBeLessThanOrEqual(80)
    expect(reply.charged).toBe(reply.cost)
    await expectBooksBalance(accountId, prompt + 80)
  })

  it('hot news and order drafts hold through the same gate (holdTokens refuses a balance below the minimum)', async () => {
    const { accountId } = await chat.user()
    await chat.setTokens(accountId, 10)
    const model = { price: { input: 1, output: 1 }, contextLength: 16384 }
    await expect(ctx.db.db.transaction((tx) => holdTokens(tx, accountId, model, 20))).rejects.toMatchObject({ code: 40200001 })
    expect(await chat.balance(accountId)).toBe(10)
  })
})

describe('upstream usage is validated', () => {
  for (const [label, usage] of [
    ['3e9 tokens (overflowed the integer column)', { prompt_tokens: 3e9, completion_tokens: 3e9 }],
    ['a fraction', { prompt_tokens: 11.5, completion_tokens: 2 }],
    ['a negative count (made the reply free)', { prompt_tokens: -100, completion_tokens: -50 }],
    ['zero completion tokens for a reply with text', { prompt_tokens: 5, completion_tokens: 0 }]
  ] as const) {
    it(`${label}: the reply completes with its text and final event, billed by its own count`, async () => {
      const { token, accountId } = await chat.user()
      const topic = await chat.topic(token, { model: 'fake-gpt' })
      fake.script({ kind: 'stream', chunks: ['账', '单'], usage })
      const res = await chat.send(token, topic.topicId, '用量')
      await ctx.h.chat.idle()
      const reply = await chat.reply(res.body.data!.replyId)
      const prompt = 7 + (await countTokens('用量'))
      const completion = await countTokens('账单')
      expect(reply).toMatchObject({
        status: 'complete',
        content: '账单',
        promptTokens: prompt,
        completionTokens: completion,
        charged: prompt + completion,
        held: 0
      })
      const frames = parseFrames(await readAll(await chat.subscribe(token, res.body.data!.requestId)))
      expect(frames.at(-1)!.event).toBe('done')
      await expectBooksBalance(accountId, 100_000)
      expect(ctx.h.logger.entries.some((e) => e.message.includes('unbelievable usage'))).toBe(true)
    })
  }
})

describe('one charging policy for every way a reply ends', () => {
  it('stopped by the user: charged for the prompt and the text shown', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script({ kind: 'stream', chunks: ['第一', '第二', '第三', '第四'], delayMs: 30, hangAfter: 2 })
    const res = await chat.send(token, topic.topicId, '停下')
    await waitUntil(async () => (await chat.reply(res.body.data!.replyId)).content === '第一第二' || fake.requests.at(-1)!.finishedAt !== undefined, 5000)
    await waitUntil(async () => (await readAll(await chat.subscribe(token, res.body.data!.requestId), (t) => t.includes('第二'))).includes('第二'))
    expect((await chat.post('topic/message/stop', { requestId: res.body.data!.requestId }, token)).body.code).toBe(2000)
    const reply = await chat.reply(res.body.data!.replyId)
    const prompt = 7 + (await countTokens('停下'))
    const shown = await countTokens(reply.content)
    expect(reply).toMatchObject({ status: 'interrput', charged: prompt + shown, held: 0 })
    expect((await chat.log(accountId)).at(-1)!.reason).toBe('对话（已停止）：fake-gpt')
    await expectBooksBalance(accountId, 100_000)
  })

  it('cut off by the upstream mid-stream: the text stays, nothing is charged', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script({ kind: 'stream', chunks: ['半', '截', '话'], cutAfter: 2 })
    const res = await chat.send(token, topic.topicId, '断了')
    await ctx.h.chat.idle()
    expect(await chat.reply(res.body.data!.replyId)).toMatchObject({ status: 'error', content: '半截', charged: 0, cost: 0, held: 0 })
    const { log } = await expectBooksBalance(accountId, 100_000)
    expect(log.filter((l) => l.amount < 0)).toEqual([])
  })

  it('the upstream failing before any text: nothing is charged', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script({ kind: 'http-error', status: 503, body: { error: { message: 'overloaded' } } })
    const res = await chat.send(token, topic.topicId, '忙吗')
    await ctx.h.chat.idle()
    expect(await chat.reply(res.body.data!.replyId)).toMatchObject({ status: 'error', charged: 0, held: 0 })
    await expectBooksBalance(accountId, 100_000)
  })

  it('the server shutting down (SIGTERM) mid-reply: interrput, the text stays, nothing is charged', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script({ kind: 'stream', chunks: ['关', '机', '了'], hangAfter: 2 })
    const res = await chat.send(token, topic.topicId, '关机')
    await waitUntil(async () => (await readAll(await chat.subscribe(token, res.body.data!.requestId), (t) => t.includes('机'))).includes('机'))
    await ctx.h.chat.close()
    expect(await chat.reply(res.body.data!.replyId)).toMatchObject({ status: 'interrput', content: '关机', charged: 0, held: 0 })
    await expectBooksBalance(accountId, 100_000)
  })

  it('the node killed (kill -9) mid-reply: the sweep ends it interrput, free, and gives the hold back', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    // A reply whose generation died with its process: held tokens, a row left streaming.
    const replyId = randomUUID()
    const at = new Date()
    await ctx.db.db.transaction(async (tx) => {
      await hold(tx, accountId, TOKENS, 500)
      await tx.insert(chatMessages).values({
        id: replyId,
        accountId,
        topicId: topic.topicId,
        role: 'assistant',
        content: '一半',
        status: 'streaming',
        requestId: randomUUID(),
        held: 500,
        nodeId: 'dead-node',
        createdAt: at,
        updatedAt: at
      })
    })
    expect(await ctx.h.chat.sweep()).toBe(1)
    expect(await chat.reply(replyId)).toMatchObject({ status: 'interrput', content: '一半', charged: 0, held: 0 })
    await expectBooksBalance(accountId, 100_000)
    void token
  })
})

describe('a node that restarts ends its own orphans at once', () => {
  it('sweep({ staleMs, own }) ends the replies of this node id however fresh, and leaves other nodes\u2019 to their lease', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    const at = new Date()
    const mine = randomUUID()
    const theirs = randomUUID()
    await ctx.db.db.transaction(async (tx) => {
      await hold(tx, accountId, TOKENS, 300)
      for (const [id, nodeId] of [
        [mine, 'node-a:8787'],
        [theirs, 'node-b:8787']
      ] as const) {
        await tx.insert(chatMessages).values({
          id,
          accountId,
          topicId: topic.topicId,
          role: 'assistant',
          status: 'streaming',
          requestId: randomUUID(),
          held: 150,
          nodeId,
          createdAt: at,
          updatedAt: at
        })
      }
    })
    const runtime = createChatRuntime({
      db: ctx.db.db,
      bus: ctx.h.bus,
      models: ctx.h.chat.models,
      settings: ctx.h.config.chat,
      logger: memoryLogger(),
      now: Date.now,
      nodeId: 'node-a:8787'
    })
    try {
      expect(await runtime.sweep({ staleMs: 60_000, own: true })).toBe(1)
      expect(await chat.reply(mine)).toMatchObject({ status: 'interrput', held: 0, charged: 0 })
      expect(await chat.reply(theirs)).toMatchObject({ status: 'streaming', held: 150 })
      expect(await chat.balance(accountId)).toBe(100_000 - 150)
    } finally {
      await runtime.close()
    }
  })
})

describe('the lease of the replies a node generates', () => {
  it('is renewed for every running reply (one write per tick for all of them), and no longer once they end', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const model = (await ctx.h.chat.models.find('fake-gpt'))!
    const past = new Date(Date.now() - 60_000)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const held = {
      async *stream() {
        yield { type: 'content' as const, text: '租约' }
        await gate
      }
    }
    const jobs = [randomUUID(), randomUUID(), randomUUID()].map((replyId) => ({ replyId, requestId: randomUUID() }))
    await ctx.db.db.transaction(async (tx) => {
      await hold(tx, accountId, TOKENS, 30)
      for (const { replyId, requestId } of jobs)
        await tx.insert(chatMessages).values({
          id: replyId,
          accountId,
          topicId: topic.topicId,
          role: 'assistant',
          status: 'streaming',
          requestId,
          held: 10,
          createdAt: past,
          updatedAt: past
        })
    })
    const runtime = createChatRuntime({
      db: ctx.db.db,
      bus: ctx.h.bus,
      models: ctx.h.chat.models,
      settings: ctx.h.config.chat,
      logger: memoryLogger(),
      now: Date.now,
      leaseMs: 150,
      providers: { [model.provider]: held }
    })
    const touched = async () =>
      (
        await ctx.db.db
          .select({ updatedAt: chatMessages.updatedAt })
          .from(chatMessages)
          .where(
            inArray(
              chatMessages.id,
              jobs.map((j) => j.replyId)
            )
          )
      ).map((r) => r.updatedAt.getTime())
    try {
      for (const { replyId, requestId } of jobs)
        runtime.start({
          accountId,
          topicId: topic.topicId,
          replyId,
          requestId,
          model,
          messages: [],
          promptTokens: 1,
          temperature: 1,
          hold: { held: 10, maxTokens: undefined }
        })
      // Every 50 ms (a third of the lease), each running reply's row is touched.
      await waitUntil(async () => (await touched()).every((t) => t > past.getTime() + 30_000))
      release()
      await runtime.idle()
      const ended = await touched()
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(await touched()).toEqual(ended)
      for (const { replyId } of jobs) expect(await chat.reply(replyId)).toMatchObject({ status: 'complete', content: '租约' })
    } finally {
      release()
      await runtime.close()
    }
  })
})

describe('accounting that fails never leaves a reply streaming', () => {
  it('a settlement that the database refuses: the reply ends as an error with its text, its hold goes back, and the stream gets its final event', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    // The database refuses this reply's balance-log line, so the settling transaction fails.
    await ctx.db.db.execute(sql`alter table ${balanceLog} add constraint test_refuse_log check (amount <> -777)`)
    try {
      fake.script({ kind: 'stream', chunks: ['保', '住'], usage: { prompt_tokens: 700, completion_tokens: 77 } })
      const res = await chat.send(token, topic.topicId, '记账失败')
      await ctx.h.chat.idle()
      expect(await chat.reply(res.body.data!.replyId)).toMatchObject({ status: 'error', content: '保住', errorCode: 50000000, charged: 0, held: 0 })
      const frames = parseFrames(await readAll(await chat.subscribe(token, res.body.data!.requestId)))
      expect(frames.at(-1)).toMatchObject({ event: 'error' })
      expect(JSON.parse(frames.at(-1)!.data!)).toMatchObject({ status: 'error', code: 50000000 })
      await expectBooksBalance(accountId, 100_000)
    } finally {
      await ctx.db.db.execute(sql`alter table ${balanceLog} drop constraint test_refuse_log`)
    }
  })
})
