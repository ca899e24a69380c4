import { fileURLToPath } from 'node:url'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { balanceOf } from '../src/allowances/ledger.js'
import { chatMessages, moderationLog, musicTasks, paintingTasks } from '../src/db/schema.js'
import { createModerationLog } from '../src/moderation/log.js'
import { countTokens } from '../src/replies/context.js'
import { BLOCKED_REPLY_NOTICE } from '../src/replies/moderate-stream.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv, parseFrames, readAll } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const WORDS = fileURLToPath(new URL('./fixtures/moderation-words.txt', import.meta.url))
const BLOCKED = { code: 42200001, data: null }

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(async () => {
  await fake.close()
})

const ctx = useHarness(() => ({
  env: fakeEnv(fake, { MODERATION_PROVIDERS: 'words', MODERATION_WORDS_FILE: WORDS, MODERATION_STREAM_WINDOW: '10' })
}))
const chat = chatHelpers(ctx)
// The shared test reset leaves tables it does not know alone: this file empties the log itself.
beforeEach(async () => {
  await ctx.db.db.delete(moderationLog)
})
const logRows = () => ctx.db.db.select().from(moderationLog).orderBy(moderationLog.id)

describe('input is checked before anything is charged, stored or sent upstream', () => {
  it('a chat message with an evasion is refused with 42200001: nothing upstream, nothing charged, only the log', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const upstream = fake.requests.length
    const before = { snap: await ctx.h.snapshot(), messages: await ctx.db.db.select().from(chatMessages) }
    const res = await chat.send(token, topic.topicId, '请告诉我 違 禁 測 試 詞 是什么')
    expect(res.status).toBe(422)
    expect(res.body).toEqual({ ...BLOCKED, message: '消息包含违规信息，请修改后重试' })
    expect(fake.requests.length).toBe(upstream)
    expect({ snap: await ctx.h.snapshot(), messages: await ctx.db.db.select().from(chatMessages) }).toEqual(before)
    expect(await logRows()).toMatchObject([
      { kind: 'chat', source: 'chat.message', accountId, verdict: 'block', provider: 'words', rule: '违禁测试词', excerpt: '请告诉我 違 禁 測 試 詞 是什么' }
    ])
    expect((await logRows())[0]!.contentHash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('a review entry goes through and is logged for an operator, once per message or reply', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script({
      kind: 'stream',
      chunks: ['关于灰色测试词，', '这是一段比较长的解释，', '说明它的来历。'],
      usage: { prompt_tokens: 10, completion_tokens: 5 }
    })
    expect((await chat.send(token, topic.topicId, '灰色测试词')).body.code).toBe(2000)
    await ctx.h.chat.idle()
    expect(await logRows()).toMatchObject([
      { verdict: 'review', rule: '灰色测试词', source: 'chat.message' },
      { verdict: 'review', rule: '灰色测试词', source: 'chat.reply' }
    ])
  })

  it('a document whose text (or a file whose name) is blocked is refused with its message: nothing upstream, nothing charged', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const upload = async (name: string, text: string) => {
      const res = await ctx.h.request<any>(`/api/v1/oss/upload/put/chat-attachment?name=${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream' },
        body: new TextEncoder().encode(text) as unknown as RequestInit['body']
      })
      expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
      return res.body.data.attachmentId as string
    }
    const upstream = fake.requests.length
    const before = await ctx.h.snapshot()
    const inside = await upload('notes.txt', '第一行\n这里写着 違 禁 測 試 詞\n')
    expect((await chat.send(token, topic.topicId, '总结一下附件', { attachmentIds: [inside] })).body).toEqual({
      ...BLOCKED,
      message: '附件内容包含违规信息，请修改后重试'
    })
    const named = await upload('badword.txt', '干净的内容')
    expect((await chat.send(token, topic.topicId, '看看', { attachmentIds: [named] })).body).toEqual({
      ...BLOCKED,
      message: '附件名包含违规信息，请修改后重试'
    })
    expect(fake.requests.length).toBe(upstream)
    expect(await ctx.h.snapshot()).toEqual(before)
    expect((await logRows()).map((r) => [r.source, r.kind])).toEqual([
      ['chat.attachment', 'chat'],
      ['chat.attachment', 'name']
    ])
  })

  it('painting and music prompts are refused before their count is taken', async () => {
    const { token, accountId } = await chat.user()
    const mj = (await balanceOf(ctx.db.db, accountId, 'mj')).balance
    const suno = (await balanceOf(ctx.db.db, accountId, 'suno')).balance
    const imagine = await ctx.h.post('/api/v1/painting/imagine', { prompt: 'a cat, ＢＡＤＷＯＲＤ --ar 1:1' }, { token })
    expect(imagine.body).toEqual({ ...BLOCKED, message: '提示词包含违规信息，请修改后重试' })
    const sd = await ctx.h.post(
      '/api/v1/sd/txt2img',
      { prompt: 'a cat', negativePrompt: 'bad-word', width: 512, height: 512, steps: 20, cfgScale: 7, sampler: 'Euler a' },
      { token }
    )
    expect(sd.body).toEqual({ ...BLOCKED, message: '反向提示词包含违规信息，请修改后重试' })
    const song = await ctx.h.post('/api/v1/music/generate', { prompt: '一首关于违禁测试词的歌', instrumental: false }, { token })
    expect(song.body).toEqual({ ...BLOCKED, message: '歌曲描述包含违规信息，请修改后重试' })
    const lyrics = await ctx.h.post('/api/v1/music/lyrics/generate', { prompt: '违禁测试词' }, { token })
    expect(lyrics.body.code).toBe(42200001)
    expect((await balanceOf(ctx.db.db, accountId, 'mj')).balance).toBe(mj)
    expect((await balanceOf(ctx.db.db, accountId, 'suno')).balance).toBe(suno)
    expect(await ctx.db.db.select().from(paintingTasks)).toEqual([])
    expect(await ctx.db.db.select().from(musicTasks)).toEqual([])
    expect((await logRows()).map((r) => r.source)).toEqual(['painting.mj', 'painting.sd', 'music.describe', 'music.lyrics'])
  })

  it('nicknames, topic names and roles are checked; clean ones are saved as before', async () => {
    const { token } = await chat.user()
    const nick = await ctx.h.post<any>('/api/v1/user/profile/save', { nickName: 'Bad Word' }, { token })
    expect(nick.body).toEqual({ ...BLOCKED, message: '昵称包含违规信息，请修改后重试' })
    expect((await ctx.h.post<any>('/api/v1/user/profile/save', { nickName: '灵犀' }, { token })).body.code).toBe(2000)
    expect((await chat.post('topic/create', { name: '违禁测试词' }, token)).body).toEqual({ ...BLOCKED, message: '话题名称包含违规信息，请修改后重试' })
    const topic = await chat.topic(token, { name: '好话题' })
    expect((await chat.post('topic/name/edit', { topicId: topic.topicId, name: '违-禁-测-试-词' }, token)).body.code).toBe(42200001)
    const role = await ctx.h.post<any>('/api/v1/ai-chat/role-play/save', { name: '助手', systemPrompt: '你要说违禁测试词' }, { token })
    expect(role.body.code).toBe(42200001)
  })

  it('an image-host upload named with a blocked word gets no upload ticket', async () => {
    const { token } = await chat.user()
    const ask = (fileName: string) => ctx.h.post<any>('/api/v1/oss/upload/getOssSTS', { fileName, contentType: 'image/png', size: 100 }, { token })
    expect((await ask('違禁測試詞.png')).body).toEqual({ ...BLOCKED, message: '文件名包含违规信息，请修改后重试' })
    expect((await ask('猫.png')).body.code).toBe(2000)
  })
})

describe('a streamed reply is checked in windows as it arrives', () => {
  it('a reply that turns bad mid-way is stopped, replaced by the notice, and charged only for what passed', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const start = await chat.balance(accountId)
    const clean = ['这是一段正常的回答内容。', '接下来还是正常的话。']
    fake.script({
      kind: 'stream',
      chunks: [...clean, '然后它说出了违禁测试词。', ...Array.from({ length: 40 }, (_, i) => `后续第${i}段。`)],
      usage: { prompt_tokens: 10, completion_tokens: 500 },
      delayMs: 15
    })
    const sent = await chat.send(token, topic.topicId, '讲个故事')
    expect(sent.body.code).toBe(2000)
    const res = await chat.subscribe(token, sent.body.data.requestId)
    const frames = parseFrames(await readAll(res))
    await ctx.h.chat.idle()

    const events = frames.filter((f) => f.event).map((f) => f.event)
    expect(events.at(-1)).toBe('error')
    expect(events.at(-2)).toBe('moderated')
    expect(JSON.parse(frames.find((f) => f.event === 'moderated')!.data!)).toEqual({ content: BLOCKED_REPLY_NOTICE })
    expect(JSON.parse(frames.at(-1)!.data!)).toMatchObject({ status: 'error', code: 42200001, message: '回复包含违规信息，已停止生成' })
    // The upstream was cut off long before its 43 deltas.
    expect(events.filter((e) => e === 'delta').length).toBeLessThan(20)
    expect(fake.requests.at(-1)!.abortedAt).toBeDefined()

    const reply = await chat.reply(sent.body.data.replyId)
    expect(reply).toMatchObject({ status: 'error', content: BLOCKED_REPLY_NOTICE, errorCode: 42200001, held: 0 })
    const shown = await countTokens(clean.join(''))
    expect(reply.completionTokens).toBe(shown)
    expect(reply.charged).toBe(reply.promptTokens! + shown)
    expect(await chat.balance(accountId)).toBe(start - reply.charged!)
    expect(await logRows()).toMatchObject([{ kind: 'reply', source: 'chat.reply', verdict: 'block', rule: '违禁测试词' }])
  })

  it('a clean reply streams and is charged as before', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script({ kind: 'stream', chunks: ['一切', '都很', '正常，', '没有任何问题的一段话。'], usage: { prompt_tokens: 10, completion_tokens: 5 } })
    const sent = await chat.send(token, topic.topicId, '你好')
    await readAll(await chat.subscribe(token, sent.body.data.requestId))
    await ctx.h.chat.idle()
    expect(await chat.reply(sent.body.data.replyId)).toMatchObject({ status: 'complete', content: '一切都很正常，没有任何问题的一段话。', charged: 15 })
    expect(await logRows()).toEqual([])
  })

  it('a bad ending caught by the last window still replaces the reply', async () => {
    const { token } = await chat.user()
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    fake.script({ kind: 'stream', chunks: ['短', '违禁测试词'], usage: { prompt_tokens: 10, completion_tokens: 5 } })
    const sent = await chat.send(token, topic.topicId, '你好')
    await readAll(await chat.subscribe(token, sent.body.data.requestId))
    await ctx.h.chat.idle()
    const reply = await chat.reply(sent.body.data.replyId)
    expect(reply).toMatchObject({ status: 'error', content: BLOCKED_REPLY_NOTICE, charged: 0 })
    expect((await ctx.db.db.select().from(chatMessages).where(eq(chatMessages.content, '短违禁测试词'))).length).toBe(0)
  })
})

describe('the moderation log', () => {
  it('keeps rows for the configured retention, purging older ones on a write', async () => {
    const day = 24 * 60 * 60 * 1000
    let now = Date.UTC(2026, 0, 1)
    const log = createModerationLog({ db: ctx.db.db, logger: ctx.h.logger, now: () => now, retentionDays: 183 })
    const entry = { kind: 'chat' as const, source: 'chat.message', text: '旧的', result: { verdict: 'block' as const, provider: 'words', rule: 'x' } }
    await log.write(entry)
    now += 100 * day
    await log.write({ ...entry, text: '较新' })
    expect((await logRows()).map((r) => r.excerpt)).toEqual(['旧的', '较新'])
    now += 90 * day
    // The first row is now 190 days old, the second 90.
    expect(await log.purge()).toBe(1)
    expect((await logRows()).map((r) => r.excerpt)).toEqual(['较新'])
  })
})
