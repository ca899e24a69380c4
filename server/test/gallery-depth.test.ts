import { describe, expect, it } from 'vitest'
import type { WireTask } from '../src/modules/painting/wire.js'
import type { GalleryItem } from '../src/wire.js'
import { usePaintingHarness } from './helpers/painting.js'

// Issue 22, the gallery: search by prompt, filter by model and aspect, likes (one per account,
// exact under races), 本周最受欢迎, the other works of a work's author (never named by phone),
// and unpublishing, which takes a work out of every view at once.

const MJ = '/api/v1/painting'
type Page = { list: GalleryItem[]; total: number }

describe('gallery depth', () => {
  const ctx = usePaintingHarness({ env: { SMS_HOURLY_PER_IP: '1000' } })

  async function work(token: string, prompt: string, publish = true): Promise<WireTask> {
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    const task = await ctx.h.settled(token, res.body.data.taskId)
    expect(task.status).toBe('SUCCESS')
    if (publish) expect((await ctx.h.post('/api/v1/gallery/publish', { taskId: task.taskId }, token)).body.code).toBe(2000)
    return task
  }

  async function list(token: string, body: Record<string, unknown> = {}): Promise<Page> {
    const res = await ctx.h.post<Page>('/api/v1/gallery/list', { pageNum: 1, pageSize: 100, ...body }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    return res.body.data
  }

  const like = (token: string, workId: string) => ctx.h.post<{ workId: string; likes: number; liked: boolean }>('/api/v1/gallery/like', { workId }, token)
  const unlike = (token: string, workId: string) => ctx.h.post<{ workId: string; likes: number; liked: boolean }>('/api/v1/gallery/unlike', { workId }, token)

  it('searches the prompt, filters by model and aspect, and lists the other works of an author', async () => {
    const alice = await ctx.h.login('13800138601')
    const bob = await ctx.h.login('13800138602')
    const fox = await work(alice.token, '雪地里的狐狸 --ar 16:9')
    const cat = await work(alice.token, '窗台上的橘猫 --ar 9:16')
    const square = await work(alice.token, '方形的 Lighthouse 灯塔')
    await work(alice.token, '没有发布的草稿', false)
    const bobs = await work(bob.token, '港口的狐狸船')

    expect((await list(bob.token)).total).toBe(4)
    // search: Chinese, mixed case English, and text that could be a LIKE pattern matches only itself
    expect((await list(bob.token, { keyword: '狐狸' })).list.map((w) => w.workId).sort()).toEqual([fox.taskId, bobs.taskId].sort())
    expect((await list(bob.token, { keyword: 'lighthouse' })).list.map((w) => w.workId)).toEqual([square.taskId])
    expect((await list(bob.token, { keyword: '%' })).total).toBe(0)
    expect((await list(bob.token, { keyword: '_' })).total).toBe(0)
    expect((await list(bob.token, { keyword: '草稿' })).total).toBe(0)

    expect((await list(bob.token, { aspect: 'landscape' })).list.map((w) => w.workId)).toEqual([fox.taskId])
    expect((await list(bob.token, { aspect: 'portrait' })).list.map((w) => w.workId)).toEqual([cat.taskId])
    expect((await list(bob.token, { aspect: 'square' })).list.map((w) => w.workId).sort()).toEqual([square.taskId, bobs.taskId].sort())
    expect((await list(bob.token, { model: 'mj' })).total).toBe(4)
    expect((await list(bob.token, { model: 'sd' })).total).toBe(0)
    expect((await list(bob.token, { model: 'mj', aspect: 'square', keyword: '狐狸' })).list.map((w) => w.workId)).toEqual([bobs.taskId])

    // the author's other works, asked by one of the works: no phone, no account id on the wire
    const others = await list(bob.token, { sameAuthorAs: fox.taskId })
    expect(others.list.map((w) => w.workId)).toEqual([square.taskId, cat.taskId])
    const wire = JSON.stringify(others)
    expect(wire).not.toContain('13800138601')
    expect(wire).not.toContain(alice.accountId)
    expect(others.list[0]!.author).not.toMatch(/\d{4}/)

    // bad input changes nothing and says which field
    for (const [body, field] of [
      [{ keyword: 'x'.repeat(101) }, '搜索内容'],
      [{ model: 'dalle' }, '模型'],
      [{ aspect: 'round' }, '画幅'],
      [{ sort: 'random' }, '排序'],
      [{ sameAuthorAs: 'x'.repeat(65) }, '作品ID']
    ] as const) {
      const res = await ctx.h.post('/api/v1/gallery/list', body, bob.token)
      expect(res.body.code).toBe(40000001)
      expect(res.body.message).toContain(field)
    }
    // an unpublished work or a made-up id names no author
    const draft = await work(alice.token, '另一个草稿', false)
    for (const id of [draft.taskId, 'no-such-work']) {
      const res = await ctx.h.post('/api/v1/gallery/list', { sameAuthorAs: id }, bob.token)
      expect(res.body.code).toBe(40400001)
    }
  })

  it('likes: one per account, exact under 50 concurrent likes by 50 accounts and 50 by one account', async () => {
    const owner = await ctx.h.login('13800138611')
    const piece = await work(owner.token, '被很多人喜欢的画')
    const fans = []
    for (let i = 0; i < 50; i++) fans.push(await ctx.h.login(`1390000${String(i).padStart(4, '0')}`))

    const answers = await Promise.all(fans.map((f) => like(f.token, piece.taskId)))
    expect(answers.every((a) => a.body.code === 2000 && a.body.data.liked)).toBe(true)
    expect(Math.max(...answers.map((a) => a.body.data.likes))).toBe(50)

    const one = fans[0]!
    const again = await Promise.all(Array.from({ length: 50 }, () => like(one.token, piece.taskId)))
    expect(again.every((a) => a.body.code === 2000 && a.body.data.likes === 50)).toBe(true)

    const seen = (await list(one.token)).list.find((w) => w.workId === piece.taskId)!
    expect(seen).toMatchObject({ likes: 50, liked: true, weekLikes: 50 })
    expect((await list(owner.token)).list.find((w) => w.workId === piece.taskId)).toMatchObject({ likes: 50, liked: false, mine: true })

    // unlike, also in a race with itself: the count drops by exactly one
    const back = await Promise.all(Array.from({ length: 20 }, () => unlike(one.token, piece.taskId)))
    expect(back.every((a) => a.body.code === 2000 && a.body.data.likes === 49 && !a.body.data.liked)).toBe(true)
    expect((await like(one.token, piece.taskId)).body.data).toEqual({ workId: piece.taskId, likes: 50, liked: true })
  })

  it('likes only published works; another account cannot unpublish; unpublishing hides a work at once', async () => {
    const alice = await ctx.h.login('13800138621')
    const bob = await ctx.h.login('13800138622')
    const shown = await work(alice.token, '公开的作品')
    const draft = await work(alice.token, '私人的作品', false)

    for (const id of [draft.taskId, 'forged-id', '']) {
      const res = await like(bob.token, id)
      expect(res.body.code).toBe(id ? 40400001 : 40000001)
    }
    expect((await ctx.h.post('/api/v1/gallery/like', { workId: 'x'.repeat(10_000) }, bob.token)).body.code).toBe(40000001)
    expect((await ctx.h.post('/api/v1/gallery/like', {}, bob.token)).body.code).toBe(40000001)
    expect((await ctx.h.post('/api/v1/gallery/like', { workId: shown.taskId })).status).toBe(401)

    expect((await like(bob.token, shown.taskId)).body.data.likes).toBe(1)
    // bob cannot take alice's work down
    expect((await ctx.h.post('/api/v1/gallery/unpublish', { taskId: shown.taskId }, bob.token)).body.code).toBe(40400001)
    expect((await list(bob.token)).list.map((w) => w.workId)).toContain(shown.taskId)

    // alice can: gone from every view, and no more likes
    expect((await ctx.h.post('/api/v1/gallery/unpublish', { taskId: shown.taskId }, alice.token)).body.code).toBe(2000)
    for (const body of [{}, { sort: 'week' }, { keyword: '公开' }]) expect((await list(bob.token, body)).list.map((w) => w.workId)).not.toContain(shown.taskId)
    expect((await like(bob.token, shown.taskId)).body.code).toBe(40400001)
  })

  it('本周最受欢迎: the works liked in the last 7 days, most liked first', async () => {
    const author = await ctx.h.login('13800138631')
    const [a, b, c] = [await work(author.token, '作品甲'), await work(author.token, '作品乙'), await work(author.token, '作品丙')]
    const voters = [await ctx.h.login('13800138632'), await ctx.h.login('13800138633'), await ctx.h.login('13800138634')]
    // an old like of c, eight days ago
    await like(voters[0]!.token, c.taskId)
    ctx.h.clock.advance(8 * 24 * 3600_000)
    for (const v of voters) await like(v.token, b.taskId)
    await like(voters[0]!.token, a.taskId)

    const week = await list(author.token, { sort: 'week' })
    expect(week.list.map((w) => [w.workId, w.weekLikes, w.likes])).toEqual([
      [b.taskId, 3, 3],
      [a.taskId, 1, 1]
    ])
    expect(week.total).toBe(2)
    // the newest-first view still has all three, with all-time counts
    expect((await list(author.token)).list.find((w) => w.workId === c.taskId)).toMatchObject({ likes: 1, weekLikes: 0 })
  })
})
