import { randomUUID } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accounts, chatMessages, chatRoles, chatTopics } from '../src/db/schema.js'
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

const ctx = useHarness(() => ({ env: fakeEnv(fake) }))
const chat = chatHelpers(ctx)

/** Every chat row, so a refused request can be shown to have changed nothing. */
async function chatState() {
  const db = ctx.db.db
  return {
    topics: await db.select().from(chatTopics).orderBy(asc(chatTopics.seq)),
    messages: await db.select().from(chatMessages).orderBy(asc(chatMessages.seq)),
    roles: await db.select().from(chatRoles).orderBy(asc(chatRoles.seq)),
    base: await ctx.h.snapshot()
  }
}

describe('topics', () => {
  it('creates a topic with the configured defaults, and one from a role with its welcome message', async () => {
    const { token } = await chat.user()
    const plain = await chat.post('topic/create', {}, token)
    expect(plain.body.data).toEqual({
      topicId: expect.any(String),
      name: '新对话',
      topFlag: 0,
      updateTime: ctx.h.clock.now(),
      createTime: ctx.h.clock.now(),
      chatType: 30,
      oldChatType: null,
      oldTopicIndex: null,
      roleId: null,
      roleName: null,
      roleAvatar: null,
      model: 'lingxi-demo',
      temperature: 0.7,
      contextEnabled: 1
    })
    const role = await chat.post('topic/create', { roleId: 'mock-interviewer', model: 'fake-gpt' }, token)
    expect(role.body.data).toMatchObject({ name: '模拟面试官', roleId: 'mock-interviewer', roleName: '模拟面试官', roleAvatar: '👔', model: 'fake-gpt' })
    const messages = await chat.post('topic/messages', { topicId: role.body.data.topicId, pageNum: 1, pageSize: 10 }, token)
    expect(messages.body.data.total).toBe(1)
    expect(messages.body.data.list[0]).toMatchObject({ role: 'assistant', status: 'complete', requestId: null, usage: null })
    expect(messages.body.data.list[0].content).toContain('我是模拟面试官')

    // The role's prompt goes first upstream.
    fake.script({ kind: 'stream', chunks: ['好的'] })
    await chat.send(token, role.body.data.topicId, '我想面试前端工程师')
    await ctx.h.chat.idle()
    const sent = fake.requests.at(-1)!.body.messages
    expect(sent[0]!.role).toBe('system')
    expect(sent[0]!.content).toContain('资深面试官')
    expect(sent.at(-1)).toEqual({ role: 'user', content: '我想面试前端工程师' })
  })

  it('lists pinned topics first, then the most recently updated; edits names, configs, pin and context', async () => {
    const { token } = await chat.user()
    const a = await chat.topic(token, { name: 'A' })
    ctx.h.clock.advance(1000)
    const b = await chat.topic(token, { name: 'B' })
    ctx.h.clock.advance(1000)
    const c = await chat.topic(token, { name: 'C' })
    const names = async () => (await chat.post('topic/list', {}, token)).body.data.map((t: { name: string }) => t.name)
    expect(await names()).toEqual(['C', 'B', 'A'])

    ctx.h.clock.advance(1000)
    expect((await chat.post('topic/top/switch', { topicId: a.topicId }, token)).body.data.topFlag).toBe(1)
    expect(await names()).toEqual(['A', 'C', 'B'])
    const renamed = await chat.post('topic/name/edit', { topicId: b.topicId, name: '  改名了  ' }, token)
    expect(renamed.body.data).toMatchObject({ name: '改名了', updateTime: ctx.h.clock.now() })
    expect(await names()).toEqual(['A', '改名了', 'C'])
    expect((await chat.post('topic/top/switch', { topicId: a.topicId }, token)).body.data.topFlag).toBe(0)

    const saved = await chat.post('topic/configs/save', { topicId: c.topicId, model: 'fake-gpt', temperature: 1.2, contextEnabled: 0 }, token)
    expect(saved.body.data).toMatchObject({ model: 'fake-gpt', temperature: 1.2, contextEnabled: 0 })
    expect((await chat.post('topic/configs/context/switch', { topicId: c.topicId }, token)).body.data.contextEnabled).toBe(1)
    expect((await chat.post('topic/configs/context/switch', { topicId: c.topicId }, token)).body.data.contextEnabled).toBe(0)

    expect((await chat.post('topic/del', { topicId: c.topicId }, token)).body).toEqual({ code: 2000, message: '操作成功', data: null })
    expect(await names()).toEqual(['改名了', 'A'])
  })

  it('refuses bad input with the documented code, naming the field, and changes nothing', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token)
    fake.script({ kind: 'stream', chunks: ['好'] })
    const { replyId, messageId } = (await chat.send(token, topic.topicId, '你好')).body.data
    await ctx.h.chat.idle()
    const before = await chatState()
    const t = topic.topicId
    const cases: [string, unknown, number, string][] = [
      ['topic/create', { name: 'x'.repeat(51) }, 40000001, 'name 不能超过 50 个字符'],
      ['topic/create', { model: 'gpt-9' }, 40000001, '模型「gpt-9」不可用，请重新选择模型'],
      ['topic/create', { roleId: 'no-such-role' }, 40400001, '角色不存在或已删除'],
      ['topic/create', { name: 5 }, 40000001, 'name 格式不正确'],
      ['topic/configs/save', { topicId: t, temperature: 3 }, 40000001, 'temperature 不能大于 2'],
      ['topic/configs/save', { topicId: t, temperature: 'hot' }, 40000001, 'temperature 必须是数字'],
      ['topic/configs/save', { topicId: t, contextEnabled: 2 }, 40000001, 'contextEnabled 只能是 0 或 1'],
      ['topic/configs/save', { topicId: t, model: 'gpt-9' }, 40000001, '模型「gpt-9」不可用，请重新选择模型'],
      ['topic/configs/save', { topicId: 'nope' }, 40400001, '对话不存在或已删除'],
      ['topic/configs/save', {}, 40000001, 'topicId 不能为空'],
      ['topic/name/edit', { topicId: t, name: '   ' }, 40000001, 'name 不能为空'],
      ['topic/name/edit', { topicId: t, name: '名'.repeat(51) }, 40000001, 'name 不能超过 50 个字符'],
      ['topic/top/switch', { topicId: 'nope' }, 40400001, '对话不存在或已删除'],
      ['topic/del', { topicId: 'nope' }, 40400001, '对话不存在或已删除'],
      ['topic/message/send', { topicId: t, content: '' }, 40000001, 'content 不能为空'],
      ['topic/message/send', { topicId: t, content: ' \n ' }, 40000001, 'content 不能为空'],
      ['topic/message/send', { topicId: t }, 40000001, 'content 不能为空'],
      ['topic/message/send', { topicId: t, content: 42 }, 40000001, 'content 格式不正确'],
      ['topic/message/send', { topicId: t, content: '长'.repeat(20_001) }, 40000001, 'content 不能超过 20000 个字符'],
      ['topic/message/send', { topicId: t, content: '你好', requestId: 'abc' }, 40000001, 'requestId 必须是 UUID'],
      ['topic/message/send', { topicId: 'nope', content: '你好' }, 40400001, '对话不存在或已删除'],
      ['topic/messages', { topicId: t, pageNum: 0, pageSize: 10 }, 40000001, 'pageNum 不能小于 1'],
      ['topic/messages', { topicId: t, pageNum: 1, pageSize: 101 }, 40000001, 'pageSize 不能大于 100'],
      ['topic/messages', { topicId: t, pageNum: 1.5, pageSize: 10 }, 40000001, 'pageNum 必须是整数'],
      ['topic/message/get', { messageId: 'nope' }, 40400001, '消息不存在或已删除'],
      ['topic/message/del', { messageId: 'nope' }, 40400001, '消息不存在或已删除'],
      ['topic/message/clear', { topicId: 'nope' }, 40400001, '对话不存在或已删除'],
      ['topic/message/stop', { requestId: randomUUID() }, 40400001, '请求不存在或已删除'],
      ['topic/message/stop', {}, 40000001, 'requestId 不能为空'],
      ['topic/message/regenerate', { replyId: messageId }, 40000001, 'replyId 不是助手的回复'],
      ['topic/message/regenerate', { replyId: 'nope' }, 40400001, '消息不存在或已删除']
    ]
    for (const [path, body, code, message] of cases) {
      const res = await chat.post(path, body, token)
      expect(res.body, `${path} ${JSON.stringify(body).slice(0, 60)}`).toEqual({ code, message, data: null })
      expect(res.status).toBe(code === 40400001 ? 404 : 400)
    }
    const broken = await ctx.h.post('/api/v1/ai-chat/topic/message/send', '{"topicId":', { token })
    expect(broken.body.code).toBe(40000002)
    expect(await chatState()).toEqual(before)
    expect(replyId).toBeTruthy()
  })

  it("refuses another account's topics, messages and requests with 40400001, and changes nothing", async () => {
    const owner = await chat.user()
    const topic = await chat.topic(owner.token)
    fake.script({ kind: 'stream', chunks: ['秘密'] })
    const { requestId, messageId, replyId } = (await chat.send(owner.token, topic.topicId, '只给我看')).body.data
    await ctx.h.chat.idle()
    const before = await chatState()
    const intruder = await chat.user('13900139000')
    const t = topic.topicId
    const cases: [string, unknown][] = [
      ['topic/configs/save', { topicId: t, temperature: 1 }],
      ['topic/configs/context/switch', { topicId: t }],
      ['topic/top/switch', { topicId: t }],
      ['topic/name/edit', { topicId: t, name: '我的了' }],
      ['topic/del', { topicId: t }],
      ['topic/messages', { topicId: t, pageNum: 1, pageSize: 10 }],
      ['topic/message/send', { topicId: t, content: '插一句' }],
      ['topic/message/clear', { topicId: t }],
      ['topic/message/get', { messageId }],
      ['topic/message/get', { messageId: replyId }],
      ['topic/message/del', { messageId }],
      ['topic/message/regenerate', { replyId }],
      ['topic/message/stop', { requestId }]
    ]
    for (const [path, body] of cases) {
      const res = await chat.post(path, body, intruder.token)
      expect(res.status, path).toBe(404)
      expect(res.body.code, path).toBe(40400001)
      expect(JSON.stringify(res.body)).not.toContain('秘密')
    }
    // A requestId chosen to collide with another account's is just a new request of the intruder's own.
    const own = await chat.topic(intruder.token)
    const collide = await chat.send(intruder.token, own.topicId, '撞个 id', { requestId })
    expect(collide.body.code).toBe(2000)
    expect(collide.body.data.replyId).not.toBe(replyId)
    await ctx.h.chat.idle()
    const after = await chatState()
    expect(after.topics.filter((row) => row.accountId === owner.accountId)).toEqual(before.topics)
    expect(after.messages.filter((row) => row.accountId === owner.accountId)).toEqual(before.messages)
    expect((await chat.post('topic/list', {}, intruder.token)).body.data.map((x: { topicId: string }) => x.topicId)).toEqual([own.topicId])
  })

  it('needs the AI_TOOLS_CHAT permission (role-play also takes AI_TOOLS_ROLE; reply streams also role and hot news)', async () => {
    const { token, accountId } = await chat.user()
    await ctx.db.db
      .update(accounts)
      .set({ permissionCodes: ['AI_TOOLS_ROLE'] })
      .where(eq(accounts.id, accountId))
    await ctx.h.accountChanged(accountId)
    expect((await chat.post('topic/list', {}, token)).body).toEqual({ code: 40300001, message: '您没有使用「AI对话」的权限', data: null })
    // Reply streams serve role chat (and hot news' AI 解读) too: an unknown id is simply not found.
    expect((await chat.subscribe(token, randomUUID())).status).toBe(404)
    expect((await chat.post('role-play/tag/list', {}, token)).body.code).toBe(2000)
    await ctx.db.db
      .update(accounts)
      .set({ permissionCodes: ['AI_TOOLS_MUSIC'] })
      .where(eq(accounts.id, accountId))
    await ctx.h.accountChanged(accountId)
    expect((await chat.post('role-play/list', {}, token)).body).toEqual({ code: 40300001, message: '您没有使用「角色库」的权限', data: null })
    expect((await chat.subscribe(token, randomUUID())).status).toBe(403)
    expect((await ctx.h.app.request('/api/v1/ai-chat/sse/subscribe', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200)
  })
})

describe('messages', () => {
  it('pages newest first, gets, deletes and clears messages', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script((request) => ({ kind: 'stream', chunks: [`答：${request.body.messages.at(-1)!.content}`] }))
    for (const q of ['一', '二', '三']) {
      await chat.send(token, topic.topicId, q)
      await ctx.h.chat.idle()
    }
    const page = await chat.post('topic/messages', { topicId: topic.topicId, pageNum: 1, pageSize: 4 }, token)
    expect(page.body.data).toMatchObject({ total: 6, pageNum: 1, pageSize: 4 })
    expect(page.body.data.list.map((m: { content: string }) => m.content)).toEqual(['答：三', '三', '答：二', '二'])
    const reply = page.body.data.list[0]
    expect(reply).toEqual({
      messageId: expect.any(String),
      topicId: topic.topicId,
      role: 'assistant',
      content: '答：三',
      thinking: null,
      status: 'complete',
      requestId: expect.any(String),
      errorCode: null,
      errorMessage: null,
      model: 'fake-gpt',
      createTime: expect.any(Number),
      usage: { promptTokens: 10, completionTokens: 1, charged: 11 }
    })
    // History went upstream, oldest first.
    expect(fake.requests.at(-1)!.body.messages.map((m) => m.content)).toEqual(['一', '答：一', '二', '答：二', '三'])
    const second = await chat.post('topic/messages', { topicId: topic.topicId, pageNum: 2, pageSize: 4 }, token)
    expect(second.body.data.list.map((m: { content: string }) => m.content)).toEqual(['答：一', '一'])

    expect((await chat.post('topic/message/get', { messageId: reply.messageId }, token)).body.data).toEqual(reply)
    await chat.post('topic/message/del', { messageId: reply.messageId }, token)
    expect((await chat.post('topic/message/get', { messageId: reply.messageId }, token)).body.code).toBe(40400001)
    await chat.post('topic/message/clear', { topicId: topic.topicId }, token)
    expect((await chat.post('topic/messages', { topicId: topic.topicId }, token)).body.data).toEqual({ list: [], total: 0, pageNum: 1, pageSize: 20 })
  })

  it('sends only the system prompt and the new message when the context switch is off', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt', roleId: 'translator' })
    fake.script({ kind: 'stream', chunks: ['Hello'] })
    await chat.send(token, topic.topicId, '你好')
    await ctx.h.chat.idle()
    await chat.post('topic/configs/context/switch', { topicId: topic.topicId }, token)
    await chat.send(token, topic.topicId, '再见')
    await ctx.h.chat.idle()
    const sent = fake.requests.at(-1)!.body.messages
    expect(sent.map((m) => m.role)).toEqual(['system', 'user'])
    expect(sent[1]!.content).toBe('再见')
  })

  it('trims history to the model context, newest kept, counted with gpt-tokenizer', async () => {
    const dir = join(ctx.h.config.dataDir, 'config')
    mkdirSync(dir, { recursive: true })
    // 600 tokens of context, 150 of them kept for the answer.
    writeFileSync(join(dir, 'chatConfig.json'), JSON.stringify({ models: [{ id: 'fake-gpt', provider: 'openai', contextLength: 600 }] }))
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script({ kind: 'stream', chunks: ['收到'] })
    const para = (n: number) => `第${n}段：${'这是一段用来占用上下文长度的文字，'.repeat(6)}`
    for (let n = 1; n <= 6; n++) {
      await chat.send(token, topic.topicId, para(n))
      await ctx.h.chat.idle()
    }
    const { countTokens } = await import('gpt-tokenizer')
    const sent = fake.requests.at(-1)!.body.messages
    const total = sent.reduce((sum, m) => sum + countTokens(m.content) + 4, 3)
    expect(total).toBeLessThanOrEqual(450)
    expect(sent.at(-1)!.content).toBe(para(6))
    expect(sent.length).toBeLessThan(11)
    expect(sent.length).toBeGreaterThan(2)
    // Whole messages, the newest ones, in order.
    const kept = sent.filter((m) => m.role === 'user').map((m) => m.content)
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => para(6 - kept.length + 1 + i)))
    // A message that cannot fit at all is refused before anything goes upstream.
    const count = fake.requests.length
    const huge = await chat.send(token, topic.topicId, '很长的问题。'.repeat(300))
    expect(huge.body).toEqual({ code: 40000001, message: 'content 太长，超出了模型「fake-gpt」的上下文长度', data: null })
    expect(fake.requests.length).toBe(count)
  })

  it('makes a retried send idempotent with the client requestId', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token)
    const requestId = randomUUID()
    const [a, b] = await Promise.all([chat.send(token, topic.topicId, '重试', { requestId }), chat.send(token, topic.topicId, '重试', { requestId })])
    expect(a.body.data).toEqual(b.body.data)
    expect(a.body.data.requestId).toBe(requestId)
    await ctx.h.chat.idle()
    const again = await chat.send(token, topic.topicId, '重试', { requestId: requestId.toUpperCase() })
    expect(again.body.data).toEqual(a.body.data)
    expect((await chat.post('topic/messages', { topicId: topic.topicId }, token)).body.data.total).toBe(2)
  })

  it("regenerates the topic's last reply for the same question; older replies cannot be", async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    let n = 0
    fake.script(() => ({ kind: 'stream', chunks: [`第${++n}次回答`] }))
    const first = (await chat.send(token, topic.topicId, '问题一')).body.data
    await ctx.h.chat.idle()
    const second = (await chat.send(token, topic.topicId, '问题二')).body.data
    await ctx.h.chat.idle()
    expect((await chat.post('topic/message/regenerate', { replyId: first.replyId }, token)).body).toEqual({
      code: 40000001,
      message: '只能重新生成最后一条回复',
      data: null
    })
    const again = await chat.post('topic/message/regenerate', { replyId: second.replyId }, token)
    expect(again.body.data).toMatchObject({ messageId: second.messageId })
    expect(again.body.data.replyId).not.toBe(second.replyId)
    await ctx.h.chat.idle()
    const frames = parseFrames(await readAll(await chat.subscribe(token, again.body.data.requestId)))
    expect(frames[0]!.data).toBe('{"content":"第3次回答"}')
    const list = (await chat.post('topic/messages', { topicId: topic.topicId }, token)).body.data.list
    expect(list.map((m: { content: string }) => m.content)).toEqual(['第3次回答', '问题二', '第1次回答', '问题一'])
    // The question was asked again with the history before it, not the replaced answer.
    expect(fake.requests.at(-1)!.body.messages.map((m) => m.content)).toEqual(['问题一', '第1次回答', '问题二'])
  })

  it('deleting a topic while it streams stops the reply first', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script({ kind: 'stream', chunks: Array.from({ length: 100 }, () => '字'), delayMs: 30 })
    const { requestId } = (await chat.send(token, topic.topicId, '说很多话')).body.data
    const stream = chat.subscribe(token, requestId).then((res) => readAll(res))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect((await chat.post('topic/del', { topicId: topic.topicId }, token)).body.code).toBe(2000)
    expect(ctx.h.chat.stats().generations).toBe(0)
    expect(parseFrames(await stream).at(-1)!.event).toBe('stopped')
    await fake.requests.at(-1)!.closed
    expect(fake.requests.at(-1)!.abortedAt).toBeDefined()
    expect(await ctx.db.db.select().from(chatMessages)).toEqual([])
  })

  it('refuses a model that is no longer offered', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    await ctx.db.db.update(chatTopics).set({ model: 'retired-model' }).where(eq(chatTopics.id, topic.topicId))
    expect((await chat.send(token, topic.topicId, '在吗')).body).toEqual({ code: 40000001, message: '模型「retired-model」不可用，请重新选择模型', data: null })
  })
})
