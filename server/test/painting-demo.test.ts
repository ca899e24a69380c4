import { eq } from 'drizzle-orm'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { paintingTasks } from '../src/db/schema.js'
import type { WireTask } from '../src/modules/painting/wire.js'
import { usePaintingHarness } from './helpers/painting.js'

const MJ = '/api/v1/painting'

describe('painting with the offline demo painter', () => {
  const ctx = usePaintingHarness()

  async function imagine(token: string, prompt = '一只在雪地里的狐狸 --ar 16:9 --seed 42', extra: Record<string, unknown> = {}) {
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt, ...extra }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    return ctx.h.settled(token, res.body.data.taskId)
  }

  async function action(token: string, body: Record<string, unknown>) {
    const res = await ctx.h.post<WireTask>(`${MJ}/action`, body, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    return ctx.h.settled(token, res.body.data.taskId)
  }

  async function picture(url: string | null) {
    const key = ctx.h.storage.keyOf(url ?? '')
    expect(key).not.toBeNull()
    const file = await ctx.h.storage.get(key!)
    expect(file).not.toBeNull()
    return { body: file!.body, meta: await sharp(file!.body).metadata() }
  }

  it('imagine → U2 → pan left, each charged once, pictures in Lingxi storage with 160-wide thumbnails', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)

    const grid = await imagine(token)
    expect(grid).toMatchObject({ kind: 'mj', action: 'IMAGINE', status: 'SUCCESS', progress: 100, demo: true, parentId: null, failReason: null })
    expect(grid.imageUrl).toMatch(new RegExp(`^${ctx.h.publicUrl}/files/painting/`))
    expect(grid.buttons.map((b) => b.label)).toEqual(['U1', 'U2', 'U3', 'U4', 'V1', 'V2', 'V3', 'V4', '🔄'])
    const gridImage = await picture(grid.imageUrl)
    expect(gridImage.meta.width! / gridImage.meta.height!).toBeCloseTo(16 / 9, 1)
    expect([grid.width, grid.height]).toEqual([gridImage.meta.width, gridImage.meta.height])
    const thumb = await picture(grid.thumbUrl)
    expect(thumb.meta.width).toBe(160)

    const up = await action(token, { taskId: grid.taskId, action: 'UPSCALE', index: 2 })
    expect(up).toMatchObject({ action: 'UPSCALE', status: 'SUCCESS', parentId: grid.taskId, index: 2, prompt: grid.prompt })
    expect(up.buttons.map((b) => b.label)).toEqual([
      '⬅️',
      '➡️',
      '⬆️',
      '⬇️',
      '缩小 2x',
      '缩小 1.5x',
      '自定义缩放',
      '微变',
      '强变',
      '局部重绘',
      '高清 细腻',
      '高清 创意'
    ])
    const upImage = await picture(up.imageUrl)
    expect(upImage.meta.width).toBe(gridImage.meta.width)

    const pan = await action(token, { taskId: up.taskId, action: 'PAN', direction: 'left' })
    expect(pan).toMatchObject({ action: 'PAN', status: 'SUCCESS', parentId: up.taskId, params: { direction: 'left' } })
    expect(pan.buttons).toHaveLength(9)
    // A pan to the left makes the picture wider than the one it came from.
    expect(pan.width! / pan.height!).toBeGreaterThan(up.width! / up.height!)

    expect(await ctx.h.mjCount(accountId)).toBe(start - 3)
    expect(await ctx.h.log(accountId)).toEqual([
      { amount: -1, balance: start - 1, reason: '绘画：文生图' },
      { amount: -1, balance: start - 2, reason: '绘画：放大 2' },
      { amount: -1, balance: start - 3, reason: '绘画：平移' }
    ])
  })

  it('draws the same grid for the same prompt and seed', async () => {
    const { token } = await ctx.h.login()
    const a = await imagine(token, 'red lighthouse --seed 7')
    const b = await imagine(token, 'red lighthouse --seed 7')
    const c = await imagine(token, 'red lighthouse --seed 8')
    const [pa, pb, pc] = await Promise.all([picture(a.imageUrl), picture(b.imageUrl), picture(c.imageUrl)])
    expect(Buffer.from(pa.body).equals(Buffer.from(pb.body))).toBe(true)
    expect(Buffer.from(pa.body).equals(Buffer.from(pc.body))).toBe(false)
  })

  it('V3 and reroll give new grids; buttons not offered are refused without a charge', async () => {
    const { token, accountId } = await ctx.h.login()
    const grid = await imagine(token, 'koi pond')
    const v3 = await action(token, { taskId: grid.taskId, action: 'VARIATION', index: 3 })
    expect(v3).toMatchObject({ action: 'VARIATION', index: 3, status: 'SUCCESS' })
    expect(v3.buttons).toHaveLength(9)
    const reroll = await action(token, { taskId: grid.taskId, action: 'REROLL' })
    expect(reroll).toMatchObject({ action: 'REROLL', index: null, status: 'SUCCESS', promptEn: grid.promptEn })
    expect(reroll.imageUrl).not.toBe(grid.imageUrl)

    const before = await ctx.h.mjCount(accountId)
    const pan = await ctx.h.post(`${MJ}/action`, { taskId: grid.taskId, action: 'PAN', direction: 'up' }, token)
    expect(pan.body).toMatchObject({ code: 40000001, message: '该任务不能执行此操作' })
    const noIndex = await ctx.h.post(`${MJ}/action`, { taskId: grid.taskId, action: 'UPSCALE' }, token)
    expect(noIndex.body).toMatchObject({ code: 40000001, message: 'index 不能为空' })
    const badIndex = await ctx.h.post(`${MJ}/action`, { taskId: grid.taskId, action: 'UPSCALE', index: 5 }, token)
    expect(badIndex.body.code).toBe(40000001)
    expect(await ctx.h.mjCount(accountId)).toBe(before)
  })

  it('describe gives four prompts (P1–P4), and P1 starts an imagine', async () => {
    const { token } = await ctx.h.login()
    const image = await ctx.h.upload()
    const res = await ctx.h.post<WireTask>(`${MJ}/describe`, { image }, token)
    expect(res.body.code).toBe(2000)
    const described = await ctx.h.settled(token, res.body.data.taskId)
    expect(described).toMatchObject({ action: 'DESCRIBE', status: 'SUCCESS', imageUrl: image })
    expect(described.prompts).toHaveLength(4)
    expect(described.prompts[0]).toMatch(/--ar 3:2$/)
    expect(described.buttons.map((b) => b.label)).toEqual(['P1', 'P2', 'P3', 'P4'])
    const p1 = await imagine(token, described.prompts[0]!)
    expect(p1.status).toBe('SUCCESS')
    expect(p1.width! / p1.height!).toBeCloseTo(1.5, 1)
  })

  it('blend mixes 2–5 uploaded pictures in the chosen shape', async () => {
    const { token } = await ctx.h.login()
    const images = [await ctx.h.upload({ r: 255, g: 0, b: 0 }), await ctx.h.upload({ r: 0, g: 0, b: 255 })]
    const res = await ctx.h.post<WireTask>(`${MJ}/blend`, { images, dimensions: 'PORTRAIT' }, token)
    expect(res.body.code).toBe(2000)
    const blend = await ctx.h.settled(token, res.body.data.taskId)
    expect(blend).toMatchObject({ action: 'BLEND', status: 'SUCCESS', params: { dimensions: 'PORTRAIT' } })
    expect(blend.height!).toBeGreaterThan(blend.width!)
    expect(blend.buttons).toHaveLength(9)
    const one = await ctx.h.post(`${MJ}/blend`, { images: [images[0]], dimensions: 'SQUARE' }, token)
    expect(one.body).toMatchObject({ code: 40000001, message: '请选择 2–5 张图片' })
  })

  it('refuses image links that are not Lingxi storage URLs, or files that do not exist, before charging', async () => {
    const { token, accountId } = await ctx.h.login()
    const before = await ctx.h.mjCount(accountId)
    const own = await ctx.h.upload()
    const cases: [string, Record<string, unknown>][] = [
      ['describe', { image: 'https://cdn.discordapp.com/attachments/1/2/x.png' }],
      ['describe', { image: `${ctx.h.publicUrl}/files/uploads/none/missing.png` }],
      ['describe', { image: `${ctx.h.publicUrl}/files/../secret.png` }],
      ['blend', { images: [own, 'http://example.com/a.png'], dimensions: 'SQUARE' }],
      ['imagine', { prompt: 'https://example.com/cat.png a cat' }],
      ['imagine', { prompt: 'a cat', images: ['http://127.0.0.1:1/x.png'] }]
    ]
    for (const [path, body] of cases) {
      const res = await ctx.h.post(`${MJ}/${path}`, body, token)
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400)
      expect(res.body.code).toBe(40000001)
      expect(res.body.message).toMatch(/灵犀图床|不存在/)
    }
    expect(await ctx.h.mjCount(accountId)).toBe(before)
    expect(await ctx.h.log(accountId)).toEqual([])
    // A leading Lingxi URL is accepted as a reference picture.
    const ok = await imagine(token, `${own} a cat in the style of this`)
    expect(ok.status).toBe('SUCCESS')
  })

  it('checks prompt options with the shared parser', async () => {
    const { token } = await ctx.h.login()
    const res = await ctx.h.post(`${MJ}/imagine`, { prompt: 'cat --ar 9:1' }, token)
    expect(res.body).toMatchObject({ code: 40000001, message: '画面比例 --ar 不能超过 4:1 或 1:4' })
    const empty = await ctx.h.post(`${MJ}/imagine`, { prompt: '   ' }, token)
    expect(empty.body).toMatchObject({ code: 40000001, message: '提示词不能为空' })
    const onlyOptions = await ctx.h.post(`${MJ}/imagine`, { prompt: '--ar 16:9' }, token)
    expect(onlyOptions.body.code).toBe(40000001)
  })

  it('zero mjCount answers 40200001 and saves nothing', async () => {
    const { token, accountId } = await ctx.h.login()
    await ctx.h.setMjCount(accountId, 0)
    const res = await ctx.h.post(`${MJ}/imagine`, { prompt: 'a cat' }, token)
    expect(res.status).toBe(402)
    expect(res.body).toMatchObject({ code: 40200001, message: '绘画次数不足，请充值后再试' })
    expect(await ctx.db.db.select().from(paintingTasks)).toEqual([])
    expect(await ctx.h.log(accountId)).toEqual([])
  })

  it('two requests racing for the last use: one is drawn, one is refused', async () => {
    const { token, accountId } = await ctx.h.login()
    await ctx.h.setMjCount(accountId, 1)
    const [a, b] = await Promise.all([ctx.h.post(`${MJ}/imagine`, { prompt: 'one' }, token), ctx.h.post(`${MJ}/imagine`, { prompt: 'two' }, token)])
    expect([a.body.code, b.body.code].sort()).toEqual([2000, 40200001])
    await ctx.h.runtime.idle()
    expect(await ctx.h.mjCount(accountId)).toBe(0)
  })

  it("another account's tasks answer 40400001 everywhere", async () => {
    const alice = await ctx.h.login('13800138000')
    const bob = await ctx.h.login('13900139000')
    const grid = await imagine(alice.token, 'private')
    const before = await ctx.h.mjCount(bob.accountId)
    for (const [path, body] of [
      ['task/get', { taskId: grid.taskId }],
      ['task/stop', { taskId: grid.taskId }],
      ['action', { taskId: grid.taskId, action: 'UPSCALE', index: 1 }]
    ] as const) {
      const res = await ctx.h.post(`${MJ}/${path}`, body, bob.token)
      expect(res.status).toBe(404)
      expect(res.body).toMatchObject({ code: 40400001, message: '任务不存在' })
    }
    const publish = await ctx.h.post('/api/v1/gallery/publish', { taskId: grid.taskId }, bob.token)
    expect(publish.body.code).toBe(40400001)
    const list = await ctx.h.post<{ total: number }>(`${MJ}/task/list`, { pageNum: 1, pageSize: 10 }, bob.token)
    expect(list.body.data.total).toBe(0)
    expect(await ctx.h.mjCount(bob.accountId)).toBe(before)
  })

  it('lists my tasks newest first, paged, filtered by kind', async () => {
    const { token } = await ctx.h.login()
    const first = await imagine(token, 'first')
    const second = await imagine(token, 'second')
    const sd = await ctx.h.post<WireTask>(
      '/api/v1/sd/txt2img',
      { prompt: 'sd one', width: 512, height: 512, steps: 20, cfgScale: 7, sampler: 'Euler a' },
      token
    )
    await ctx.h.runtime.idle()
    const page = await ctx.h.post<{ list: WireTask[]; total: number }>(`${MJ}/task/list`, { pageNum: 1, pageSize: 2 }, token)
    expect(page.body.data.total).toBe(3)
    expect(page.body.data.list.map((t) => t.taskId)).toEqual([sd.body.data.taskId, second.taskId])
    const mj = await ctx.h.post<{ list: WireTask[]; total: number }>(`${MJ}/task/list`, { pageNum: 1, pageSize: 10, kind: 'mj' }, token)
    expect(mj.body.data.list.map((t) => t.taskId)).toEqual([second.taskId, first.taskId])
  })

  it('SD txt2img draws the size asked for, records the seed, validates its fields', async () => {
    const { token, accountId } = await ctx.h.login()
    const options = await ctx.h.post<{ samplers: string[]; demo: boolean; defaults: { sampler: string } }>('/api/v1/sd/options', {}, token)
    expect(options.body.data.demo).toBe(true)
    expect(options.body.data.samplers).toContain(options.body.data.defaults.sampler)
    const before = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post<WireTask>(
      '/api/v1/sd/txt2img',
      { prompt: 'masterpiece, a castle', negativePrompt: 'lowres', width: 768, height: 512, steps: 20, cfgScale: 7.5, sampler: 'DPM++ 2M', seed: 99 },
      token
    )
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    const sd = await ctx.h.settled(token, res.body.data.taskId)
    expect(sd).toMatchObject({ kind: 'sd', action: 'TXT2IMG', status: 'SUCCESS', width: 768, height: 512, buttons: [], demo: true })
    expect(sd.params).toMatchObject({ seed: 99, steps: 20, cfgScale: 7.5, sampler: 'DPM++ 2M', negativePrompt: 'lowres' })
    expect(await ctx.h.mjCount(accountId)).toBe(before - 1)
    for (const [body, message] of [
      [{ width: 500 }, '宽度必须是 8 的倍数'],
      [{ width: 2048 }, '宽度不能大于 1536'],
      [{ steps: 0 }, '步数不能小于 1'],
      [{ cfgScale: 30 }, 'CFG 不能大于 20'],
      [{ sampler: 'nope' }, '采样器「nope」不可用']
    ] as const) {
      const base: Record<string, unknown> = { prompt: 'x', width: 512, height: 512, steps: 20, cfgScale: 7, sampler: 'Euler a' }
      const bad = await ctx.h.post('/api/v1/sd/txt2img', { ...base, ...body }, token)
      expect(bad.body.code).toBe(40000001)
      expect(bad.body.message).toContain(message)
    }
    expect(await ctx.h.mjCount(accountId)).toBe(before - 1)
  })

  it('gallery: publish my finished work, list it with a masked author, unpublish it', async () => {
    const alice = await ctx.h.login('13800138000')
    const bob = await ctx.h.login('13900139000')
    const grid = await imagine(alice.token, '星空下的城堡 --ar 3:2')
    const published = await ctx.h.post<WireTask>('/api/v1/gallery/publish', { taskId: grid.taskId }, alice.token)
    expect(published.body.data.published).toBe(true)

    const list = await ctx.h.post<{ list: any[]; total: number }>('/api/v1/gallery/list', { pageNum: 1, pageSize: 20 }, bob.token)
    expect(list.body.data.total).toBe(1)
    expect(list.body.data.list[0]).toMatchObject({
      workId: grid.taskId,
      taskId: grid.taskId,
      imageUrl: grid.imageUrl,
      thumbUrl: grid.thumbUrl,
      prompt: '星空下的城堡 --ar 3:2',
      author: '灵犀***00',
      mine: false
    })
    const mine = await ctx.h.post<{ list: any[] }>('/api/v1/gallery/list', {}, alice.token)
    expect(mine.body.data.list[0].mine).toBe(true)

    const unpublished = await ctx.h.post<WireTask>('/api/v1/gallery/unpublish', { taskId: grid.taskId }, alice.token)
    expect(unpublished.body.data.published).toBe(false)
    const empty = await ctx.h.post<{ total: number }>('/api/v1/gallery/list', {}, bob.token)
    expect(empty.body.data.total).toBe(0)

    const describeTask = await ctx.h.post<WireTask>(`${MJ}/describe`, { image: await ctx.h.upload() }, alice.token)
    await ctx.h.runtime.idle()
    const refused = await ctx.h.post('/api/v1/gallery/publish', { taskId: describeTask.body.data.taskId }, alice.token)
    expect(refused.body).toMatchObject({ code: 40000001, message: '只能发布已完成的作品' })
  })

  it('publishes progress on the account channel, never moving backwards', async () => {
    const { token, accountId } = await ctx.h.login()
    const events: any[] = []
    const sub = await ctx.h.bus.subscribe(accountId, (event, data) => {
      if (event === 'painting') events.push(JSON.parse(data))
    })
    const grid = await imagine(token, 'progress please')
    sub.close()
    const mine = events.filter((e) => e.taskId === grid.taskId)
    expect(mine.map((e) => e.status)).toEqual(['NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS', 'SUCCESS'])
    expect(mine.every((e) => e.requestId === grid.taskId)).toBe(true)
    const progress = mine.map((e) => e.progress)
    expect(progress).toEqual([...progress].sort((a, b) => a - b))
    expect(mine.at(-1)).toMatchObject({ imageUrl: grid.imageUrl, buttons: grid.buttons })
  })

  it('permissions: painting, SD and gallery each need their code', async () => {
    const { token, accountId } = await ctx.h.login()
    await ctx.db.db.execute(
      // Only chat left.
      (await import('drizzle-orm')).sql`update accounts set permission_codes = '{AI_TOOLS_CHAT}' where id = ${accountId}`
    )
    for (const path of [`${MJ}/imagine`, `${MJ}/task/list`, '/api/v1/sd/txt2img', '/api/v1/gallery/list']) {
      const res = await ctx.h.post(path, {}, token)
      expect(res.status, path).toBe(403)
      expect(res.body.code).toBe(40300001)
    }
    const anonymous = await ctx.h.post(`${MJ}/imagine`, { prompt: 'x' })
    expect(anonymous.body.code).toBe(50011004)
  })

  it('documents every painting route in the OpenAPI document', async () => {
    const res = await ctx.h.app.request('/api/openapi.json')
    const doc = (await res.json()) as { paths: Record<string, unknown> }
    for (const path of ['imagine', 'action', 'describe', 'blend', 'task/get', 'task/list', 'task/stop']) {
      expect(doc.paths).toHaveProperty(`${MJ}/${path}`)
    }
    for (const path of ['/api/v1/sd/options', '/api/v1/sd/txt2img', '/api/v1/gallery/list', '/api/v1/gallery/publish', '/api/v1/gallery/unpublish']) {
      expect(doc.paths).toHaveProperty(path)
    }
  })

  it('a finished task keeps its row when read back from the database', async () => {
    const { token } = await ctx.h.login()
    const grid = await imagine(token, 'db check')
    const [row] = await ctx.db.db.select().from(paintingTasks).where(eq(paintingTasks.id, grid.taskId))
    expect(row).toMatchObject({ rank: 4, charged: 1, refunded: false, provider: 'demo', demo: true })
  })
})
