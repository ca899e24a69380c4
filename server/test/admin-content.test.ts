import { sql } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { adminAudit, contentReports } from '../src/db/schema.js'
import type { WireTask } from '../src/modules/painting/wire.js'
import type { GalleryItem } from '../src/wire.js'
import { usePaintingHarness } from './helpers/painting.js'

// Issue 17 "Content" and issue 18 reports: an operator takes a work down (hidden from everyone,
// its files answer 410, its owner sees 已下架 with the reason) and restores it; users report works
// into the console's queue, once per item however many requests race.
const OPERATOR = '13900000001'
const MJ = '/api/v1/painting'

beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
})
afterEach(() => vi.unstubAllEnvs())

interface Report {
  id: number
  kind: string
  itemId: string
  reason: string
  excerpt: string
  status: string
  reporterPhone: string
  ownerId: string
  takenDown: boolean
}

describe('takedowns and reports', () => {
  const ctx = usePaintingHarness({ env: { SMS_HOURLY_PER_IP: '1000' } })

  async function work(token: string, prompt: string): Promise<WireTask> {
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    const task = await ctx.h.settled(token, res.body.data.taskId)
    expect(task.status).toBe('SUCCESS')
    expect((await ctx.h.post('/api/v1/gallery/publish', { taskId: task.taskId }, token)).body.code).toBe(2000)
    return task
  }
  const gallery = async (token: string) =>
    (await ctx.h.post<{ list: GalleryItem[]; total: number }>('/api/v1/gallery/list', { pageNum: 1, pageSize: 100 }, token)).body.data
  const fileStatus = async (url: string) => (await ctx.h.app.request(new URL(url, 'http://localhost').pathname)).status
  const mine = async (token: string) => (await ctx.h.post<{ list: WireTask[] }>(`${MJ}/task/list`, { pageNum: 1, pageSize: 100 }, token)).body.data.list

  it('takes a gallery work down for everyone at once, stops serving its files, tells the owner why, and restores it', async () => {
    const alice = await ctx.h.login('13800138601')
    const bob = await ctx.h.login('13800138602')
    const op = await ctx.h.login(OPERATOR)
    const fox = await work(alice.token, '雪地里的狐狸')
    const cat = await work(alice.token, '窗台上的橘猫')
    expect(await fileStatus(fox.imageUrl!)).toBe(200)

    const listed = await ctx.h.post<{ list: { itemId: string; ownerPhone: string; title: string; takedown: unknown }[]; total: number }>(
      '/api/admin/content/list',
      { list: 'gallery', pageNum: 1, pageSize: 20 },
      op.token
    )
    expect(listed.body.data.list.map((r) => [r.itemId, r.ownerPhone, r.title, r.takedown])).toEqual([
      [cat.taskId, '138****8601', '窗台上的橘猫', null],
      [fox.taskId, '138****8601', '雪地里的狐狸', null]
    ])

    // a normal user cannot list, take down or restore
    for (const path of [
      '/api/admin/content/list',
      '/api/admin/content/takedown',
      '/api/admin/content/restore',
      '/api/admin/reports/list',
      '/api/admin/reports/resolve'
    ]) {
      const refused = await ctx.h.post(path, { list: 'gallery', kind: 'painting', itemId: fox.taskId, reason: '违规' }, bob.token)
      expect([refused.status, refused.body.code], path).toEqual([403, 40300001])
    }

    const down = await ctx.h.post('/api/admin/content/takedown', { kind: 'painting', itemId: fox.taskId, reason: '含有违规内容' }, op.token)
    expect(down.body.code, JSON.stringify(down.body)).toBe(2000)
    // hidden for everyone, the owner included; likes refused; the files gone
    expect((await gallery(bob.token)).list.map((w) => w.workId)).toEqual([cat.taskId])
    expect((await gallery(alice.token)).list.map((w) => w.workId)).toEqual([cat.taskId])
    expect((await ctx.h.post('/api/v1/gallery/like', { workId: fox.taskId }, bob.token)).body.code).toBe(40400001)
    expect(await fileStatus(fox.imageUrl!)).toBe(410)
    expect(await fileStatus(fox.thumbUrl!)).toBe(410)
    expect(await fileStatus(cat.imageUrl!)).toBe(200)
    // the owner's history says 已下架 with the reason, without the file's address
    const own = (await mine(alice.token)).find((t) => t.taskId === fox.taskId)!
    expect([own.takedown, own.imageUrl]).toEqual(['含有违规内容', null])
    expect((await mine(alice.token)).find((t) => t.taskId === cat.taskId)!.takedown).toBeUndefined()
    // twice is refused with a message that names it
    const again = await ctx.h.post('/api/admin/content/takedown', { kind: 'painting', itemId: fox.taskId, reason: '再次' }, op.token)
    expect([again.body.code, again.body.message]).toEqual([40000001, '该内容已被下架，无需重复操作'])
    const missing = await ctx.h.post('/api/admin/content/takedown', { kind: 'song', itemId: 'nope', reason: '违规' }, op.token)
    expect(missing.body.code).toBe(40400001)

    const back = await ctx.h.post('/api/admin/content/restore', { kind: 'painting', itemId: fox.taskId, reason: '误判' }, op.token)
    expect(back.body.code, JSON.stringify(back.body)).toBe(2000)
    expect((await gallery(bob.token)).total).toBe(2)
    expect(await fileStatus(fox.imageUrl!)).toBe(200)
    expect((await mine(alice.token)).find((t) => t.taskId === fox.taskId)!.takedown).toBeUndefined()

    const lines = await ctx.db.db.select().from(adminAudit).where(sql`${adminAudit.action} like 'content.%'`).orderBy(adminAudit.id)
    expect(lines.map((l) => [l.action, l.target, l.reason])).toEqual([
      ['content.takedown', `painting:${fox.taskId}`, '含有违规内容'],
      ['content.restore', `painting:${fox.taskId}`, '误判']
    ])
  })

  it('takes one report per user and item however many race, queues it, and confirming takes the work down', async () => {
    const alice = await ctx.h.login('13800138601')
    const bob = await ctx.h.login('13800138602')
    const carol = await ctx.h.login('13800138603')
    const op = await ctx.h.login(OPERATOR)
    const fox = await work(alice.token, '雪地里的狐狸')

    const body = { kind: 'painting', itemId: fox.taskId, reason: '色情低俗：不适合展示' }
    const replies = await Promise.all(Array.from({ length: 20 }, () => ctx.h.post<{ reportId: number; duplicate: boolean }>('/api/v1/report', body, bob.token)))
    expect(replies.map((r) => r.body.code)).toEqual(Array(20).fill(2000))
    expect(new Set(replies.map((r) => r.body.data.reportId)).size).toBe(1)
    expect(replies.filter((r) => !r.body.data.duplicate).length).toBeLessThanOrEqual(1)
    expect((await ctx.h.post('/api/v1/report', { ...body, reason: '侵权' }, carol.token)).body.code).toBe(2000)
    // what cannot be seen cannot be reported; a reason is required
    expect((await ctx.h.post('/api/v1/report', { ...body, itemId: 'nope' }, bob.token)).body.code).toBe(40400001)
    expect((await ctx.h.post('/api/v1/report', { ...body, reason: '' }, bob.token)).body.message).toContain('举报理由')

    const queue = await ctx.h.post<{ list: Report[] }>('/api/admin/reports/list', {}, op.token)
    expect(queue.body.data.list.map((r) => [r.kind, r.itemId, r.reason, r.excerpt, r.reporterPhone, r.ownerId, r.takenDown])).toEqual([
      ['painting', fox.taskId, '侵权', '雪地里的狐狸', '138****8603', alice.accountId, false],
      ['painting', fox.taskId, '色情低俗：不适合展示', '雪地里的狐狸', '138****8602', alice.accountId, false]
    ])

    const first = queue.body.data.list[1]!.id
    const resolved = await ctx.h.post('/api/admin/reports/resolve', { reportId: first, decision: 'confirm', note: '确认违规' }, op.token)
    expect(resolved.body.data).toEqual({ settled: 2, takenDown: true, ownerId: alice.accountId })
    expect((await gallery(carol.token)).total).toBe(0)
    expect(await fileStatus(fox.imageUrl!)).toBe(410)
    expect((await ctx.h.post<{ list: Report[] }>('/api/admin/reports/list', {}, op.token)).body.data.list).toEqual([])
    const confirmed = (await ctx.h.post<{ list: Report[] }>('/api/admin/reports/list', { status: 'confirmed' }, op.token)).body.data.list
    expect(confirmed.map((r) => [r.status, r.takenDown])).toEqual([
      ['confirmed', true],
      ['confirmed', true]
    ])
    const twice = await ctx.h.post('/api/admin/reports/resolve', { reportId: first, decision: 'dismiss', note: '重复' }, op.token)
    expect([twice.body.code, twice.body.message]).toEqual([40000001, '该举报已处理'])
    // a handled report is no longer open: the same user may report the item again later
    expect((await ctx.h.post<{ duplicate: boolean }>('/api/v1/report', body, bob.token)).body.code).toBe(40400001)
  })

  it('dismisses without a takedown, and refuses more than 20 reports an hour from one account', async () => {
    const alice = await ctx.h.login('13800138601')
    const bob = await ctx.h.login('13800138602')
    const op = await ctx.h.login(OPERATOR)
    const fox = await work(alice.token, '雪地里的狐狸')
    const filed = await ctx.h.post<{ reportId: number }>('/api/v1/report', { kind: 'painting', itemId: fox.taskId, reason: '其他' }, bob.token)
    const dismissed = await ctx.h.post('/api/admin/reports/resolve', { reportId: filed.body.data.reportId, decision: 'dismiss', note: '未见违规' }, op.token)
    expect(dismissed.body.data).toMatchObject({ settled: 1, takenDown: false })
    expect((await gallery(bob.token)).total).toBe(1)

    const now = new Date(ctx.h.clock.now())
    await ctx.db.db
      .insert(contentReports)
      .values(Array.from({ length: 19 }, (_, i) => ({ kind: 'image' as const, itemId: `img-${i}`, reporterId: bob.accountId, reason: '其他', createdAt: now })))
    const limited = await ctx.h.post('/api/v1/report', { kind: 'painting', itemId: fox.taskId, reason: '其他' }, bob.token)
    expect([limited.status, limited.body.code, limited.body.message]).toEqual([429, 42900001, '举报过于频繁，请一小时后再试'])
    ctx.h.clock.advance(3600_001)
    expect((await ctx.h.post('/api/v1/report', { kind: 'painting', itemId: fox.taskId, reason: '其他' }, bob.token)).body.code).toBe(2000)
  })
})
