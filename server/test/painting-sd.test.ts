import sharp from 'sharp'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createA1111 } from '../src/modules/painting/providers/a1111.js'
import type { WireTask } from '../src/modules/painting/wire.js'
import { type FakeA1111, startFakeA1111 } from './fakes/a1111.js'
import { waitUntil } from './helpers/chat.js'
import { usePaintingHarness } from './helpers/painting.js'
import { maskDataUrl } from './helpers/painting-masks.js'

const SD = '/api/v1/sd'
const lastCall = <T extends { path: string }>(requests: T[], path: string) => [...requests].reverse().find((r) => r.path === path)
const BODY = { prompt: 'masterpiece, a castle', negativePrompt: 'lowres', width: 768, height: 512, steps: 20, cfgScale: 7, sampler: 'Euler a' }

describe('stable diffusion through AUTOMATIC1111', () => {
  let fake: FakeA1111
  beforeAll(async () => {
    fake = await startFakeA1111({ auth: 'sd:pass' })
  })
  afterAll(async () => {
    await fake.close()
  })
  beforeEach(() => {
    fake.behaviour = { kind: 'ok' }
    fake.hold = undefined
    fake.progress = 0
  })
  const ctx = usePaintingHarness(() => ({
    env: { A1111_URL: fake.url, A1111_AUTH: 'sd:pass', PAINTING_TIMEOUT_MS: '60000' },
    painting: {
      providers: { sd: createA1111({ baseUrl: fake.url, auth: 'sd:pass', progressIntervalMs: 5, timeoutMs: 60_000 }) }
    }
  }))

  async function txt2img(token: string, body: Record<string, unknown> = {}) {
    const res = await ctx.h.post<WireTask>(`${SD}/txt2img`, { ...BODY, ...body }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    return res.body.data
  }

  it('draws through /sdapi/v1/txt2img with Basic auth, stores the base64 picture, reads the seed from info', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const options = await ctx.h.post<{ demo: boolean }>(`${SD}/options`, {}, token)
    expect(options.body.data.demo).toBe(false)
    const task = await txt2img(token)
    const done = await ctx.h.settled(token, task.taskId)
    expect(done).toMatchObject({ kind: 'sd', status: 'SUCCESS', width: 768, height: 512, demo: false, buttons: [] })
    expect(done.params).toMatchObject({ seed: 1234567, steps: 20, sampler: 'Euler a' })
    const call = lastCall(fake.requests, '/sdapi/v1/txt2img')!
    expect(call.headers.authorization).toBe(`Basic ${Buffer.from('sd:pass').toString('base64')}`)
    expect(call.body).toMatchObject({
      prompt: 'masterpiece, a castle',
      negative_prompt: 'lowres',
      seed: -1,
      sampler_name: 'Euler a',
      cfg_scale: 7,
      steps: 20,
      width: 768,
      height: 512,
      batch_size: 1,
      n_iter: 1
    })
    const file = await ctx.h.storage.get(ctx.h.storage.keyOf(done.imageUrl!)!)
    expect((await sharp(file!.body).metadata()).width).toBe(768)
    expect(await ctx.h.mjCount(accountId)).toBe(start - 1)
  })

  it('reports /sdapi/v1/progress while the picture is drawn', async () => {
    const { token } = await ctx.h.login()
    let release!: () => void
    fake.hold = new Promise((resolve) => (release = resolve))
    fake.progress = 0.55
    const task = await txt2img(token)
    await waitUntil(async () => (await ctx.h.task(token, task.taskId)).progress === 55)
    expect((await ctx.h.task(token, task.taskId)).status).toBe('IN_PROGRESS')
    release()
    expect((await ctx.h.settled(token, task.taskId)).status).toBe('SUCCESS')
  })

  it('an A1111 error ends the task as FAILURE with its message, refunded', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    fake.behaviour = { kind: 'error', status: 500, error: 'OutOfMemoryError', detail: 'CUDA out of memory' }
    const task = await txt2img(token)
    expect(await ctx.h.settled(token, task.taskId)).toMatchObject({
      status: 'FAILURE',
      // The upstream's words stay in the server log: users never see an upstream's text.
      failReason: 'Stable Diffusion 出错（HTTP 500），请稍后再试'
    })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect((await ctx.h.log(accountId)).map((l) => l.reason)).toEqual(['绘画：Stable Diffusion 文生图', '绘画退回：Stable Diffusion 文生图失败'])
  })

  it('stop interrupts the running picture and refunds once', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    fake.behaviour = { kind: 'hang' }
    const draws = () => fake.requests.filter((r) => r.path === '/sdapi/v1/txt2img').length
    const before = draws()
    const task = await txt2img(token)
    await waitUntil(() => draws() > before)
    const stopped = await ctx.h.post<WireTask>('/api/v1/painting/task/stop', { taskId: task.taskId }, token)
    expect(stopped.body.data.status).toBe('INTERRPUT')
    await waitUntil(() => fake.interrupts > 0)
    expect((await ctx.h.settled(token, task.taskId)).status).toBe('INTERRPUT')
    expect(await ctx.h.mjCount(accountId)).toBe(start)
  })

  it('offers the upstream’s own samplers (/sdapi/v1/samplers) and refuses others before charging', async () => {
    const { token, accountId } = await ctx.h.login()
    const options = await ctx.h.post<{ samplers: string[]; defaults: { sampler: string } }>(`${SD}/options`, {}, token)
    expect(options.body.data.samplers).toEqual(['DPM++ 2M', 'Euler a', 'Restart'])
    expect(options.body.data.defaults.sampler).toBe('DPM++ 2M')
    expect(lastCall(fake.requests, '/sdapi/v1/samplers')!.headers.authorization).toBe(`Basic ${Buffer.from('sd:pass').toString('base64')}`)
    const start = await ctx.h.mjCount(accountId)
    const task = await txt2img(token, { sampler: 'Restart' })
    expect((await ctx.h.settled(token, task.taskId)).status).toBe('SUCCESS')
    const bad = await ctx.h.post(`${SD}/txt2img`, { ...BODY, sampler: 'UniPC' }, token)
    expect(bad.body).toMatchObject({ code: 40000001, message: '采样器「UniPC」不可用，可选：DPM++ 2M、Euler a、Restart' })
    expect(await ctx.h.mjCount(accountId)).toBe(start - 1)
  })

  it('img2img and inpaint send init_images, mask, denoising_strength, inpainting_fill and mask_blur; a 422 is refunded', async () => {
    const { token, accountId } = await ctx.h.login()
    const image = await ctx.h.upload({ r: 50, g: 60, b: 70 }, { width: 640, height: 480 })
    const start = await ctx.h.mjCount(accountId)
    const common = { prompt: 'a castle', negativePrompt: 'lowres', steps: 20, cfgScale: 7, sampler: 'Euler a', seed: 5 }
    const res = await ctx.h.post<WireTask>(`${SD}/img2img`, { ...common, image, denoisingStrength: 0.55 }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    expect(await ctx.h.settled(token, res.body.data.taskId)).toMatchObject({ action: 'IMG2IMG', status: 'SUCCESS', width: 640, height: 480 })
    const call = lastCall(fake.requests, '/sdapi/v1/img2img')!.body!
    expect(call).toMatchObject({
      prompt: 'a castle',
      negative_prompt: 'lowres',
      seed: 5,
      denoising_strength: 0.55,
      width: 640,
      height: 480,
      sampler_name: 'Euler a'
    })
    expect(call).not.toHaveProperty('mask')
    const init = await sharp(Buffer.from(String((call.init_images as string[])[0]), 'base64')).metadata()
    expect([init.width, init.height]).toEqual([640, 480])

    const inpaint = await ctx.h.post<WireTask>(
      `${SD}/img2img`,
      { ...common, image, denoisingStrength: 0.75, mask: await maskDataUrl(640, 480), inpaintingFill: 2, maskBlur: 6 },
      token
    )
    expect(inpaint.body.code, JSON.stringify(inpaint.body)).toBe(2000)
    expect(await ctx.h.settled(token, inpaint.body.data.taskId)).toMatchObject({ action: 'INPAINT', status: 'SUCCESS' })
    const inpaintCall = lastCall(fake.requests, '/sdapi/v1/img2img')!.body!
    expect(inpaintCall).toMatchObject({ denoising_strength: 0.75, inpainting_fill: 2, mask_blur: 6, inpainting_mask_invert: 0 })
    const mask = await sharp(Buffer.from(String(inpaintCall.mask), 'base64')).metadata()
    expect([mask.format, mask.width, mask.height]).toEqual(['png', 640, 480])
    expect(await ctx.h.mjCount(accountId)).toBe(start - 2)

    fake.behaviour = { kind: 'error', status: 422, error: 'HTTPException', detail: 'Invalid encoded image' }
    const failing = await ctx.h.post<WireTask>(`${SD}/img2img`, { ...common, image, denoisingStrength: 0.5 }, token)
    expect(await ctx.h.settled(token, failing.body.data.taskId)).toMatchObject({
      status: 'FAILURE',
      failReason: 'Stable Diffusion 出错（HTTP 422），请稍后再试'
    })
    expect(await ctx.h.mjCount(accountId)).toBe(start - 2)
    expect((await ctx.h.log(accountId)).slice(-2).map((l) => l.reason)).toEqual(['绘画：Stable Diffusion 图生图', '绘画退回：Stable Diffusion 图生图失败'])
  })

  it('a picture not finished in time ends as TIMEOUT', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    fake.behaviour = { kind: 'hang' }
    const task = await txt2img(token)
    ctx.h.clock.advance(60_001)
    await ctx.h.runtime.tick()
    expect(await ctx.h.settled(token, task.taskId)).toMatchObject({ status: 'TIMEOUT', failReason: '绘画超时（1 分钟内未完成），次数已退回' })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
  })
})

describe('AUTOMATIC1111 with the wrong password', () => {
  let fake: FakeA1111
  beforeAll(async () => {
    fake = await startFakeA1111({ auth: 'sd:pass' })
  })
  afterAll(async () => {
    await fake.close()
  })
  const ctx = usePaintingHarness(() => ({ env: { A1111_URL: fake.url, A1111_AUTH: 'sd:wrong' } }))

  it('ends as FAILURE with a clear message, refunded', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post<WireTask>(`${SD}/txt2img`, BODY, token)
    expect(await ctx.h.settled(token, res.body.data.taskId)).toMatchObject({
      status: 'FAILURE',
      failReason: 'Stable Diffusion 服务拒绝访问（账号或密码不正确），请联系管理员'
    })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
  })
})
