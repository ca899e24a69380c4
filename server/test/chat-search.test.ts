import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { chatMessages } from '../src/db/schema.js'
import { PAGE_SIZE, SCAN_WINDOW, SEARCHES_PER_MINUTE, snippetOf } from '../src/modules/chat/search.js'
import { chatHelpers } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness()
const chat = chatHelpers(ctx)

/** Saves messages straight into a topic (seq order = array order), `complete`, as the chat would. */
async function seed(accountId: string, topicId: string, texts: string[]) {
  const at = new Date(ctx.h.clock.now())
  const rows = texts.map((content, i) => ({
    id: randomUUID(),
    accountId,
    topicId,
    role: i % 2 === 0 ? 'user' : 'assistant',
    content,
    status: 'complete',
    createdAt: at,
    updatedAt: at
  }))
  for (let i = 0; i < rows.length; i += 1000) await ctx.db.db.insert(chatMessages).values(rows.slice(i, i + 1000))
  return rows
}

describe('chat search', () => {
  it('finds a 2-character Chinese term inside a sentence, in titles and messages, newest first, with a snippet', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token, { name: '量子计算入门' })
    const other = await chat.topic(token, { name: '周末计划' })
    await seed(accountId, topic.topicId, ['今天我们来聊聊量子纠缠的原理', '好的，量子力学里有一个很有趣的现象', '无关的内容'])
    await seed(accountId, other.topicId, ['周末去爬山，顺便想想量子的问题'])
    const res = await chat.post('search', { keyword: '量子' }, token)
    expect(res.body.code).toBe(2000)
    const data = res.body.data
    expect(data.topics.map((t: any) => t.name)).toEqual(['量子计算入门'])
    expect(data.messages.map((m: any) => m.topicName)).toEqual(['周末计划', '量子计算入门', '量子计算入门'])
    const hit = data.messages[1]
    expect(hit.role).toBe('assistant')
    expect(hit.snippet.slice(hit.matchStart, hit.matchStart + hit.matchLength)).toBe('量子')
    expect(data.nextCursor).toBeNull()
    // Case-insensitive for Latin letters; a term in no message finds nothing.
    await seed(accountId, topic.topicId, ['How does React render?'])
    expect((await chat.post('search', { keyword: 'react' }, token)).body.data.messages).toHaveLength(1)
    expect((await chat.post('search', { keyword: '不存在的词' }, token)).body.data).toEqual({ topics: [], messages: [], nextCursor: null })
  })

  it('pages with the cursor, and reads at most one window per request', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    await seed(
      accountId,
      topic.topicId,
      Array.from({ length: PAGE_SIZE + 5 }, (_, i) => `第${i}条：关于天气的讨论`)
    )
    const first = await chat.post('search', { keyword: '天气' }, token)
    expect(first.body.data.messages).toHaveLength(PAGE_SIZE)
    expect(first.body.data.nextCursor).toEqual(expect.any(Number))
    const second = await chat.post('search', { keyword: '天气', cursor: first.body.data.nextCursor }, token)
    expect(second.body.data.messages).toHaveLength(5)
    expect(second.body.data.topics).toEqual([])
    expect(second.body.data.nextCursor).toBeNull()
    const ids = new Set([...first.body.data.messages, ...second.body.data.messages].map((m: any) => m.messageId))
    expect(ids.size).toBe(PAGE_SIZE + 5)
  })

  it('a match older than the window is found by continuing', async () => {
    const { token, accountId } = await chat.user()
    const topic = await chat.topic(token)
    await seed(accountId, topic.topicId, ['很久以前提到过的咖啡', ...Array.from({ length: SCAN_WINDOW + 10 }, (_, i) => `填充消息 ${i}`)])
    const first = await chat.post('search', { keyword: '咖啡' }, token)
    expect(first.body.data.messages).toEqual([])
    expect(first.body.data.nextCursor).toEqual(expect.any(Number))
    const next = await chat.post('search', { keyword: '咖啡', cursor: first.body.data.nextCursor }, token)
    expect(next.body.data.messages.map((m: any) => m.snippet)).toEqual(['很久以前提到过的咖啡'])
    expect(next.body.data.nextCursor).toBeNull()
  }, 60_000)

  it("never returns another account's topics or messages", async () => {
    const a = await chat.user('13800138000')
    const b = await chat.user('13800138001')
    const topic = await chat.topic(a.token, { name: '机密项目' })
    await seed(a.accountId, topic.topicId, ['机密的内容在这里'])
    const res = await chat.post('search', { keyword: '机密' }, b.token)
    expect(res.body.data).toEqual({ topics: [], messages: [], nextCursor: null })
    // A cursor forged from a's sequence numbers reads nothing of a's either.
    const forged = await chat.post('search', { keyword: '机密', cursor: Number.MAX_SAFE_INTEGER }, b.token)
    expect(forged.body.data.messages).toEqual([])
    expect((await chat.post('search', { keyword: '机密' }, '')).status).toBe(401)
  })

  it('refuses empty, blank, too long and malformed input with a clear message', async () => {
    const { token } = await chat.user()
    const cases: [unknown, string][] = [
      [{}, '搜索内容不能为空'],
      [{ keyword: '   ' }, '搜索内容不能为空'],
      [{ keyword: '字'.repeat(101) }, '搜索内容不能超过 100 个字符'],
      [{ keyword: 42 }, '搜索内容格式不正确'],
      [{ keyword: '好', cursor: -1 }, 'cursor 不能小于 1'],
      [{ keyword: '好', cursor: 1.5 }, 'cursor 必须是整数']
    ]
    for (const [body, message] of cases) {
      const res = await chat.post('search', body, token)
      expect(res.body.code).toBe(40000001)
      expect(res.body.message).toContain(message)
    }
    expect((await chat.post('search', { keyword: '%' }, token)).body.code).toBe(2000)
    expect((await chat.post('search', { keyword: "'; drop table chat_messages; --" }, token)).body.code).toBe(2000)
  })

  it(`allows ${SEARCHES_PER_MINUTE} searches a minute per account, concurrent ones included`, async () => {
    const { token } = await chat.user()
    const results = await Promise.all(Array.from({ length: SEARCHES_PER_MINUTE + 5 }, () => chat.post('search', { keyword: '你好' }, token)))
    expect(results.filter((r) => r.body.code === 2000)).toHaveLength(SEARCHES_PER_MINUTE)
    const refused = results.find((r) => r.body.code === 42900001)!
    expect(refused.status).toBe(429)
    expect(refused.body.message).toMatch(/^搜索过于频繁，请 \d+ 秒后再试$/)
    ctx.h.clock.advance(61_000)
    expect((await chat.post('search', { keyword: '你好' }, token)).body.code).toBe(2000)
  })

  it('snippets fold whitespace and mark the match', () => {
    const s = snippetOf(`${'前'.repeat(40)}\n\n关键词${'后'.repeat(100)}`, '关键')
    expect(s.snippet.startsWith('…')).toBe(true)
    expect(s.snippet.endsWith('…')).toBe(true)
    expect(s.snippet.slice(s.matchStart, s.matchStart + s.matchLength)).toBe('关键')
  })
})

// BENCH=1 npx vitest run test/chat-search.test.ts -t bench (figures in docs/decisions/0031-chat-search.md)
describe.runIf(process.env.BENCH === '1')('bench', () => {
  it('searches 10k messages', async () => {
    const { token, accountId } = await chat.user()
    const noise = await chat.user('13800138009')
    const topic = await chat.topic(token, { name: '基准' })
    const other = await chat.topic(noise.token)
    const words = '今天天气很好我们一起去公园散步顺便讨论一下项目的进度以及下周的安排还有模型训练的数据集'
    const text = (i: number) => `${i}：${[...words].sort(() => Math.sin(i) - 0.5).join('')}`.repeat(3)
    await seed(
      noise.accountId,
      other.topicId,
      Array.from({ length: 10_000 }, (_, i) => text(i))
    )
    await seed(accountId, topic.topicId, [...Array.from({ length: 9_999 }, (_, i) => text(i)), '这里有一个罕见词：琥珀'])
    const time = async (keyword: string, cursor?: number) => {
      ctx.h.clock.advance(61_000)
      const runs: number[] = []
      let last: any
      for (let i = 0; i < 5; i++) {
        const t = performance.now()
        last = await chat.post('search', cursor ? { keyword, cursor } : { keyword }, token)
        runs.push(performance.now() - t)
      }
      runs.sort((a, b) => a - b)
      return { keyword, median: runs[2]!.toFixed(1), hits: last.body.data.messages.length, next: last.body.data.nextCursor }
    }
    const { sql } = await import('drizzle-orm')
    if (process.env.ANALYZE) await ctx.db.db.execute(sql`analyze chat_messages`)
    if (process.env.EXPLAIN) {
      for (const q of [
        sql`explain analyze select seq from chat_messages where account_id = ${accountId} order by seq desc offset 4999 limit 1`,
        sql`explain analyze select id from chat_messages where account_id = ${accountId} and seq >= 15000 and role in ('user','assistant') and strpos(lower(content), '天气') > 0 order by seq desc limit 21`
      ]) {
        const r: any = await ctx.db.db.execute(q)
        console.log((r.rows ?? r).map((x: any) => Object.values(x)[0]).join('\n'))
      }
    }
    const common = await time('天气')
    const rareFirst = await time('琥珀')
    const absent = await time('火星')
    const absentNext = await time('火星', absent.next)
    console.log(
      JSON.stringify({ db: process.env.DATABASE_URL ? 'postgres' : 'pglite', analyzed: !!process.env.ANALYZE, common, rareFirst, absent, absentNext })
    )
  }, 600_000)
})
