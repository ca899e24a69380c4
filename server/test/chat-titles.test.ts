import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { balanceLog, chatTopics } from '../src/db/schema.js'
import { titleFromModel, titleFromQuestion } from '../src/modules/chat/titles.js'
import { type FakeOpenAi, type RecordedRequest, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(async () => {
  await fake.close()
})

let env: Record<string, string> = {}
const ctx = useHarness(() => ({ env: fakeEnv(fake, env) }))
const chat = chatHelpers(ctx)
/** The harness is made before each test (file-level beforeEach): its env is set by the describe around it. */
const withEnv = (e: Record<string, string>) =>
  beforeAll(() => {
    env = e
  })

const isTitleRequest = (r: RecordedRequest) => r.body.messages[0]?.content.includes('标题助手') === true
const topicRow = async (id: string) => (await ctx.db.db.select().from(chatTopics).where(eq(chatTopics.id, id)))[0]!

/** Sends a question and waits for its reply (and the settle hooks) to end. */
async function exchange(token: string, topicId: string, content: string) {
  const sent = await chat.send(token, topicId, content)
  expect(sent.body.code).toBe(2000)
  await ctx.h.chat.idle()
  return sent.body.data
}

describe('titles from the question', () => {
  it('cuts the first line to 20 characters, without markdown', () => {
    expect(titleFromQuestion('  帮我写一首关于春天的诗  ')).toBe('帮我写一首关于春天的诗')
    expect(titleFromQuestion('## 标题\n正文')).toBe('标题')
    expect(titleFromQuestion('```js\nx\n```\n解释这段代码')).toBe('解释这段代码')
    expect([...titleFromQuestion('一二三四五六七八九十一二三四五六七八九十一二三')].length).toBe(20)
    expect(titleFromQuestion('   \n  ')).toBe('')
    expect(titleFromModel('标题：「春天的诗」。\n解释')).toBe('春天的诗')
    expect(titleFromModel('<think>想想</think>"Spring poem"')).toBe('Spring poem')
  })
})

describe('automatic titles', () => {
  withEnv({})
  it('names an unnamed topic after its first exchange, once, and only for the demo default without a title model', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token)
    expect(topic.name).toBe('新对话')
    await exchange(token, topic.topicId, '帮我写一首关于春天的七言绝句，要押韵')
    const titled = await chat.post('topic/title', { topicId: topic.topicId }, token)
    expect(titled.body.data.name).toBe('帮我写一首关于春天的七言绝句，要押韵')
    await exchange(token, topic.topicId, '再来一首关于秋天的')
    expect((await topicRow(topic.topicId)).name).toBe('帮我写一首关于春天的七言绝句，要押韵')
    const list = await chat.post('topic/list', {}, token)
    expect(list.body.data[0].name).toBe('帮我写一首关于春天的七言绝句，要押韵')
  })

  it('never replaces a name given at creation or by a rename; a role topic is named too', async () => {
    const { token } = await chat.user()
    const named = await chat.topic(token, { name: '我的项目' })
    await exchange(token, named.topicId, '你好呀')
    expect((await topicRow(named.topicId)).name).toBe('我的项目')

    const renamed = await chat.topic(token)
    expect((await chat.post('topic/name/edit', { topicId: renamed.topicId, name: '改过的名字' }, token)).body.code).toBe(2000)
    await exchange(token, renamed.topicId, '你好呀')
    expect((await topicRow(renamed.topicId)).name).toBe('改过的名字')

    const role = await chat.topic(token, { roleId: 'mock-interviewer' })
    expect(role.name).toBe('模拟面试官')
    await exchange(token, role.topicId, '我想面试前端工程师')
    expect((await topicRow(role.topicId)).name).toBe('我想面试前端工程师')
  })

  it('a failed reply names nothing; the next complete one does', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script({ kind: 'http-error', status: 500, body: { error: { message: 'boom' } } })
    await exchange(token, topic.topicId, '第一个问题')
    expect((await topicRow(topic.topicId)).titledAt).toBeNull()
    fake.script({ kind: 'stream', chunks: ['好的'], usage: { prompt_tokens: 5, completion_tokens: 1 } })
    await exchange(token, topic.topicId, '第二个问题')
    // The first question names it, as the topic's opening.
    expect((await topicRow(topic.topicId)).name).toBe('第一个问题')
  })

  it("answers another account's or a forged topic with 40400001", async () => {
    const a = await chat.user('13800138000')
    const b = await chat.user('13800138001')
    const topic = await chat.topic(a.token)
    await exchange(a.token, topic.topicId, '秘密问题')
    const other = await chat.post('topic/title', { topicId: topic.topicId }, b.token)
    expect(other.body.code).toBe(40400001)
    expect(JSON.stringify(other.body)).not.toContain('秘密')
    expect((await chat.post('topic/title', { topicId: 'x'.repeat(65) }, a.token)).body.code).toBe(40000001)
    expect((await chat.post('topic/title', { topicId: 'nope' }, a.token)).body.code).toBe(40400001)
  })

  it('two replies settling together name the topic once', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token)
    await Promise.all([chat.send(token, topic.topicId, '并发一'), chat.send(token, topic.topicId, '并发二')])
    await ctx.h.chat.idle()
    const row = await topicRow(topic.topicId)
    expect(['并发一', '并发二']).toContain(row.name)
    expect(row.titledAt).not.toBeNull()
  })
})

describe('titles by CHAT_TITLE_MODEL', () => {
  withEnv({ CHAT_TITLE_MODEL: 'fake-gpt' })
  it('with CHAT_TITLE_MODEL, the model names the topic in the background, free of charge', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script((r) =>
      isTitleRequest(r)
        ? { kind: 'stream', chunks: ['标题：', '「春日', '七绝」。'], delayMs: 30, usage: { prompt_tokens: 50, completion_tokens: 5 } }
        : { kind: 'stream', chunks: ['春眠不觉晓'], usage: { prompt_tokens: 9, completion_tokens: 5 } }
    )
    const before = fake.requests.length
    await exchange(token, topic.topicId, '帮我写一首关于春天的七言绝句')
    // The question's title first; `topic/title` waits for the model's.
    const titled = await chat.post('topic/title', { topicId: topic.topicId }, token)
    expect(titled.body.data.name).toBe('春日七绝')
    const asked = fake.requests.slice(before).filter(isTitleRequest)
    expect(asked).toHaveLength(1)
    expect(asked[0]!.body.model).toBe('fake-gpt')
    expect(asked[0]!.body.messages[1]!.content).toBe('帮我写一首关于春天的七言绝句')
    expect(asked[0]!.body.max_tokens).toBe(40)
    // Only the reply was charged.
    const lines = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.accountId, accountId))
    expect(lines.filter((l) => l.reason.startsWith('对话'))).toHaveLength(1)
  })

  it('a failing title model leaves the question as title and the reply untouched', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script((r) =>
      isTitleRequest(r)
        ? { kind: 'http-error', status: 500, body: { error: { message: 'down' } } }
        : { kind: 'stream', chunks: ['答案'], usage: { prompt_tokens: 9, completion_tokens: 2 } }
    )
    const { replyId } = await exchange(token, topic.topicId, '什么是量子纠缠')
    expect((await chat.reply(replyId)).status).toBe('complete')
    expect((await chat.reply(replyId)).content).toBe('答案')
    const titled = await chat.post('topic/title', { topicId: topic.topicId }, token)
    expect(titled.body.data.name).toBe('什么是量子纠缠')
  })

  it('a rename while the model writes wins over the model', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    let release!: () => void
    const hold = new Promise<void>((r) => (release = r))
    fake.script((r) =>
      isTitleRequest(r)
        ? { kind: 'stream', chunks: ['模型标题'], hold, usage: null }
        : { kind: 'stream', chunks: ['答'], usage: { prompt_tokens: 9, completion_tokens: 1 } }
    )
    await exchange(token, topic.topicId, '问题一')
    expect((await topicRow(topic.topicId)).name).toBe('问题一')
    await chat.post('topic/name/edit', { topicId: topic.topicId, name: '用户的名字' }, token)
    release()
    const titled = await chat.post('topic/title', { topicId: topic.topicId }, token)
    expect(titled.body.data.name).toBe('用户的名字')
    expect((await topicRow(topic.topicId)).titleSource).toBe('user')
  })
})
