import { readFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { hotCache } from '../src/db/schema.js'
import { createDailyHotSource } from '../src/modules/hot-news/dailyhot.js'
import { createDemoSources, HOT_SAMPLE_FILE } from '../src/modules/hot-news/demo.js'
import { hotSources } from '../src/modules/hot-news/index.js'
import { cleanText, httpUrl, toHeat, toTime } from '../src/modules/hot-news/normalize.js'
import { createRssSource, parseFeed } from '../src/modules/hot-news/rss.js'
import { createHotService, type HotService, STAGGER_MS } from '../src/modules/hot-news/service.js'
import { type HotItem, type HotSource, HotSourceError } from '../src/modules/hot-news/types.js'
import { loadConfig } from '../src/config.js'
import { type FakeDailyHot, startFakeDailyHot } from './fakes/dailyhot.js'
import { waitUntil } from './helpers/chat.js'
import { createTestDatabase, type TestDatabase } from './helpers/database.js'
import { memoryLogger, testClock } from './helpers/harness.js'
import { manualTimers, queueNodes, quiet } from './helpers/nodes.js'

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname

describe('normalising', () => {
  it('passes only absolute http(s) URLs', () => {
    expect(httpUrl('https://a.example/x?y=1')).toBe('https://a.example/x?y=1')
    expect(httpUrl('//img.example/a.png')).toBe('https://img.example/a.png')
    expect(httpUrl('/p/1', 'https://b.example/feed')).toBe('https://b.example/p/1')
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'ftp://x.example/', 'https://user:pw@x.example/', '', 42, null]) {
      expect(httpUrl(bad)).toBeNull()
    }
  })

  it('reads heat, times and text', () => {
    expect(toHeat(1234)).toBe(1234)
    expect(toHeat('1.5万')).toBe(15000)
    expect(toHeat('2亿')).toBe(200000000)
    expect(toHeat('98 万热度')).toBe(980000)
    expect(toHeat('热')).toBeNull()
    expect(toHeat(-1)).toBeNull()
    expect(toTime(1_700_000_000)).toBe(1_700_000_000_000)
    expect(toTime('Tue, 05 Mar 2024 08:30:00 +0000')).toBe(Date.UTC(2024, 2, 5, 8, 30))
    expect(toTime('never')).toBeNull()
    expect(cleanText('<p>a &amp; <b>b</b></p><script>alert(1)</script> &#x4e2d;')).toBe('a & b 中')
    expect([...cleanText('长'.repeat(500))].length).toBe(300)
  })
})

describe('RSS and Atom', () => {
  it('reads a real RSS 2.0 document', () => {
    const feed = parseFeed(readFileSync(fixture('rss2.xml'), 'utf8'), 'https://blog.example.com/feed/')
    expect(feed.title).toBe('灵犀测试博客')
    expect(feed.items.map((i) => i.title)).toEqual(['Node.js 20 & 22：升级前要知道的五件事', '用 <PGlite> 在浏览器里跑 PostgreSQL', '相对链接的文章'])
    const [first, second, third] = feed.items as [HotItem, HotItem, HotItem]
    expect(first).toMatchObject({
      id: 'https://blog.example.com/?p=1024',
      url: 'https://blog.example.com/2024/03/node-upgrade/',
      hot: null,
      desc: '从 fetch 到 test runner ，这些变化值得注意… 继续阅读 Node.js 20 & 22',
      cover: 'https://blog.example.com/wp-content/uploads/2024/03/node.png',
      time: Date.UTC(2024, 2, 5, 8, 30)
    })
    expect(second.cover).toBe('https://blog.example.com/wp-content/uploads/2024/02/pglite.jpg')
    expect(second.time).toBe(Date.UTC(2024, 1, 26, 4, 0))
    expect(third).toMatchObject({
      url: 'https://blog.example.com/2024/02/relative/',
      desc: '纯文本描述 加粗',
      cover: 'https://blog.example.com/thumbs/relative.png'
    })
  })

  it('reads an Atom document', () => {
    const feed = parseFeed(readFileSync(fixture('atom.xml'), 'utf8'), 'https://news.example.org/atom.xml')
    expect(feed.title).toBe('示例 Atom 新闻')
    expect(feed.items).toHaveLength(2)
    expect(feed.items[0]).toMatchObject({
      id: 'tag:news.example.org,2024:entry-42',
      title: '开源项目 <Lingxi> 发布 1.0',
      url: 'https://news.example.org/posts/42',
      desc: '带有 HTML 的摘要',
      time: Date.UTC(2024, 2, 5, 1, 0)
    })
    expect(feed.items[1]).toMatchObject({ url: 'https://news.example.org/posts/41', time: Date.UTC(2024, 2, 4, 8, 0) })
  })

  it('refuses entity declarations and documents that are not feeds', () => {
    const bomb =
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><rss><channel><item><title>&b;</title></item></channel></rss>'
    expect(() => parseFeed(bomb)).toThrow(HotSourceError)
    expect(() => parseFeed('<html><body>hi</body></html>')).toThrow('不是 RSS 或 Atom')
    expect(() => parseFeed('{"json": true}')).toThrow(HotSourceError)
  })
})

describe('sources over HTTP', () => {
  let fake: FakeDailyHot
  beforeAll(async () => {
    fake = await startFakeDailyHot({ feeds: { 'blog.xml': fixture('rss2.xml') } })
  })
  afterAll(async () => {
    await fake.close()
  })
  const signal = () => new AbortController().signal

  it('normalises a DailyHotApi list', async () => {
    const source = createDailyHotSource({ baseUrl: `${fake.url}/`, route: 'zhihu', timeoutMs: 2000 })
    expect(source).toMatchObject({ id: 'zhihu', name: '知乎', type: 'dailyhot', demo: false })
    const items = await source.fetch(signal())
    expect(items).toHaveLength(10)
    expect(items[0]).toEqual({
      id: '1000',
      title: '知乎 第 1 条',
      url: 'https://zhihu.example.com/item/1',
      hot: 1_000_000,
      desc: '描述 1',
      cover: 'https://img.example.com/zhihu/0.jpg',
      time: 1_700_000_000_000
    })
    expect(items[1]?.hot).toBe(990_000)
  })

  it('drops items with unsafe links, keeps the mobile link when the main one is missing, makes ids unique', async () => {
    fake.set('weibo', {
      kind: 'ok',
      items: [
        { id: 1, title: '好', url: 'javascript:alert(1)', mobileUrl: 'https://m.weibo.example/1' },
        { id: 1, title: '同号', url: 'https://weibo.example/2', mobileUrl: '' },
        { id: 3, title: '坏', url: 'data:text/html,x', mobileUrl: 'vbscript:x' },
        { id: 4, title: '', url: 'https://weibo.example/4', mobileUrl: '' }
      ]
    })
    const items = await createDailyHotSource({ baseUrl: fake.url, route: 'weibo', timeoutMs: 2000 }).fetch(signal())
    expect(items.map((i) => [i.title, i.url])).toEqual([
      ['好', 'https://m.weibo.example/1'],
      ['同号', 'https://weibo.example/2']
    ])
    expect(new Set(items.map((i) => i.id)).size).toBe(2)
  })

  it('turns upstream failures into Chinese errors', async () => {
    const source = (route: string, timeoutMs = 2000) => createDailyHotSource({ baseUrl: fake.url, route, timeoutMs })
    fake.set('e500', { kind: 'error', status: 500, message: '获取失败: timeout' })
    await expect(source('e500').fetch(signal())).rejects.toThrow('「e500」获取失败：获取失败: timeout')
    fake.set('bad', { kind: 'malformed' })
    await expect(source('bad').fetch(signal())).rejects.toThrow('不是合法的 JSON')
    fake.set('shape', { kind: 'bad-shape' })
    await expect(source('shape').fetch(signal())).rejects.toThrow('数据格式不正确')
    fake.set('slow', { kind: 'silent' })
    await expect(source('slow', 200).fetch(signal())).rejects.toThrow('响应超时')
    await expect(createDailyHotSource({ baseUrl: 'http://127.0.0.1:1', route: 'weibo', timeoutMs: 2000 }).fetch(signal())).rejects.toThrow('连接失败')
    expect(() => source('../etc')).toThrow()
  })

  it('fetches a feed over HTTP', async () => {
    const source = createRssSource({ id: 'rss-1', feed: { name: '博客', url: `${fake.url}/feeds/blog.xml` }, intervalMs: 60_000, timeoutMs: 2000 })
    const items = await source.fetch(signal())
    expect(items).toHaveLength(3)
    const missing = createRssSource({ id: 'rss-2', feed: { name: '没有', url: `${fake.url}/feeds/none.xml` }, intervalMs: 60_000, timeoutMs: 2000 })
    await expect(missing.fetch(signal())).rejects.toThrow('「没有」获取失败：HTTP 404')
  })
})

describe('configuration', () => {
  it('uses the offline sample when nothing is configured, real sources otherwise', () => {
    const now = () => Date.now()
    const demo = hotSources(loadConfig({}).hot, now)
    expect(demo.length).toBeGreaterThanOrEqual(5)
    expect(demo.every((s) => s.demo && s.type === 'demo')).toBe(true)
    const real = hotSources(
      loadConfig({ HOT_API_URL: 'http://127.0.0.1:6688', HOT_SOURCES: 'weibo,36kr', HOT_RSS_FEEDS: '少数派=https://sspai.com/feed' }).hot,
      now
    )
    expect(real.map((s) => [s.id.replace(/^rss-.*/, 'rss'), s.name, s.type, s.demo])).toEqual([
      ['weibo', '微博', 'dailyhot', false],
      ['36kr', '36氪', 'dailyhot', false],
      ['rss', '少数派', 'rss', false]
    ])
    expect(() => loadConfig({ HOT_RSS_FEEDS: 'no-url' })).toThrow('HOT_RSS_FEEDS')
    expect(() => loadConfig({ HOT_SOURCES: 'weibo,../x' })).toThrow('HOT_SOURCES')
  })

  it('ships a sample marked as such, with http(s) links only', async () => {
    const sources = createDemoSources({ now: () => 1_750_000_000_000, file: HOT_SAMPLE_FILE })
    for (const source of sources) {
      const items = await source.fetch(new AbortController().signal)
      expect(items.length).toBeGreaterThanOrEqual(8)
      for (const item of items) {
        expect(item.desc.startsWith('示例数据')).toBe(true)
        expect(item.url).toMatch(/^https:\/\//)
        expect(item.time).toBeLessThanOrEqual(1_750_000_000_000)
      }
    }
  })
})

describe('the service', () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await createTestDatabase()
  })
  afterAll(async () => {
    await database.destroy()
  })
  beforeEach(async () => {
    await database.db.execute(sql`delete from hot_cache`)
  })

  /** A source whose next answer the test decides; `state` is its upstream (shared by the nodes' copies of a source). */
  function scripted(id = 'scripted', intervalMs = 60_000, options: { state?: ReturnType<typeof upstream>; now?: () => number } = {}) {
    const state = options.state ?? upstream()
    const now = options.now ?? Date.now
    const source: HotSource = {
      id,
      name: '测试榜',
      type: 'dailyhot',
      demo: false,
      intervalMs,
      async fetch() {
        state.calls++
        state.at.push(now())
        state.running++
        state.maxRunning = Math.max(state.maxRunning, state.running)
        try {
          return await state.next()
        } finally {
          state.running--
        }
      }
    }
    return { source, state }
  }

  function upstream() {
    return {
      calls: 0,
      /** When each fetch started. */
      at: [] as number[],
      running: 0,
      maxRunning: 0,
      next: async (): Promise<HotItem[]> => [{ id: 'a', title: '第一条', url: 'https://x.example/a', hot: 1, desc: '', cover: null, time: null }]
    }
  }

  it('fetches once for concurrent callers, caches, and serves the last good list flagged stale when the source fails', async () => {
    const clock = testClock()
    const { source, state } = scripted()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const first = state.next
    state.next = async () => {
      await gate
      return first()
    }
    const logger = memoryLogger()
    const hot = createHotService({ db: database.db, sources: [source], now: clock.now, logger })
    const lists = Promise.all([hot.list('scripted'), hot.list('scripted'), hot.refresh('scripted')])
    await new Promise((resolve) => setTimeout(resolve, 50))
    release()
    const [a, b] = await lists
    expect(state.calls).toBe(1)
    expect(state.maxRunning).toBe(1)
    expect(a.items.map((i) => i.title)).toEqual(['第一条'])
    expect(b.source).toMatchObject({ sourceId: 'scripted', stale: false, updatedTime: clock.now() })

    // Within the interval the cache answers; the source is not asked again.
    await hot.list('scripted')
    expect(state.calls).toBe(1)

    // The source breaks: the cached list is still served, now flagged stale.
    state.next = async () => {
      throw new HotSourceError('「测试榜」获取失败：HTTP 500')
    }
    clock.advance(61_000)
    await hot.list('scripted') // due: a refresh starts in the background
    await hot.refresh('scripted')
    expect(state.calls).toBe(2)
    const stale = await hot.list('scripted')
    expect(stale.source.stale).toBe(true)
    expect(stale.source.updatedTime).toBe(clock.now() - 61_000)
    expect(stale.items.map((i) => i.title)).toEqual(['第一条'])
    const [row] = await database.db.select().from(hotCache)
    expect(row?.lastError).toBe('「测试榜」获取失败：HTTP 500')

    // An empty answer is a failure too: the good list stays.
    state.next = async () => []
    await hot.refresh('scripted')
    expect((await hot.list('scripted')).items).toHaveLength(1)

    // It recovers.
    state.next = first
    await hot.refresh('scripted')
    expect((await hot.list('scripted')).source.stale).toBe(false)
  })

  it('answers 50200001 when a source never worked, 40400001 for unknown sources and items', async () => {
    const { source, state } = scripted()
    state.next = async () => {
      throw new HotSourceError('「测试榜」连接失败：refused')
    }
    const hot = createHotService({ db: database.db, sources: [source], now: Date.now, logger: memoryLogger() })
    await expect(hot.list('scripted')).rejects.toMatchObject({ code: 50200001, message: '「测试榜」连接失败：refused' })
    await expect(hot.list('nope')).rejects.toMatchObject({ code: 40400001 })
    await expect(hot.item('scripted', 'a')).rejects.toMatchObject({ code: 40400001 })
    expect((await hot.sources())[0]).toMatchObject({ sourceId: 'scripted', updatedTime: null, stale: false })
  })

  /** A memory queue on timers the test moves (queueNodes with one node), and a way to move them. */
  function manualQueue(clock: ReturnType<typeof testClock>, labels = ['a']) {
    let nodes: ReturnType<typeof queueNodes> | undefined
    const manual = manualTimers(clock, () => quiet(() => nodes!.running()))
    nodes = queueNodes({ labels, logger: memoryLogger(), timers: manual.timers, memory: true })
    return { ...manual, nodes }
  }

  it('refreshes each source on its own interval on the job queue, staggered at start, and stops cleanly', async () => {
    const clock = testClock()
    const start = clock.now()
    const { advance, pending, nodes } = manualQueue(clock)
    const fast = scripted('fast', 60_000, { now: clock.now })
    const slow = scripted('slow', 600_000, { now: clock.now })
    const hot = createHotService({ db: database.db, sources: [fast.source, slow.source], now: clock.now, logger: memoryLogger() })
    hot.start(nodes.queues.a!)
    await advance(1000) // the staggered first fetches
    expect([fast.state.calls, slow.state.calls]).toEqual([1, 1])
    expect([fast.state.at[0]! - start, slow.state.at[0]! - start]).toEqual([0, STAGGER_MS])
    for (let i = 0; i < 10; i++) await advance(60_000)
    expect(fast.state.calls).toBe(11)
    expect(slow.state.calls).toBe(2)
    // Each exactly on its interval (the slow one keeps its stagger).
    expect(fast.state.at.map((t) => t - start)).toEqual(Array.from({ length: 11 }, (_, i) => i * 60_000))
    expect(slow.state.at.map((t) => t - start)).toEqual([STAGGER_MS, 600_000 + STAGGER_MS])
    await hot.stop()
    await advance(600_000)
    expect(fast.state.calls).toBe(11)
    await nodes.close()
    expect(pending).toHaveLength(0)
  })

  it('starts the schedule from what the cache says was fetched last', async () => {
    const clock = testClock()
    const { advance, nodes } = manualQueue(clock)
    const { source, state } = scripted('cached', 60_000)
    await database.db
      .insert(hotCache)
      .values({ sourceId: 'cached', items: [], fetchedAt: new Date(clock.now() - 10_000), attemptedAt: new Date(clock.now() - 10_000) })
    const hot = createHotService({ db: database.db, sources: [source], now: clock.now, logger: memoryLogger() })
    hot.start(nodes.queues.a!)
    await advance(49_000)
    expect(state.calls).toBe(0)
    await advance(1_000)
    expect(state.calls).toBe(1)
    await hot.stop()
    await nodes.close()
  })

  it('with two nodes on one queue, fetches each due source once per interval', async () => {
    const clock = testClock()
    const start = clock.now()
    const { advance, nodes } = manualQueue(clock, ['a', 'b'])
    const upstreams = { one: upstream(), two: upstream(), slow: upstream() }
    // Each node has its own copies of the configured sources, hitting the same upstreams.
    const node = (label: 'a' | 'b') => {
      const sources = [
        scripted('one', 30_000, { state: upstreams.one, now: clock.now }).source,
        scripted('two', 30_000, { state: upstreams.two, now: clock.now }).source,
        scripted('slow', 90_000, { state: upstreams.slow, now: clock.now }).source
      ]
      const hot = createHotService({ db: database.db, sources, now: clock.now, logger: memoryLogger() })
      hot.start(nodes.queues[label]!)
      return hot
    }
    const services: HotService[] = [node('a'), node('b')]
    await advance(1000)
    expect([upstreams.one.calls, upstreams.two.calls, upstreams.slow.calls]).toEqual([1, 1, 1])
    // Staggered: not every list at once.
    expect([upstreams.one.at[0]! - start, upstreams.two.at[0]! - start, upstreams.slow.at[0]! - start]).toEqual([0, STAGGER_MS, 2 * STAGGER_MS])
    for (let i = 1; i <= 6; i++) {
      await advance(30_000)
      expect([upstreams.one.calls, upstreams.two.calls, upstreams.slow.calls]).toEqual([1 + i, 1 + i, 1 + Math.floor(i / 3)])
    }
    // Both nodes did the work (the queue hands jobs to either).
    const refreshes = nodes.runs.filter((r) => r.name === 'hot:refresh')
    expect(new Set(refreshes.map((r) => r.node))).toEqual(new Set(['a', 'b']))
    for (const u of Object.values(upstreams)) expect(u.maxRunning).toBe(1)
    await Promise.all(services.map((s) => s.stop()))
    await nodes.close()
  })

  it.skipIf(!process.env.REDIS_URL)('with two nodes on BullMQ, fetches each due source once per interval', async () => {
    const nodes = queueNodes({ labels: ['a', 'b'], logger: memoryLogger() })
    expect(nodes.engine).toBe('bullmq')
    const interval = 1000
    const upstreams = { one: upstream(), two: upstream() }
    const services = (['a', 'b'] as const).map((label) => {
      const sources = [scripted('one', interval, { state: upstreams.one }).source, scripted('two', interval, { state: upstreams.two }).source]
      const hot = createHotService({ db: database.db, sources, now: Date.now, logger: memoryLogger() })
      hot.start(nodes.queues[label]!)
      return hot
    })
    try {
      await waitUntil(() => upstreams.one.calls >= 4 && upstreams.two.calls >= 4, 20_000)
    } finally {
      await Promise.all(services.map((s) => s.stop()))
      await nodes.close()
    }
    for (const u of Object.values(upstreams)) {
      expect(u.maxRunning).toBe(1)
      // Once per interval: never a second fetch of a list before its interval is up (two nodes
      // each fetching would show gaps near zero).
      const gaps = u.at.slice(1).map((t, i) => t - u.at[i]!)
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(interval * 0.9)
    }
  })
})
