import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { finishReply } from '../src/replies/accounting.js'
import { countTokens } from '../src/replies/context.js'
import { demoChunks, demoReply } from '../src/replies/providers/demo.js'
import { chatMessages } from '../src/db/schema.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { holdTokens } from './helpers/allowances.js'
import { chatHelpers, fakeEnv, parseFrames, readAll } from './helpers/chat.js'
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

describe('allowance', () => {
  it('refuses a send at zero tokens with 40200001 before anything goes upstream, changing nothing', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    await chat.setTokens(accountId, 0)
    const upstream = fake.requests.length
    const before = { snap: await ctx.h.snapshot(), messages: await ctx.db.db.select().from(chatMessages) }
    const res = await chat.send(token, topic.topicId, '还能聊吗')
    expect(res.status).toBe(402)
    expect(res.body).toEqual({ code: 40200001, message: '对话额度已用完，请充值后再试', data: null })
    expect(fake.requests.length).toBe(upstream)
    expect({ snap: await ctx.h.snapshot(), messages: await ctx.db.db.select().from(chatMessages) }).toEqual(before)
  })

  it('concurrent sends against a small balance never take it below zero, and the log adds up', async () => {
    const { token, accountId } = await chat.user()
    const prompt = 7 + (await countTokens('并发'))
    // Room for two full holds (prompt + 2048 for the answer) and 50 more: too little for a third.
    const start = 2 * (prompt + 2048) + 50
    await chat.setTokens(accountId, start)
    // The replies answer once all six sends are answered: a reply that ended early would give back
    // what it did not use, and a later send could hold it (what is accepted is the holds' alone).
    let release!: () => void
    const hold = new Promise<void>((resolve) => (release = resolve))
    fake.script({ kind: 'stream', chunks: ['好', '的'], usage: { prompt_tokens: 10, completion_tokens: 5 }, delayMs: 5, hold })
    const topics = await Promise.all(Array.from({ length: 6 }, () => chat.topic(token, { model: 'fake-gpt' })))
    const sent = await Promise.all(topics.map((t) => chat.send(token, t.topicId, '并发')))
    release()
    expect(sent.map((res) => res.body.code).sort()).toEqual([2000, 2000, 40200001, 40200001, 40200001, 40200001])
    await ctx.h.chat.idle()
    expect(await chat.balance(accountId)).toBe(start - 30)
    const replies = await Promise.all(sent.filter((res) => res.body.code === 2000).map((res) => chat.reply(res.body.data.replyId)))
    for (const r of replies) expect(r).toMatchObject({ status: 'complete', cost: 15, charged: 15, held: 0 })
    const charges = (await chat.log(accountId)).filter((l) => l.kind === 'tokens' && l.amount < 0)
    expect(charges.map((l) => l.amount)).toEqual([-15, -15])
    // The log's balance counts what the other reply still held: it chains, whatever the order.
    expect(charges.map((l) => l.balance)).toEqual([start - 15, start - 30])
    expect(charges[0]!.reason).toBe('对话：fake-gpt')
  })

  it('charges a reply once, whoever finishes it', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    const at = new Date()
    const replyId = randomUUID()
    // Held when it started, as every reply is.
    await holdTokens(ctx.db.db, accountId, 8)
    await ctx.db.db.insert(chatMessages).values({
      id: replyId,
      accountId,
      topicId: topic.topicId,
      role: 'assistant',
      status: 'streaming',
      requestId: randomUUID(),
      held: 8,
      createdAt: at,
      updatedAt: at
    })
    const outcome = {
      replyId,
      accountId,
      status: 'complete' as const,
      content: '完成',
      thinking: '',
      errorCode: null,
      errorMessage: null,
      promptTokens: 3,
      completionTokens: 2,
      contentTokens: 2,
      cost: 5,
      reason: '对话：测试',
      at
    }
    const results = await Promise.all([finishReply(ctx.db.db, outcome), finishReply(ctx.db.db, { ...outcome, status: 'interrput' })])
    expect(results.filter(Boolean)).toHaveLength(1)
    expect((await chat.log(accountId)).filter((l) => l.amount < 0)).toEqual([{ kind: 'tokens', amount: -5, balance: 99995, reason: '对话：测试' }])
    expect(await chat.balance(accountId)).toBe(99995)
  })
})

describe('the offline demo model', () => {
  it('streams a deterministic markdown answer that says it is the offline demo, quoting the question, billed by local count', async () => {
    const { token, accountId } = await chat.user()
    const question = '如何用 Python 读取 CSV 文件？'
    const a = await chat.topic(token)
    const b = await chat.topic(token)
    const first = (await chat.send(token, a.topicId, question)).body.data
    const second = (await chat.send(token, b.topicId, question)).body.data
    await ctx.h.chat.idle()
    const replyA = await chat.reply(first.replyId)
    const replyB = await chat.reply(second.replyId)
    expect(replyA.content).toBe(replyB.content)
    expect(replyA.content).toBe(demoReply([{ role: 'user', content: question }]))
    expect(replyA.content).toContain('灵犀离线演示模型')
    expect(replyA.content).toContain('没有连接任何真实的 AI 服务')
    expect(replyA.content).toContain(`> ${question}`)
    expect(replyA.content).toMatch(/^## /m)
    expect(replyA.content).toMatch(/^- /m)
    expect(replyA.content).toContain('```js\n')
    expect(replyA.content).toMatch(/^\| --- \| --- \|$/m)

    const framesA = parseFrames(await readAll(await chat.subscribe(token, first.requestId)))
    const framesB = parseFrames(await readAll(await chat.subscribe(token, second.requestId)))
    expect(framesA.slice(0, -1)).toEqual(framesB.slice(0, -1))
    const chunks = demoChunks([{ role: 'user', content: question }])
    expect(framesA.slice(0, -1).map((f) => JSON.parse(f.data!).content)).toEqual(chunks)
    for (const chunk of chunks) expect([...chunk].length).toBeGreaterThanOrEqual(1)
    for (const chunk of chunks) expect([...chunk].length).toBeLessThanOrEqual(4)

    const completion = await countTokens(replyA.content)
    const prompt = (await countTokens(question)) + 7
    expect(replyA).toMatchObject({ status: 'complete', promptTokens: prompt, completionTokens: completion, charged: prompt + completion })
    expect(framesA.at(-1)).toEqual({
      id: String(chunks.length + 1),
      event: 'done',
      data: JSON.stringify({
        status: 'complete',
        usage: { promptTokens: prompt, completionTokens: completion, charged: prompt + completion },
        messageId: first.replyId
      })
    })
    expect((await chat.log(accountId)).at(-1)).toEqual({
      kind: 'tokens',
      amount: -(prompt + completion),
      balance: 100000 - 2 * (prompt + completion),
      reason: '对话：灵犀演示模型（离线）'
    })

    // Another question, another answer.
    expect(demoReply([{ role: 'user', content: '今天天气怎么样' }])).not.toBe(replyA.content)
  })

  it('streams at a reading pace and stops at once', async () => {
    await ctx.h.close()
    ctx.h = createHarness(ctx.db, { env: { CHAT_DEMO_DELAY_MS: '25' } })
    const { token } = await chat.user()
    const topic = await chat.topic(token)
    const { requestId, replyId } = (await chat.send(token, topic.topicId, '你好')).body.data
    const startedAt = Date.now()
    const res = await chat.subscribe(token, requestId)
    const early = await readAll(res, (text) => text.split('\n\n').length > 8)
    const elapsed = Date.now() - startedAt
    // Eight chunks at 25 ms each: paced, not all at once.
    expect(elapsed).toBeGreaterThanOrEqual(150)
    expect(parseFrames(early).length).toBeGreaterThanOrEqual(8)
    const stopAt = Date.now()
    const stopped = await chat.post('topic/message/stop', { requestId }, token)
    expect(Date.now() - stopAt).toBeLessThan(500)
    expect(stopped.body.data).toMatchObject({ messageId: replyId, status: 'interrput' })
    const total = demoChunks([{ role: 'user', content: '你好' }]).length
    expect(total * 25).toBeGreaterThan(2000) // a few seconds in all
    expect(stopped.body.data.content.length).toBeLessThan(demoReply([{ role: 'user', content: '你好' }]).length)
  })
})
