import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOpenAiProvider } from '../src/replies/providers/openai.js'
import { loadConfig } from '../src/config.js'
import { createConsoleLogger } from '../src/logger.js'
import { REDACTED } from '../src/redact.js'
import { type Behaviour, type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv, parseFrames, readAll } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

/** A key of no well-known format: redaction by pattern (`sk-…`) cannot find it. */
const KEY = 'abc123-notsk-XYZ789uvw'
const LABEL = 'AI 服务「OpenAI 兼容接口」'

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi({ apiKey: KEY })
})
afterAll(async () => {
  await fake.close()
})

/** Every line the server would print, exactly as the console logger writes it. */
let logLines: string[] = []

const ctx = useHarness(() => {
  const env = fakeEnv(fake, { CHAT_TIMEOUT_MS: '2000', CHAT_IDLE_TIMEOUT_MS: '2000', START_TOKENS: '1000' })
  const config = loadConfig(env)
  logLines = []
  const logger = createConsoleLogger({ config, write: (_stream, line) => logLines.push(line) })
  // The provider as the runtime builds it, with the server's logger (the console logger scrubbing every configured secret).
  const openai = createOpenAiProvider({
    baseUrl: config.chat.openai!.baseUrl,
    apiKey: config.chat.openai!.apiKey,
    firstByteTimeoutMs: config.chat.firstByteTimeoutMs,
    idleTimeoutMs: config.chat.idleTimeoutMs,
    logger
  })
  return { env, chat: { providers: { openai } } }
})
const chat = chatHelpers(ctx)

/** Sends a message on the fake model and returns what the user can see of the reply: its stream and the API's answers. */
async function exchange(behaviour: Behaviour) {
  fake.script(behaviour)
  const { token, accountId } = await chat.user()
  const topic = await chat.topic(token, { model: 'fake-gpt' })
  const sent = await chat.send(token, topic.topicId, '你好')
  expect(sent.body.code).toBe(2000)
  const { requestId, replyId } = sent.body.data
  await ctx.h.chat.idle()
  const stream = await readAll(await chat.subscribe(token, requestId))
  const got = await chat.post('topic/message/get', { messageId: replyId }, token)
  const listed = await chat.post('topic/messages', { topicId: topic.topicId, pageNum: 1, pageSize: 10 }, token)
  return {
    accountId,
    replyId,
    stream,
    frames: parseFrames(stream),
    message: got.body.data,
    seen: stream + JSON.stringify(got.body) + JSON.stringify(listed.body)
  }
}

/** The terminal event of a stream, parsed. */
const last = (frames: { event?: string; data?: string }[]) => ({ event: frames.at(-1)!.event, ...JSON.parse(frames.at(-1)!.data!) })

describe('upstream failures reach users as short safe messages; their detail goes to the log, secrets scrubbed', () => {
  it('an HTTP 401 whose body echoes the key (in no known format): the user sees 鉴权失败 only; the log has the body with the key redacted', async () => {
    const { frames, message, seen } = await exchange({
      kind: 'http-error',
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key'
        }
      }
    })
    expect(last(frames)).toMatchObject({ event: 'error', status: 'error', code: 50200001, message: `${LABEL}鉴权失败，请联系管理员` })
    expect(message).toMatchObject({ status: 'error', content: '' })
    // Nothing of the key, nor of the upstream's words, anywhere the user can read the reply.
    for (const fragment of [KEY, 'abc123', 'XYZ789', 'Incorrect', 'API key', 'platform.openai.com', 'invalid_api_key']) expect(seen).not.toContain(fragment)

    const log = logLines.join('')
    expect(log).not.toContain(KEY)
    expect(log).not.toContain('XYZ789uvw')
    const line = logLines.find((l) => l.includes('AI upstream refused the request'))
    expect(line).toBeDefined()
    expect(line).toContain('"status":401')
    expect(line).toContain(`Incorrect API key provided: ${REDACTED}`)
  })

  it('an error event mid-stream that contains the key: the text so far is kept, the user sees 在回答中途出错 only; the log has the detail redacted', async () => {
    const { frames, message, seen } = await exchange({
      kind: 'stream',
      chunks: ['第一段', '第二段', '第三段'],
      errorAfter: 2,
      error: { message: `upstream channel failed (key ${KEY}) (request id: 2024)`, type: 'one_api_error', param: null, code: 'do_request_failed' }
    })
    expect(frames.slice(0, -1).map((f) => f.data)).toEqual(['{"content":"第一段"}', '{"content":"第二段"}'])
    expect(last(frames)).toMatchObject({ event: 'error', status: 'error', code: 50200001, message: `${LABEL}在回答中途出错，回答不完整` })
    expect(message).toMatchObject({ status: 'error', content: '第一段第二段' })
    for (const fragment of [KEY, 'abc123', 'XYZ789', 'upstream channel', 'request id', 'do_request_failed']) expect(seen).not.toContain(fragment)

    const log = logLines.join('')
    expect(log).not.toContain(KEY)
    const line = logLines.find((l) => l.includes('AI upstream failed mid-stream'))
    expect(line).toContain(`upstream channel failed (key ${REDACTED}) (request id: 2024)`)
  })

  it('a JSON error object answered with status 200: a safe error like any other, nothing of its text shown', async () => {
    const { frames, seen } = await exchange({
      kind: 'raw',
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } })
    })
    expect(last(frames)).toMatchObject({ event: 'error', status: 'error', code: 50200001, message: `${LABEL}鉴权失败，请联系管理员` })
    expect(seen).not.toContain(KEY)
    expect(seen).not.toContain('Incorrect')
    expect(logLines.join('')).not.toContain(KEY)
    expect(logLines.find((l) => l.includes('AI upstream refused the request'))).toContain(`Incorrect API key provided: ${REDACTED}`)
  })

  const SECRET_TEXT = 'secret upstream words 机密'
  it.each([
    [403, 'permission_denied', 'error', 50200001, `${LABEL}鉴权失败，请联系管理员`],
    [403, 'insufficient_user_quota', 'error', 50200001, `${LABEL}的额度已用完，请联系管理员`],
    [429, 'rate_limit_exceeded', 'error', 50200001, `${LABEL}繁忙，请稍后重试`],
    [400, 'context_length_exceeded', 'error', 50200001, '对话内容超出了模型能处理的长度，请新建话题，或关闭上下文后重试'],
    [400, 'content_policy_violation', 'error', 50200001, `内容未通过${LABEL}的安全审核，请修改后重试`],
    [400, null, 'error', 50200001, `请求被${LABEL}拒绝（HTTP 400）`],
    [404, 'model_not_found', 'error', 50200001, `${LABEL}没有这个模型，请联系管理员`],
    [503, null, 'error', 50200001, `${LABEL}暂时不可用，请稍后重试`],
    [504, null, 'timeout', 50400001, `${LABEL}响应超时，请稍后重试`]
  ])('HTTP %i with code %s: status %s, code %i, "%s", nothing of the upstream text', async (status, code, final, errorCode, text) => {
    const { frames, seen, accountId } = await exchange({
      kind: 'http-error',
      status,
      body: { error: { message: SECRET_TEXT, type: 'new_api_error', param: null, code } }
    })
    expect(last(frames)).toMatchObject({ event: 'error', status: final, code: errorCode, message: text })
    expect(seen).not.toContain('secret upstream words')
    expect(seen).not.toContain('机密')
    expect(await chat.balance(accountId)).toBe(1000)
    expect(logLines.find((l) => l.includes('AI upstream refused the request'))).toContain(SECRET_TEXT)
  })
})

describe('upstream answers in every shape the protocol allows', () => {
  it('an event stream whose lines end with a bare CR streams the whole answer', async () => {
    const { frames, message } = await exchange({
      kind: 'stream',
      chunks: ['你好', '，', '世界'],
      reasoning: ['想'],
      usage: { prompt_tokens: 9, completion_tokens: 4 },
      lineEnd: '\r',
      comment: true
    })
    expect(frames.map((f) => f.data).slice(0, -1)).toEqual(['{"thinking":"想"}', '{"content":"你好"}', '{"content":"，"}', '{"content":"世界"}'])
    expect(last(frames)).toMatchObject({ event: 'done', status: 'complete', usage: { promptTokens: 9, completionTokens: 4, charged: 13 } })
    expect(message).toMatchObject({ status: 'complete', content: '你好，世界' })
  })

  it('an event stream with CRLF line ends whose CR and LF arrive in separate reads: one line end, not two', async () => {
    const { frames, message } = await exchange({
      kind: 'stream',
      chunks: ['一', '二'],
      usage: { prompt_tokens: 3, completion_tokens: 2 },
      lineEnd: '\r\n',
      splitCrLf: true
    })
    expect(frames.map((f) => f.data).slice(0, -1)).toEqual(['{"content":"一"}', '{"content":"二"}'])
    expect(last(frames)).toMatchObject({ event: 'done', status: 'complete', usage: { promptTokens: 3, completionTokens: 2, charged: 5 } })
    expect(message).toMatchObject({ status: 'complete', content: '一二' })
  })

  it('a server that ignores stream: true and answers one JSON completion: content, thinking and usage as from a stream', async () => {
    const { frames, accountId, replyId } = await exchange({
      kind: 'completion',
      content: '答案是 42',
      reasoning: '先想一想',
      usage: { prompt_tokens: 11, completion_tokens: 6 }
    })
    expect(frames.map((f) => f.data).slice(0, -1)).toEqual(['{"thinking":"先想一想"}', '{"content":"答案是 42"}'])
    expect(last(frames)).toMatchObject({ event: 'done', status: 'complete', usage: { promptTokens: 11, completionTokens: 6, charged: 17 } })
    expect(await chat.reply(replyId)).toMatchObject({
      status: 'complete',
      content: '答案是 42',
      thinking: '先想一想',
      promptTokens: 11,
      completionTokens: 6,
      charged: 17
    })
    expect(await chat.balance(accountId)).toBe(1000 - 17)
  })

  it.each(['text/event-stream', 'text/plain; charset=utf-8'])('a JSON completion sent as %s is still read as one', async (contentType) => {
    const { replyId } = await exchange({ kind: 'completion', content: '你好', usage: { prompt_tokens: 2, completion_tokens: 1 }, contentType })
    expect(await chat.reply(replyId)).toMatchObject({ status: 'complete', content: '你好', promptTokens: 2, completionTokens: 1 })
  })

  it('an HTML page with status 200 (a proxy or portal in the way): a safe error saying the answer was not understood', async () => {
    const { frames, seen } = await exchange({
      kind: 'raw',
      status: 200,
      contentType: 'text/html',
      body: '<html><body>Welcome to nginx! secret upstream words</body></html>'
    })
    expect(last(frames)).toMatchObject({ event: 'error', status: 'error', code: 50200001, message: `${LABEL}返回了无法识别的内容` })
    expect(seen).not.toContain('nginx')
    expect(logLines.find((l) => l.includes('neither a stream nor a completion'))).toContain('Welcome to nginx!')
  })
})
