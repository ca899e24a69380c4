import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { accounts, chatMessages, chatTopics } from '../src/db/schema.js'
import { INTERPRET_TOPIC_NAME } from '../src/modules/hot-news/interpret.js'
import { type FakeDailyHot, startFakeDailyHot } from './fakes/dailyhot.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv, parseFrames, readAll } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const HOT = '/api/v1/hot'

let dailyhot: FakeDailyHot
let openai: FakeOpenAi
beforeAll(async () => {
  dailyhot = await startFakeDailyHot()
  openai = await startFakeOpenAi()
})
afterAll(async () => {
  await dailyhot.close()
  await openai.close()
})

let env: Record<string, string> = {}
const ctx = useHarness(() => ({ env }))
const chat = chatHelpers(ctx)
const post = <T = any>(path: string, body: unknown, token?: string) => ctx.h.post<T>(`${HOT}/${path}`, body, token === undefined ? {} : { token })

beforeEach(async () => {
  await ctx.db.db.execute(sql`delete from hot_cache`)
})

describe('offline (no upstream configured)', () => {
  beforeAll(() => {
    env = {}
  })

  it('offers the sample lists, every source and item marked demo', async () => {
    const { token } = await chat.user()
    const sources = await post<any[]>('sources', {}, token)
    expect(sources.body.code).toBe(2000)
    expect(sources.body.data.length).toBeGreaterThanOrEqual(5)
    for (const s of sources.body.data) expect(s).toMatchObject({ type: 'demo', demo: true, stale: false, updatedTime: null })
    expect(sources.body.data.map((s) => s.name)).toContain('微博')

    const list = await post<any>('list', { sourceId: 'weibo' }, token)
    expect(list.body.code).toBe(2000)
    expect(list.body.data.source).toMatchObject({ sourceId: 'weibo', demo: true, updatedTime: ctx.h.clock.now() })
    expect(list.body.data.items.length).toBeGreaterThanOrEqual(8)
    for (const item of list.body.data.items) {
      expect(item.demo).toBe(true)
      expect(item.desc.startsWith('示例数据')).toBe(true)
      expect(item.url).toMatch(/^https:\/\//)
    }
    // Ranked by heat as shipped.
    const heat = list.body.data.items.map((i: any) => i.hot)
    expect([...heat].sort((a, b) => b - a)).toEqual(heat)
    expect((await post<any[]>('sources', {}, token)).body.data.find((s) => s.sourceId === 'weibo').updatedTime).toBe(ctx.h.clock.now())
  })

  it('refuses the anonymous, accounts without the permission, and bad input', async () => {
    expect((await post('sources', {})).body.code).toBe(50011004)
    const { token, accountId } = await chat.user()
    expect((await post('list', {}, token)).body).toEqual({ code: 40000001, message: 'sourceId 不能为空', data: null })
    expect((await post('list', { sourceId: 12 }, token)).body.code).toBe(40000001)
    expect((await post('list', { sourceId: 'x'.repeat(65) }, token)).body.code).toBe(40000001)
    expect((await post('list', { sourceId: '../../etc' }, token)).body).toEqual({ code: 40400001, message: '热榜来源不存在', data: null })
    expect((await post('interpret', { sourceId: 'weibo' }, token)).body).toMatchObject({ code: 40000001, message: 'itemId 不能为空' })
    await ctx.db.db
      .update(accounts)
      .set({ permissionCodes: ['AI_TOOLS_CHAT'] })
      .where(eq(accounts.id, accountId))
    await ctx.h.accountChanged(accountId)
    const refused = await post('sources', {}, token)
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe(40300001)
  })
})

describe('DailyHotApi upstream', () => {
  beforeAll(() => {
    env = { HOT_API_URL: dailyhot.url, HOT_SOURCES: 'weibo,zhihu', HOT_REFRESH_SECONDS: '60' }
  })

  it('serves the upstream lists, then the last good list flagged stale while the upstream fails', async () => {
    const { token } = await chat.user()
    const sources = await post<any[]>('sources', {}, token)
    expect(sources.body.data.map((s) => [s.sourceId, s.name, s.type, s.demo])).toEqual([
      ['weibo', '微博', 'dailyhot', false],
      ['zhihu', '知乎', 'dailyhot', false]
    ])
    dailyhot.set('zhihu', { kind: 'ok' })
    const hitsBefore = dailyhot.hits('zhihu')
    const lists = await Promise.all([1, 2, 3].map(() => post<any>('list', { sourceId: 'zhihu' }, token)))
    // Three requests, one upstream fetch.
    expect(dailyhot.hits('zhihu') - hitsBefore).toBe(1)
    const first = lists[0]!.body.data
    expect(first.source).toMatchObject({ sourceId: 'zhihu', stale: false, demo: false })
    expect(first.items[0]).toMatchObject({ id: '1000', title: '知乎 第 1 条', hot: 1_000_000, demo: false, url: 'https://zhihu.example.com/item/1' })

    dailyhot.set('zhihu', { kind: 'error', status: 500, message: '获取失败' })
    ctx.h.clock.advance(61_000)
    await post('list', { sourceId: 'zhihu' }, token) // due: refetched in the background
    await new Promise((resolve) => setTimeout(resolve, 200))
    const stale = await post<any>('list', { sourceId: 'zhihu' }, token)
    expect(stale.body.code).toBe(2000)
    expect(stale.body.data.source.stale).toBe(true)
    expect(stale.body.data.items).toEqual(first.items)
    expect((await post<any[]>('sources', {}, token)).body.data.find((s) => s.sourceId === 'zhihu').stale).toBe(true)
  })

  it('刷新 fetches a list again when it is over a minute old, serves a newer one as is, and concurrent presses fetch once', async () => {
    const { token } = await chat.user()
    dailyhot.set('weibo', { kind: 'ok' })
    await post('list', { sourceId: 'weibo' }, token)
    const hits = dailyhot.hits('weibo')
    // Within the minute: the cached list, no fetch.
    ctx.h.clock.advance(30_000)
    const early = await post<any>('list', { sourceId: 'weibo', refresh: true }, token)
    expect(dailyhot.hits('weibo')).toBe(hits)
    expect(early.body.data.source.updatedTime).toBe(ctx.h.clock.now() - 30_000)
    // After it: fetched before answering, once for three presses.
    ctx.h.clock.advance(31_000)
    const pressed = await Promise.all([1, 2, 3].map(() => post<any>('list', { sourceId: 'weibo', refresh: true }, token)))
    expect(dailyhot.hits('weibo')).toBe(hits + 1)
    for (const res of pressed) expect(res.body.data.source.updatedTime).toBe(ctx.h.clock.now())
    expect((await post('list', { sourceId: 'weibo', refresh: 'yes' }, token)).body.code).toBe(40000001)
  })

  it('searches the titles and descriptions of every fetched list, width and case folded, in source then rank order', async () => {
    const { token } = await chat.user()
    dailyhot.set('weibo', { kind: 'ok' })
    dailyhot.set('zhihu', { kind: 'ok' })
    // Neither list fetched yet: the search fetches both first, once each.
    const before = [dailyhot.hits('weibo'), dailyhot.hits('zhihu')]
    const hits = await post<any[]>('search', { q: '第 1 条' }, token)
    expect(hits.body.data.map((h) => [h.source.sourceId, h.rank, h.item.title])).toEqual([
      ['weibo', 1, '微博 第 1 条'],
      ['zhihu', 1, '知乎 第 1 条']
    ])
    expect([dailyhot.hits('weibo'), dailyhot.hits('zhihu')]).toEqual([before[0]! + 1, before[1]! + 1])
    expect((await post<any[]>('search', { q: '知乎 第' }, token)).body.data.map((h) => h.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    // Full-width digits and extra spaces fold; another source's name does not leak into a title match.
    const wide = await post<any[]>('search', { q: '知乎  第 １ 条' }, token)
    expect(wide.body.data.map((h) => h.item.title)).toEqual(['知乎 第 1 条'])
    expect((await post<any[]>('search', { q: '没有这样的标题' }, token)).body.data).toEqual([])
    for (const q of ['', '   ', 'x'.repeat(51)]) expect((await post('search', { q }, token)).body.code).toBe(40000001)
    expect((await post('search', { q: '第' })).body.code).not.toBe(2000)
  })

  it('answers 50200001 with the reason when a source has never worked', async () => {
    const { token } = await chat.user()
    dailyhot.set('weibo', { kind: 'malformed' })
    const res = await post('list', { sourceId: 'weibo' }, token)
    expect(res.status).toBe(502)
    expect(res.body).toEqual({ code: 50200001, message: '「微博」返回的不是合法的 JSON（HTTP 200）', data: null })
    dailyhot.set('weibo', { kind: 'ok' })
  })
})

describe('AI 解读', () => {
  beforeAll(() => {
    env = fakeEnv(openai)
  })

  it('streams a chat reply about one item in the 热点解读 topic, charged to tokens', async () => {
    const { token, accountId } = await chat.user()
    const list = (await post<any>('list', { sourceId: 'zhihu' }, token)).body.data
    const item = list.items[2]
    const before = await chat.balance(accountId)
    const res = await post<any>('interpret', { sourceId: 'zhihu', itemId: item.id }, token)
    expect(res.body.code).toBe(2000)
    const { requestId, messageId, replyId, topicId } = res.body.data
    const frames = parseFrames(await readAll(await chat.subscribe(token, requestId)))
    const done = frames.find((f) => f.event === 'done')
    expect(done).toBeDefined()
    const reply = await chat.reply(replyId)
    expect(reply).toMatchObject({ status: 'complete', topicId, parentId: messageId, requestId })
    expect(reply.content.length).toBeGreaterThan(0)
    const question = await chat.reply(messageId)
    expect(question.content).toContain(`标题：${item.title}`)
    expect(question.content).toContain('来源：知乎（示例数据，不是真实新闻）')
    expect(question.content).toContain(`链接：${item.url}`)
    const [topic] = await ctx.db.db.select().from(chatTopics).where(eq(chatTopics.id, topicId))
    expect(topic).toMatchObject({ name: INTERPRET_TOPIC_NAME, accountId, contextEnabled: 0 })
    // Charged like any chat, logged.
    const after = await chat.balance(accountId)
    expect(after).toBe(before - reply.charged!)
    expect(reply.charged).toBeGreaterThan(0)
    const log = await chat.log(accountId)
    expect(log.at(-1)).toMatchObject({ kind: 'tokens', amount: -reply.charged!, balance: after })

    // A second interpretation reuses the topic.
    const again = await post<any>('interpret', { sourceId: 'zhihu', itemId: list.items[0].id }, token)
    expect(again.body.data.topicId).toBe(topicId)
    await ctx.h.chat.idle()
    expect(await ctx.db.db.select().from(chatTopics).where(eq(chatTopics.accountId, accountId))).toHaveLength(1)

    // Another account cannot follow the stream.
    const other = await chat.user('13900139000')
    expect((await chat.subscribe(other.token, requestId)).status).toBe(404)
  })

  it('sends the item upstream through the chat pipeline', async () => {
    const { token } = await chat.user()
    const list = (await post<any>('list', { sourceId: 'bilibili' }, token)).body.data
    // The topic picks the site default model (the demo model); choosing fake-gpt in the topic sends it upstream.
    const first = await post<any>('interpret', { sourceId: 'bilibili', itemId: list.items[0].id }, token)
    await ctx.h.chat.idle()
    await ctx.db.db.update(chatTopics).set({ model: 'fake-gpt' }).where(eq(chatTopics.id, first.body.data.topicId))
    openai.script({ kind: 'stream', chunks: ['这是', '解读'], usage: { prompt_tokens: 50, completion_tokens: 4 } })
    const sent = openai.requests.length
    const res = await post<any>('interpret', { sourceId: 'bilibili', itemId: list.items[1].id }, token)
    await ctx.h.chat.idle()
    expect(openai.requests.length).toBe(sent + 1)
    const upstream = openai.requests.at(-1)!.body
    expect(upstream.model).toBe('fake-gpt')
    expect(upstream.messages[0]?.role).toBe('system')
    expect(upstream.messages).toHaveLength(2)
    expect(upstream.messages[1]?.content).toContain(list.items[1].title)
    expect((await chat.reply(res.body.data.replyId)).content).toBe('这是解读')
  })

  it('refuses at zero tokens and for unknown items, changing nothing', async () => {
    const { token, accountId } = await chat.user()
    const list = (await post<any>('list', { sourceId: 'weibo' }, token)).body.data
    await chat.setTokens(accountId, 0)
    const snapshot = async () => ({
      snap: await ctx.h.snapshot(),
      messages: await ctx.db.db.select().from(chatMessages),
      topics: await ctx.db.db.select().from(chatTopics)
    })
    const before = await snapshot()
    const res = await post('interpret', { sourceId: 'weibo', itemId: list.items[0].id }, token)
    expect(res.status).toBe(402)
    expect(res.body).toEqual({ code: 40200001, message: '对话额度已用完，请充值后再试', data: null })
    await chat.setTokens(accountId, 100)
    const missing = await post('interpret', { sourceId: 'weibo', itemId: 'no-such-item' }, token)
    expect(missing.body.code).toBe(40400001)
    await chat.setTokens(accountId, 0)
    expect(await snapshot()).toEqual(before)
  })
})
