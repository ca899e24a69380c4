import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { upstreamChannels } from '../src/db/schema.js'
import { encryptKey } from '../src/replies/channels-crypto.js'
import { DASHSCOPE_INSPECTION_FAILED, dashscopeStream, deepseekStream } from './fakes/cn-upstreams.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv, parseFrames, readAll } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

// DeepSeek and Qwen (DashScope's compatible mode) through the real path: HTTP to a loopback
// upstream, the OpenAI-compatible provider, the channel, the runtime, the charge.

const SECRET = Buffer.alloc(32, 3)
const ZHIPU_KEY = 'zhipu-key.abcdef123456'
let fake: FakeOpenAi
/** Zhipu's path is /api/paas/v4/chat/completions: its base names its API version (v4, not v1). */
let zhipu: Server
let zhipuUrl: string
const zhipuSeen: string[] = []
beforeAll(async () => {
  fake = await startFakeOpenAi()
  zhipu = createServer((req, res) => {
    zhipuSeen.push(`${req.method} ${req.url} ${req.headers.authorization}`)
    req.resume()
    if (req.url !== '/api/paas/v4/chat/completions') return res.writeHead(404).end()
    res.writeHead(200, { 'Content-Type': 'text/event-stream' })
    const frame = (delta: object, extra: object = {}) =>
      `data: ${JSON.stringify({ id: '2025', created: 1737000000, model: 'glm-4-flash', choices: [{ index: 0, delta, ...extra }] })}\n\n`
    res.end(
      frame({ role: 'assistant', content: '我是' }) +
        frame({ role: 'assistant', content: 'GLM' }) +
        `data: ${JSON.stringify({ id: '2025', created: 1737000000, model: 'glm-4-flash', choices: [{ index: 0, finish_reason: 'stop', delta: { role: 'assistant', content: '' } }], usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 } })}\n\n` +
        'data: [DONE]\n\n'
    )
  })
  await new Promise<void>((resolve) => zhipu.listen(0, '127.0.0.1', resolve))
  zhipuUrl = `http://127.0.0.1:${(zhipu.address() as { port: number }).port}/api/paas/v4`
})
afterAll(async () => {
  await fake.close()
  await new Promise<void>((resolve) => zhipu.close(() => resolve()))
})

const ctx = useHarness(() => ({ env: fakeEnv(fake, { START_TOKENS: '1000', CHANNEL_SECRET_KEY: SECRET.toString('hex') }) }))
const chat = chatHelpers(ctx)

async function exchange(model = 'fake-gpt') {
  const { token, accountId } = await chat.user()
  const topic = await chat.topic(token, { model })
  const sent = await chat.send(token, topic.topicId)
  expect(sent.body.code).toBe(2000)
  await ctx.h.chat.idle()
  const frames = parseFrames(await readAll(await chat.subscribe(token, sent.body.data.requestId)))
  return { accountId, frames, reply: await chat.reply(sent.body.data.replyId) }
}

describe('models popular in China, with their quirks', () => {
  it('DeepSeek: thinking from reasoning_content, the answer after it, and the usage of the last frame billed', async () => {
    fake.script({
      kind: 'raw',
      status: 200,
      contentType: 'text/event-stream; charset=utf-8',
      body: deepseekStream({ reasoning: ['用户', '在打招呼'], content: ['你好', '！'], usage: { prompt_tokens: 11, completion_tokens: 40 } })
    })
    const { accountId, frames, reply } = await exchange()
    expect(reply).toMatchObject({ status: 'complete', thinking: '用户在打招呼', content: '你好！', promptTokens: 11, completionTokens: 40, charged: 51 })
    expect(frames.map((f) => f.data).slice(0, 4)).toEqual(['{"thinking":"用户"}', '{"thinking":"在打招呼"}', '{"content":"你好"}', '{"content":"！"}'])
    expect(await chat.balance(accountId)).toBe(1000 - 51)
  })

  it('Qwen (DashScope compatible mode): usage null in every frame but the last, whose choices are empty', async () => {
    fake.script({
      kind: 'raw',
      status: 200,
      contentType: 'text/event-stream;charset=UTF-8',
      body: dashscopeStream({ reasoning: ['想一想'], content: ['我是', '通义千问'], usage: { prompt_tokens: 20, completion_tokens: 9 } })
    })
    const { accountId, reply } = await exchange()
    expect(reply).toMatchObject({ status: 'complete', thinking: '想一想', content: '我是通义千问', promptTokens: 20, completionTokens: 9, charged: 29 })
    expect(await chat.balance(accountId)).toBe(1000 - 29)
  })

  it('Qwen (DashScope): data_inspection_failed is told as a content-safety refusal, free of charge', async () => {
    fake.script({ kind: 'http-error', status: 400, body: DASHSCOPE_INSPECTION_FAILED })
    const { accountId, reply } = await exchange()
    expect(reply).toMatchObject({ status: 'error', charged: 0, errorMessage: '内容未通过AI 服务「OpenAI 兼容接口」的安全审核，请修改后重试' })
    expect(await chat.balance(accountId)).toBe(1000)
  })

  it('Zhipu: a base URL that names its API version (…/api/paas/v4) is called as is, with the usage of its last frame', async () => {
    const at = new Date()
    await ctx.db.db.insert(upstreamChannels).values({
      name: '智谱',
      baseUrl: zhipuUrl,
      keys: [encryptKey(SECRET, ZHIPU_KEY)],
      keyHints: ['3456'],
      models: ['glm-4-flash'],
      createdAt: at,
      updatedAt: at
    })
    await ctx.h.chat.channels!.reload()
    const { reply } = await exchange('glm-4-flash')
    expect(reply).toMatchObject({ status: 'complete', content: '我是GLM', promptTokens: 7, completionTokens: 2, charged: 9 })
    expect(zhipuSeen).toEqual([`POST /api/paas/v4/chat/completions Bearer ${ZHIPU_KEY}`])
  })
})
