import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countTokens } from '../src/replies/context.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv, parseFrames, readAll } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(async () => {
  await fake.close()
})

const ctx = useHarness(() => ({ env: fakeEnv(fake, { CHAT_TIMEOUT_MS: '400', CHAT_IDLE_TIMEOUT_MS: '400', START_TOKENS: '1000' }) }))
const chat = chatHelpers(ctx)

/** Sends "你好" on the fake model, waits for the reply to end, and returns it with its stream. */
async function exchange(content = '你好') {
  const { token, accountId } = await chat.user()
  const topic = await chat.topic(token, { model: 'fake-gpt' })
  const sent = await chat.send(token, topic.topicId, content)
  expect(sent.body.code).toBe(2000)
  await ctx.h.chat.idle()
  const frames = parseFrames(await readAll(await chat.subscribe(token, sent.body.data.requestId)))
  return { token, accountId, topic, ...sent.body.data, reply: await chat.reply(sent.body.data.replyId), frames }
}

describe('OpenAI-compatible provider against the fake upstream', () => {
  it('streams a normal answer, bills the upstream usage at the model price, and logs it in the same transaction', async () => {
    fake.script({ kind: 'stream', chunks: ['你好', '，', '世界'], usage: { prompt_tokens: 9, completion_tokens: 3 } })
    const { accountId, reply, frames, replyId } = await exchange()

    const request = fake.requests.at(-1)!
    expect(request.headers.authorization).toBe(`Bearer ${fake.apiKey}`)
    expect(request.body).toMatchObject({
      model: 'fake-gpt',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.7,
      messages: [{ role: 'user', content: '你好' }]
    })
    expect(reply).toMatchObject({ status: 'complete', content: '你好，世界', thinking: null, promptTokens: 9, completionTokens: 3, cost: 12, charged: 12 })
    expect(frames.map((f) => [f.id, f.event, f.data])).toEqual([
      ['1', 'delta', '{"content":"你好"}'],
      ['2', 'delta', '{"content":"，"}'],
      ['3', 'delta', '{"content":"世界"}'],
      ['4', 'done', `{"status":"complete","usage":{"promptTokens":9,"completionTokens":3,"charged":12},"messageId":"${replyId}"}`]
    ])
    expect(await chat.balance(accountId)).toBe(988)
    expect((await chat.log(accountId)).at(-1)).toEqual({ kind: 'tokens', amount: -12, balance: 988, reason: '对话：fake-gpt' })
  })

  // The upstream's own text never reaches the user (it may echo the key): our message names the class of the problem.
  it.each([
    [
      500,
      { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } },
      'AI 服务「OpenAI 兼容接口」暂时不可用，请稍后重试'
    ],
    [
      429,
      { error: { message: '当前分组上游负载已饱和，请稍后再试 (request id: 2024)', type: 'new_api_error', param: null, code: 'insufficient_user_quota' } },
      'AI 服务「OpenAI 兼容接口」的额度已用完，请联系管理员'
    ]
  ])('an HTTP %i before streaming ends the reply as error 50200001, naming the upstream, and costs nothing', async (status, body, message) => {
    fake.script({ kind: 'http-error', status, body })
    const { accountId, reply, frames, replyId } = await exchange()
    expect(reply).toMatchObject({ status: 'error', content: '', errorCode: 50200001, errorMessage: message, charged: 0 })
    expect(frames).toEqual([{ id: '1', event: 'error', data: JSON.stringify({ status: 'error', code: 50200001, message, messageId: replyId }) }])
    expect(await chat.balance(accountId)).toBe(1000)
    expect((await chat.log(accountId)).filter((l) => l.amount < 0)).toEqual([])
  })

  it('never passes a key to the browser, even inside an upstream error', async () => {
    fake.script({ kind: 'http-error', status: 401, body: { error: { message: 'Incorrect API key provided: sk-abcdef123456789. You can find your key at …' } } })
    const { reply } = await exchange()
    expect(reply.errorMessage).toBe('AI 服务「OpenAI 兼容接口」鉴权失败，请联系管理员')
    expect(reply.errorMessage).not.toContain('abcdef123456789')
  })

  it("a stream cut mid-way (no [DONE]) ends as error, keeps what arrived, and charges nothing (an upstream fault is not the user's)", async () => {
    fake.script({ kind: 'stream', chunks: ['第一段', '第二段', '第三段', '第四段'], cutAfter: 2 })
    const { accountId, reply, frames, replyId } = await exchange()
    const completion = await countTokens('第一段第二段')
    expect(reply).toMatchObject({
      status: 'error',
      content: '第一段第二段',
      errorCode: 50200001,
      errorMessage: 'AI 服务「OpenAI 兼容接口」的连接中断，回答不完整',
      completionTokens: completion,
      cost: 0,
      charged: 0,
      held: 0
    })
    expect(frames.at(-1)).toEqual({
      id: '3',
      event: 'error',
      data: JSON.stringify({ status: 'error', code: 50200001, message: 'AI 服务「OpenAI 兼容接口」的连接中断，回答不完整', messageId: replyId })
    })
    expect(await chat.balance(accountId)).toBe(1000)
    expect((await chat.log(accountId)).filter((l) => l.amount < 0)).toEqual([])
  })

  it('without a usage chunk, counts prompt and completion with gpt-tokenizer', async () => {
    fake.script({ kind: 'stream', chunks: ['Hello', ' world', '!'], usage: null, comment: true })
    const { reply } = await exchange('Say hello')
    const completion = await countTokens('Hello world!')
    // One user message: its tokens + 4 for the message + 3 for the reply priming.
    const prompt = (await countTokens('Say hello')) + 4 + 3
    expect(reply).toMatchObject({
      status: 'complete',
      content: 'Hello world!',
      promptTokens: prompt,
      completionTokens: completion,
      charged: prompt + completion
    })
  })

  it('keeps reasoning_content apart as thinking, and streams it as thinking deltas', async () => {
    fake.script({ kind: 'stream', reasoning: ['先想', '一想'], chunks: ['答案是 42'], usage: { prompt_tokens: 5, completion_tokens: 7 } })
    const { reply, frames } = await exchange()
    expect(reply).toMatchObject({ status: 'complete', content: '答案是 42', thinking: '先想一想', charged: 12 })
    expect(frames.slice(0, 3).map((f) => f.data)).toEqual(['{"thinking":"先想"}', '{"thinking":"一想"}', '{"content":"答案是 42"}'])
  })

  it('no first byte within CHAT_TIMEOUT_MS: timeout 50400001, nothing billed, upstream request ended', async () => {
    fake.script({ kind: 'silent' })
    const { accountId, reply, frames, replyId } = await exchange()
    const message = 'AI 服务「OpenAI 兼容接口」响应超时：400 毫秒内没有返回内容'
    expect(reply).toMatchObject({ status: 'timeout', content: '', errorCode: 50400001, errorMessage: message, charged: 0 })
    expect(frames).toEqual([{ id: '1', event: 'error', data: JSON.stringify({ status: 'timeout', code: 50400001, message, messageId: replyId }) }])
    await fake.requests.at(-1)!.closed
    expect(fake.requests.at(-1)!.abortedAt).toBeDefined()
    expect(await chat.balance(accountId)).toBe(1000)
  })

  it('no progress within CHAT_IDLE_TIMEOUT_MS: timeout, keeping what arrived, free of charge', async () => {
    fake.script({ kind: 'stream', chunks: ['半句', '话', '没说完'], hangAfter: 2 })
    const { reply } = await exchange()
    expect(reply).toMatchObject({ status: 'timeout', content: '半句话', errorCode: 50400001 })
    expect(reply.errorMessage).toBe('AI 服务「OpenAI 兼容接口」响应超时：超过 400 毫秒没有新内容')
    // A timeout is the upstream's fault: what arrived stays, nothing is charged.
    expect(reply).toMatchObject({ charged: 0, held: 0 })
  })

  it('an unreachable upstream ends the reply as error 50200001', async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as { port: number }).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    await ctx.h.close()
    const { createHarness } = await import('./helpers/harness.js')
    ctx.h = createHarness(ctx.db, { env: fakeEnv(fake, { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` }) })
    const { reply } = await exchange()
    expect(reply).toMatchObject({ status: 'error', errorCode: 50200001, errorMessage: '无法连接 AI 服务「OpenAI 兼容接口」，请稍后重试', charged: 0 })
  })

  it('saves the growing reply while it streams, at a bounded rate', async () => {
    fake.script({ kind: 'stream', chunks: Array.from({ length: 30 }, (_, i) => `${i},`), delayMs: 30 })
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const { replyId } = (await chat.send(token, topic.topicId, '数数')).body.data
    await new Promise((resolve) => setTimeout(resolve, 750))
    const midway = await chat.reply(replyId)
    expect(midway.status).toBe('streaming')
    expect(midway.content).toMatch(/^0,1,/)
    expect(midway.content.length).toBeLessThan('0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,'.length)
    const seen = (await chat.post('topic/message/get', { messageId: replyId }, token)).body.data
    expect(seen).toMatchObject({ status: 'streaming', usage: null })
    expect(seen.content.startsWith(midway.content.slice(0, 4))).toBe(true)
    await ctx.h.chat.idle()
    expect((await chat.reply(replyId)).content).toBe(Array.from({ length: 30 }, (_, i) => `${i},`).join(''))
  })

  it('stops within 500 ms: the upstream request is aborted and the reply ends as interrput, billed for what it produced', async () => {
    fake.script({ kind: 'stream', chunks: Array.from({ length: 200 }, (_, i) => `片段${i} `), delayMs: 40 })
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const { requestId, replyId } = (await chat.send(token, topic.topicId, '讲个长故事')).body.data
    const stream = chat.subscribe(token, requestId).then((res) => readAll(res))
    // Let a few deltas arrive first.
    const upstream = () => fake.requests.at(-1)!
    await new Promise((resolve) => setTimeout(resolve, 300))
    const started = Date.now()
    const stopped = await chat.post('topic/message/stop', { requestId }, token)
    const answered = Date.now() - started
    expect(stopped.body.code).toBe(2000)
    expect(stopped.body.data).toMatchObject({ messageId: replyId, status: 'interrput', requestId })
    expect(answered).toBeLessThan(500)
    await upstream().closed
    expect(upstream().abortedAt).toBeDefined()
    expect(upstream().abortedAt! - started).toBeLessThan(500)

    const frames = parseFrames(await stream)
    expect(frames.at(-1)).toEqual({ id: String(frames.length), event: 'stopped', data: JSON.stringify({ status: 'interrput', messageId: replyId }) })
    const reply = await chat.reply(replyId)
    expect(reply.content).toBe(
      frames
        .slice(0, -1)
        .map((f) => JSON.parse(f.data!).content)
        .join('')
    )
    expect(reply.content.length).toBeGreaterThan(0)
    expect(reply.charged).toBe(reply.promptTokens! + reply.completionTokens!)
    expect(await chat.balance(accountId)).toBe(1000 - reply.charged!)

    // Stopping again answers the final state; charging happened once.
    const again = await chat.post('topic/message/stop', { requestId }, token)
    expect(again.body.data).toMatchObject({ status: 'interrput' })
    expect((await chat.log(accountId)).filter((l) => l.amount < 0)).toHaveLength(1)
  })
})
