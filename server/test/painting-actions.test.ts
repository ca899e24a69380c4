import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { translatePrompt } from '../src/modules/painting/translate.js'
import type { WireTask } from '../src/modules/painting/wire.js'
import { usePaintingHarness } from './helpers/painting.js'
import { maskDataUrl } from './helpers/painting-masks.js'

const MJ = '/api/v1/painting'

describe('Midjourney actions beyond U/V with the demo painter', () => {
  const ctx = usePaintingHarness()

  async function ok(path: string, body: Record<string, unknown>, token: string) {
    const res = await ctx.h.post<WireTask>(`${MJ}/${path}`, body, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    return ctx.h.settled(token, res.body.data.taskId)
  }

  async function upscaled(token: string, prompt = 'a lighthouse on a rocky shore --ar 3:2 --seed 5') {
    const grid = await ok('imagine', { prompt }, token)
    return ok('action', { taskId: grid.taskId, action: 'UPSCALE', index: 1 }, token)
  }

  async function size(url: string | null) {
    const file = await ctx.h.storage.get(ctx.h.storage.keyOf(url ?? '')!)
    return sharp(file!.body).metadata()
  }

  it('zoom 2x / 1.5x / custom, vary subtle / strong, vary region and upscale subtle / creative: each drawn, charged once with its log', async () => {
    const { token, accountId } = await ctx.h.login()
    const up = await upscaled(token)
    const start = await ctx.h.mjCount(accountId)

    const zoom2 = await ok('action', { taskId: up.taskId, action: 'ZOOM', mode: '2x' }, token)
    expect(zoom2).toMatchObject({ action: 'ZOOM', status: 'SUCCESS', demo: true, parentId: up.taskId, params: { mode: '2x', zoom: 2 } })
    expect(zoom2.buttons.map((b) => b.label)).toEqual(['U1', 'U2', 'U3', 'U4', 'V1', 'V2', 'V3', 'V4', '🔄'])
    const zoom15 = await ok('action', { taskId: up.taskId, action: 'ZOOM', mode: '1.5x' }, token)
    expect(zoom15.params).toEqual({ mode: '1.5x', zoom: 1.5 })
    const custom = await ok('action', { taskId: up.taskId, action: 'ZOOM', mode: 'custom', zoom: 1.25, prompt: 'a lighthouse at dusk' }, token)
    expect(custom).toMatchObject({
      status: 'SUCCESS',
      params: { mode: 'custom', zoom: 1.25 },
      prompt: 'a lighthouse at dusk',
      promptEn: 'a lighthouse at dusk'
    })
    // Zoom keeps the picture's shape; the grid's long side is 1024.
    const zoomMeta = await size(zoom2.imageUrl)
    expect(zoomMeta.width! / zoomMeta.height!).toBeCloseTo(up.width! / up.height!, 1)

    const subtle = await ok('action', { taskId: up.taskId, action: 'VARY', mode: 'subtle' }, token)
    const strong = await ok('action', { taskId: up.taskId, action: 'VARY', mode: 'strong' }, token)
    expect([subtle.status, strong.status]).toEqual(['SUCCESS', 'SUCCESS'])
    expect(subtle.imageUrl).not.toBe(strong.imageUrl)

    const region = await ok('action', { taskId: up.taskId, action: 'VARY_REGION', mask: await maskDataUrl(up.width!, up.height!), prompt: 'a red boat' }, token)
    expect(region).toMatchObject({ action: 'VARY_REGION', status: 'SUCCESS', prompt: 'a red boat', params: { prompt: 'a red boat' } })

    const hdSubtle = await ok('action', { taskId: up.taskId, action: 'UPSCALE_HD', mode: 'subtle' }, token)
    const hdCreative = await ok('action', { taskId: up.taskId, action: 'UPSCALE_HD', mode: 'creative' }, token)
    expect(hdSubtle.width).toBe(up.width! * 2)
    expect(hdCreative.height).toBe(up.height! * 2)
    // An upscaled-again picture offers pan, zoom and vary, not another upscale.
    expect(hdSubtle.buttons.map((b) => b.action)).not.toContain('UPSCALE_HD')
    expect(hdSubtle.buttons.map((b) => b.action)).toContain('VARY_REGION')

    expect(await ctx.h.mjCount(accountId)).toBe(start - 8)
    expect((await ctx.h.log(accountId)).slice(-8).map((l) => [l.amount, l.reason])).toEqual([
      [-1, '绘画：缩小扩图'],
      [-1, '绘画：缩小扩图'],
      [-1, '绘画：缩小扩图'],
      [-1, '绘画：微调变化'],
      [-1, '绘画：微调变化'],
      [-1, '绘画：局部重绘'],
      [-1, '绘画：高清放大'],
      [-1, '绘画：高清放大']
    ])
  }, 90_000)

  it('each new action that fails gives its mjCount back, logged', async () => {
    const { token, accountId } = await ctx.h.login()
    const up = await upscaled(token)
    const mask = await maskDataUrl(up.width!, up.height!)
    // The picture is gone from storage: the painter cannot draw from it and the task fails.
    await ctx.h.storage.delete(ctx.h.storage.keyOf(up.imageUrl!)!)
    const start = await ctx.h.mjCount(accountId)
    const bodies = [
      { action: 'ZOOM', mode: '2x' },
      { action: 'ZOOM', mode: 'custom', zoom: 1.8 },
      { action: 'VARY', mode: 'strong' },
      { action: 'VARY_REGION', mask },
      { action: 'UPSCALE_HD', mode: 'creative' }
    ]
    for (const body of bodies) {
      const done = await ok('action', { taskId: up.taskId, ...body }, token)
      expect(done, JSON.stringify(body)).toMatchObject({ status: 'FAILURE', failReason: '原图已不存在，无法继续操作' })
      expect(await ctx.h.mjCount(accountId)).toBe(start)
    }
    const log = (await ctx.h.log(accountId)).slice(-10).map((l) => `${l.amount} ${l.reason}`)
    expect(log).toEqual([
      '-1 绘画：缩小扩图',
      '1 绘画退回：缩小扩图失败',
      '-1 绘画：缩小扩图',
      '1 绘画退回：缩小扩图失败',
      '-1 绘画：微调变化',
      '1 绘画退回：微调变化失败',
      '-1 绘画：局部重绘',
      '1 绘画退回：局部重绘失败',
      '-1 绘画：高清放大',
      '1 绘画退回：高清放大失败'
    ])
  })

  it('refuses bad masks, wrong modes and indexes, and other people’s tasks with Chinese messages, charging nothing', async () => {
    const alice = await ctx.h.login('13800138000')
    const bob = await ctx.h.login('13900139000')
    const up = await upscaled(alice.token)
    const grid = (await ctx.h.post<WireTask>(`${MJ}/task/get`, { taskId: up.parentId }, alice.token)).body.data
    const w = up.width!
    const h = up.height!
    const jpeg = await sharp({ create: { width: w, height: h, channels: 3, background: '#ffffff' } })
      .jpeg()
      .toBuffer()
    const noise = await sharp(Buffer.from(Array.from({ length: 460 * 460 * 3 }, (_, i) => (i * 7919) % 251)), { raw: { width: 460, height: 460, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer()
    const before = { alice: await ctx.h.mjCount(alice.accountId), bob: await ctx.h.mjCount(bob.accountId) }
    const aliceLog = await ctx.h.log(alice.accountId)
    const cases: [Record<string, unknown>, string, string?][] = [
      [{ action: 'VARY_REGION', mask: `data:image/jpeg;base64,${jpeg.toString('base64')}` }, '蒙版必须是 PNG 图片'],
      [{ action: 'VARY_REGION', mask: `data:image/png;base64,${jpeg.toString('base64')}` }, '蒙版必须是 PNG 图片'],
      [{ action: 'VARY_REGION', mask: 'data:image/png;base64,bm90IGEgcGljdHVyZQ==' }, '蒙版必须是 PNG 图片，无法识别所给内容'],
      [{ action: 'VARY_REGION', mask: `data:image/png;base64,${noise.toString('base64')}` }, '蒙版过大（最大 512 KB）'],
      [{ action: 'VARY_REGION', mask: await maskDataUrl(100, 60) }, `蒙版尺寸（100×60）必须与原图一致（${w}×${h}）`],
      [{ action: 'VARY_REGION', mask: await maskDataUrl(w, h, { left: 0, top: 0, width: 0, height: 0 }) }, '蒙版是空的，请先涂抹要重绘的区域'],
      [{ action: 'VARY_REGION' }, '请先在图片上涂抹要重绘的区域'],
      [{ action: 'ZOOM' }, 'mode 不能为空'],
      [{ action: 'ZOOM', mode: 'custom' }, '请填写缩放倍数（1–2）'],
      [{ action: 'ZOOM', mode: 'custom', zoom: 3 }, '缩放倍数不能大于 2'],
      [{ action: 'ZOOM', mode: 'creative' }, '该任务不能执行此操作'],
      [{ action: 'UPSCALE', index: 5 }, 'index'],
      [{ action: 'VARY', mode: 'subtle', taskId: grid.taskId }, '该任务不能执行此操作'],
      [{ action: 'UPSCALE_HD', mode: 'subtle', taskId: grid.taskId }, '该任务不能执行此操作']
    ]
    expect(noise.byteLength).toBeGreaterThan(512 * 1024)
    for (const [body, message] of cases) {
      const res = await ctx.h.post(`${MJ}/action`, { taskId: up.taskId, ...body }, alice.token)
      expect(res.body.code, JSON.stringify(body)).toBe(40000001)
      expect(res.body.message).toContain(message)
    }
    // Bob presses a button of Alice's picture: it does not exist for him.
    const foreign = await ctx.h.post(`${MJ}/action`, { taskId: up.taskId, action: 'VARY_REGION', mask: await maskDataUrl(w, h) }, bob.token)
    expect(foreign.body).toMatchObject({ code: 40400001, message: '任务不存在' })
    const foreignZoom = await ctx.h.post(`${MJ}/action`, { taskId: up.taskId, action: 'ZOOM', mode: '2x' }, bob.token)
    expect(foreignZoom.body).toMatchObject({ code: 40400001, message: '任务不存在' })

    expect(await ctx.h.mjCount(alice.accountId)).toBe(before.alice)
    expect(await ctx.h.mjCount(bob.accountId)).toBe(before.bob)
    expect(await ctx.h.log(alice.accountId)).toEqual(aliceLog)
  })

  it('shorten gives shorter prompts to pick one; face swap and the prompt preview work offline', async () => {
    const { token, accountId } = await ctx.h.login()
    const features = await ctx.h.post(`${MJ}/features`, {}, token)
    expect(features.body.data).toEqual({ actions: true, shorten: true, faceSwap: true, demo: true })

    const start = await ctx.h.mjCount(accountId)
    const short = await ok('shorten', { prompt: 'a very beautiful red fox, sitting in the snow, highly detailed, cinematic light --ar 3:2' }, token)
    expect(short).toMatchObject({ action: 'SHORTEN', status: 'SUCCESS', imageUrl: null })
    expect(short.prompts.length).toBeGreaterThanOrEqual(3)
    expect(short.prompts[0]).toBe('red fox --ar 3:2')
    expect(short.buttons.map((b) => b.label)).toEqual(short.prompts.map((_, i) => `P${i + 1}`))
    const picked = await ok('imagine', { prompt: short.prompts[1] }, token)
    expect(picked.prompt).toBe(short.prompts[1])

    const face = await ctx.h.upload({ r: 240, g: 200, b: 170 }, { width: 200, height: 200 })
    const target = await ctx.h.upload({ r: 20, g: 40, b: 90 }, { width: 400, height: 600 })
    const swapped = await ok('swap-face', { source: face, target }, token)
    expect(swapped).toMatchObject({ action: 'SWAP_FACE', status: 'SUCCESS', width: 400, height: 600 })
    expect(await ctx.h.mjCount(accountId)).toBe(start - 3)
    expect((await ctx.h.log(accountId)).slice(-3).map((l) => l.reason)).toEqual(['绘画：提示词精简', '绘画：文生图', '绘画：换脸'])

    const foreign = await ctx.h.post(`${MJ}/swap-face`, { source: 'https://example.com/a.png', target }, token)
    expect(foreign.body.code).toBe(40000001)
    expect(foreign.body.message).toContain('灵犀图床')

    const preview = await ctx.h.post(`${MJ}/translate`, { prompt: '一只可爱的猫，赛博朋克，星空 --ar 16:9' }, token)
    expect(preview.body.data).toEqual({ promptEn: 'cute cat, cyberpunk, starry sky --ar 16:9', translated: true, missing: [] })
    expect(await ctx.h.mjCount(accountId)).toBe(start - 3)
  })

  it('the prompt preview keeps English and names the Chinese words it does not know', () => {
    expect(translatePrompt('a cat --v 6')).toEqual({ promptEn: 'a cat --v 6', translated: false, missing: [] })
    expect(translatePrompt('猫在饕餮旁边')).toEqual({ promptEn: 'cat in 饕餮旁边', translated: true, missing: ['饕餮旁边'] })
  })
})

describe('stable diffusion img2img and inpaint with the demo painter', () => {
  const ctx = usePaintingHarness()
  const BASE = { prompt: 'a castle at dusk', steps: 20, cfgScale: 7, sampler: 'Euler a', denoisingStrength: 0.6 }

  it('img2img and inpaint are drawn at the picture’s shape, charged once each with its log', async () => {
    const { token, accountId } = await ctx.h.login()
    const image = await ctx.h.upload({ r: 30, g: 90, b: 160 }, { width: 600, height: 400 })
    const start = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post<WireTask>('/api/v1/sd/img2img', { ...BASE, image, seed: 9 }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    const done = await ctx.h.settled(token, res.body.data.taskId)
    expect(done).toMatchObject({ kind: 'sd', action: 'IMG2IMG', status: 'SUCCESS', width: 600, height: 400, demo: true })
    expect(done.params).toMatchObject({ seed: 9, denoisingStrength: 0.6, sampler: 'Euler a' })

    const inpaint = await ctx.h.post<WireTask>(
      '/api/v1/sd/img2img',
      { ...BASE, image, mask: await maskDataUrl(600, 400), inpaintingFill: 1, maskBlur: 8 },
      token
    )
    expect(inpaint.body.code, JSON.stringify(inpaint.body)).toBe(2000)
    expect(await ctx.h.settled(token, inpaint.body.data.taskId)).toMatchObject({ action: 'INPAINT', status: 'SUCCESS' })
    expect(await ctx.h.mjCount(accountId)).toBe(start - 2)

    expect((await ctx.h.log(accountId)).slice(0, 2).map((l) => l.reason)).toEqual(['绘画：Stable Diffusion 图生图', '绘画：Stable Diffusion 局部重绘'])
  })

  it('refuses a foreign picture, a bad mask and an unknown sampler, charging nothing', async () => {
    const { token, accountId } = await ctx.h.login()
    const image = await ctx.h.upload({ r: 30, g: 90, b: 160 }, { width: 320, height: 240 })
    const start = await ctx.h.mjCount(accountId)
    const cases: [Record<string, unknown>, string][] = [
      [{ image: 'https://example.com/x.png' }, '灵犀图床'],
      [{ image, mask: await maskDataUrl(100, 100) }, '蒙版尺寸（100×100）必须与原图一致（320×240）'],
      [{ image, mask: 'data:image/gif;base64,R0lGODlh' }, '蒙版必须是 PNG 图片'],
      [{ image, sampler: 'Nope' }, '采样器「Nope」不可用'],
      [{ image, denoisingStrength: 1.5 }, '重绘幅度不能大于 1'],
      [{ image, inpaintingFill: 4 }, '蒙版填充方式']
    ]
    for (const [body, message] of cases) {
      const res = await ctx.h.post('/api/v1/sd/img2img', { ...BASE, ...body }, token)
      expect(res.body.code, JSON.stringify(body)).toBe(40000001)
      expect(res.body.message).toContain(message)
    }
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect(await ctx.h.log(accountId)).toEqual([])
  })
})

describe('prompts of custom zoom and vary region are moderated', () => {
  const WORDS = fileURLToPath(new URL('./fixtures/moderation-words.txt', import.meta.url))
  const ctx = usePaintingHarness({ env: { MODERATION_PROVIDERS: 'words', MODERATION_WORDS_FILE: WORDS } })

  it('refuses a banned word in the prompt of custom zoom or vary region before charging', async () => {
    const { token, accountId } = await ctx.h.login()
    const grid = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'a quiet lake --ar 1:1' }, token)
    await ctx.h.settled(token, grid.body.data.taskId)
    const up = await ctx.h.post<WireTask>(`${MJ}/action`, { taskId: grid.body.data.taskId, action: 'UPSCALE', index: 1 }, token)
    const done = await ctx.h.settled(token, up.body.data.taskId)
    const start = await ctx.h.mjCount(accountId)
    const zoom = await ctx.h.post(`${MJ}/action`, { taskId: done.taskId, action: 'ZOOM', mode: 'custom', zoom: 1.5, prompt: 'a lake, ＢＡＤＷＯＲＤ' }, token)
    expect(zoom.body.message).toBe('提示词包含违规信息，请修改后重试')
    const region = await ctx.h.post(
      `${MJ}/action`,
      { taskId: done.taskId, action: 'VARY_REGION', mask: await maskDataUrl(done.width!, done.height!), prompt: 'bad-word here' },
      token
    )
    expect(region.body.message).toBe('提示词包含违规信息，请修改后重试')
    expect(await ctx.h.mjCount(accountId)).toBe(start)
  })
})
