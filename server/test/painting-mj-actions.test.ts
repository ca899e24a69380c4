import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { WireTask } from '../src/modules/painting/wire.js'
import { type FakeMidjourneyProxy, startFakeMidjourneyProxy } from './fakes/midjourney-proxy.js'
import { usePaintingHarness } from './helpers/painting.js'
import { maskDataUrl } from './helpers/painting-masks.js'

const MJ = '/api/v1/painting'
const lastCall = <T extends { path: string }>(requests: T[], path: string) => [...requests].reverse().find((r) => r.path === path)

describe('zoom, vary, vary region, upscale subtle / creative, shorten and face swap through midjourney-proxy plus', () => {
  let fake: FakeMidjourneyProxy
  beforeAll(async () => {
    fake = await startFakeMidjourneyProxy({ secret: 's', plus: true })
  })
  afterAll(async () => {
    await fake.close()
  })
  const ctx = usePaintingHarness(() => ({ env: { MJ_PROXY_URL: fake.url, MJ_API_SECRET: 's' } }))

  async function submit(path: string, body: Record<string, unknown>, token: string) {
    const res = await ctx.h.post<WireTask>(`${MJ}/${path}`, body, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    return res.body.data
  }

  async function finish(token: string, task: WireTask) {
    const upstream = fake.last()
    fake.succeed(upstream.id)
    await ctx.h.runtime.tick()
    return { done: await ctx.h.settled(token, task.taskId), upstream }
  }

  async function upscaled(token: string) {
    const grid = await finish(token, await submit('imagine', { prompt: 'castle --ar 1:1' }, token))
    return finish(token, await submit('action', { taskId: grid.done.taskId, action: 'UPSCALE', index: 2 }, token))
  }

  it('presses the customIds of the upscaled picture; custom zoom and vary region go on through /mj/submit/modal', async () => {
    const { token, accountId } = await ctx.h.login()
    const up = await upscaled(token)
    const h = `hash${up.upstream.id}`
    expect(up.done.buttons.map((b) => b.label)).toContain('局部重绘')
    const start = await ctx.h.mjCount(accountId)

    const zoom = await submit('action', { taskId: up.done.taskId, action: 'ZOOM', mode: '2x' }, token)
    expect(lastCall(fake.requests, '/mj/submit/action')!.body).toMatchObject({
      taskId: up.upstream.id,
      customId: `MJ::Outpaint::50::1::${h}::SOLO`,
      state: zoom.taskId
    })
    expect((await finish(token, zoom)).done).toMatchObject({ action: 'ZOOM', status: 'SUCCESS' })

    await submit('action', { taskId: up.done.taskId, action: 'ZOOM', mode: '1.5x' }, token)
    expect(lastCall(fake.requests, '/mj/submit/action')!.body!.customId).toBe(`MJ::Outpaint::75::1::${h}::SOLO`)
    await submit('action', { taskId: up.done.taskId, action: 'VARY', mode: 'strong' }, token)
    expect(lastCall(fake.requests, '/mj/submit/action')!.body!.customId).toBe(`MJ::JOB::high_variation::1::${h}::SOLO`)
    await submit('action', { taskId: up.done.taskId, action: 'VARY', mode: 'subtle' }, token)
    expect(lastCall(fake.requests, '/mj/submit/action')!.body!.customId).toBe(`MJ::JOB::low_variation::1::${h}::SOLO`)
    await submit('action', { taskId: up.done.taskId, action: 'UPSCALE_HD', mode: 'creative' }, token)
    expect(lastCall(fake.requests, '/mj/submit/action')!.body!.customId).toBe(`MJ::JOB::upsample_v6_2x_creative::1::${h}::SOLO`)
    await submit('action', { taskId: up.done.taskId, action: 'UPSCALE_HD', mode: 'subtle' }, token)
    expect(lastCall(fake.requests, '/mj/submit/action')!.body!.customId).toBe(`MJ::JOB::upsample_v6_2x_subtle::1::${h}::SOLO`)

    const custom = await submit('action', { taskId: up.done.taskId, action: 'ZOOM', mode: 'custom', zoom: 1.3, prompt: 'castle at night --zoom 2' }, token)
    expect(lastCall(fake.requests, '/mj/submit/action')!.body!.customId).toBe(`MJ::CustomZoom::${h}`)
    const modal = lastCall(fake.requests, '/mj/submit/modal')!.body!
    expect(modal).toMatchObject({ prompt: 'castle at night --zoom 1.3', state: custom.taskId })
    expect(modal).not.toHaveProperty('maskBase64')
    expect((await finish(token, custom)).done).toMatchObject({ status: 'SUCCESS', params: { mode: 'custom', zoom: 1.3 } })

    const region = await submit(
      'action',
      { taskId: up.done.taskId, action: 'VARY_REGION', mask: await maskDataUrl(up.done.width!, up.done.height!), prompt: 'a dragon on the tower' },
      token
    )
    expect(lastCall(fake.requests, '/mj/submit/action')!.body!.customId).toBe(`MJ::Inpaint::1::${h}::SOLO`)
    const regionModal = lastCall(fake.requests, '/mj/submit/modal')!.body!
    expect(regionModal.prompt).toBe('a dragon on the tower')
    // The mask travels as plain base64 of a black-and-white PNG the picture's size.
    const mask = await sharp(Buffer.from(String(regionModal.maskBase64), 'base64')).metadata()
    expect([mask.format, mask.width, mask.height]).toEqual(['png', up.done.width, up.done.height])
    expect((await finish(token, region)).done).toMatchObject({ action: 'VARY_REGION', status: 'SUCCESS' })

    expect(await ctx.h.mjCount(accountId)).toBe(start - 8)
  })

  it('a failed action is refunded; a refused modal is refunded at once', async () => {
    const { token, accountId } = await ctx.h.login()
    const up = await upscaled(token)
    const start = await ctx.h.mjCount(accountId)
    const vary = await submit('action', { taskId: up.done.taskId, action: 'VARY', mode: 'strong' }, token)
    fake.fail(fake.last().id, 'Job action restricted')
    await ctx.h.runtime.tick()
    expect(await ctx.h.settled(token, vary.taskId)).toMatchObject({ status: 'FAILURE', failReason: '绘画失败：Job action restricted' })
    expect(await ctx.h.mjCount(accountId)).toBe(start)

    fake.nextSubmits.push('queue-full')
    const refused = await ctx.h.post(`${MJ}/action`, { taskId: up.done.taskId, action: 'ZOOM', mode: 'custom', zoom: 1.5 }, token)
    expect(refused.body).toMatchObject({ code: 50200001, message: '绘画队列已满，请稍后再试（次数已退回）' })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect((await ctx.h.log(accountId)).slice(-4).map((l) => l.reason)).toEqual([
      '绘画：微调变化',
      '绘画退回：微调变化失败',
      '绘画：缩小扩图',
      '绘画退回：缩小扩图失败'
    ])
  })

  it('shorten splits finalPrompt into the prompts to pick; face swap sends both pictures as data URLs', async () => {
    const { token, accountId } = await ctx.h.login()
    const features = await ctx.h.post(`${MJ}/features`, {}, token)
    expect(features.body.data).toEqual({ actions: true, shorten: true, faceSwap: true, demo: false })
    const start = await ctx.h.mjCount(accountId)

    const short = await submit('shorten', { prompt: 'a very detailed red fox sitting in the snow' }, token)
    expect(lastCall(fake.requests, '/mj/submit/shorten')!.body).toMatchObject({ prompt: 'a very detailed red fox sitting in the snow', state: short.taskId })
    const { done } = await finish(token, short)
    expect(done).toMatchObject({ action: 'SHORTEN', status: 'SUCCESS', imageUrl: null })
    expect(done.prompts).toEqual(['red fox, snow', 'red fox in snow, watercolor', 'fox, winter forest', 'fox portrait', 'snowy fox'])
    expect(done.buttons.map((b) => b.label)).toEqual(['P1', 'P2', 'P3', 'P4', 'P5'])

    const face = await ctx.h.upload({ r: 240, g: 200, b: 170 })
    const target = await ctx.h.upload({ r: 20, g: 40, b: 90 })
    const swap = await submit('swap-face', { source: face, target }, token)
    const call = lastCall(fake.requests, '/mj/insight-face/swap')!.body!
    expect(String(call.sourceBase64)).toMatch(/^data:image\/png;base64,/)
    expect(String(call.targetBase64)).toMatch(/^data:image\/png;base64,/)
    expect((await finish(token, swap)).done).toMatchObject({ action: 'SWAP_FACE', status: 'SUCCESS' })
    expect(await ctx.h.mjCount(accountId)).toBe(start - 2)
  })
})

describe('the open-source midjourney-proxy (no buttons, no shorten, no face swap)', () => {
  let fake: FakeMidjourneyProxy
  beforeAll(async () => {
    fake = await startFakeMidjourneyProxy({ secret: 's' })
  })
  afterAll(async () => {
    await fake.close()
  })
  const ctx = usePaintingHarness(() => ({ env: { MJ_PROXY_URL: fake.url, MJ_API_SECRET: 's' } }))

  it('hides zoom / vary / upscale buttons and refuses shorten and face swap, charging nothing', async () => {
    const { token, accountId } = await ctx.h.login()
    const features = await ctx.h.post(`${MJ}/features`, {}, token)
    expect(features.body.data).toEqual({ actions: false, shorten: false, faceSwap: false, demo: false })
    const grid = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'castle' }, token)
    fake.succeed(fake.last().id)
    await ctx.h.runtime.tick()
    const up = await ctx.h.post<WireTask>(`${MJ}/action`, { taskId: grid.body.data.taskId, action: 'UPSCALE', index: 1 }, token)
    fake.succeed(fake.last().id)
    await ctx.h.runtime.tick()
    const done = await ctx.h.settled(token, up.body.data.taskId)
    expect(done.buttons.map((b) => b.action)).toEqual(['PAN', 'PAN', 'PAN', 'PAN'])
    const start = await ctx.h.mjCount(accountId)
    const zoom = await ctx.h.post(`${MJ}/action`, { taskId: done.taskId, action: 'ZOOM', mode: '2x' }, token)
    expect(zoom.body).toMatchObject({ code: 40000001, message: '该任务不能执行此操作' })
    const short = await ctx.h.post(`${MJ}/shorten`, { prompt: 'a fox' }, token)
    expect(short.body).toMatchObject({ code: 40000001, message: '当前绘画服务不支持提示词精简' })
    const image = await ctx.h.upload()
    const swap = await ctx.h.post(`${MJ}/swap-face`, { source: image, target: image }, token)
    expect(swap.body).toMatchObject({ code: 40000001, message: '当前绘画服务不支持换脸' })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
  })
})
