import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { notifySignature } from '../src/modules/painting/routes.js'
import type { WireTask } from '../src/modules/painting/wire.js'
import { type FakeMidjourneyProxy, startFakeMidjourneyProxy } from './fakes/midjourney-proxy.js'
import { usePaintingHarness } from './helpers/painting.js'

const MJ = '/api/v1/painting'
const lastCall = <T extends { path: string }>(requests: T[], path: string) => [...requests].reverse().find((r) => r.path === path)
const NOTIFY_SECRET = 'notify-secret-for-tests'
const TIMEOUT_MS = 600_000

describe('painting through midjourney-proxy', () => {
  let fake: FakeMidjourneyProxy
  beforeAll(async () => {
    fake = await startFakeMidjourneyProxy({ secret: 'mj-secret-123' })
  })
  afterAll(async () => {
    await fake.close()
  })
  const ctx = usePaintingHarness(() => ({
    listen: true,
    env: { MJ_PROXY_URL: fake.url, MJ_API_SECRET: fake.secret, MJ_NOTIFY_SECRET: NOTIFY_SECRET, PAINTING_TIMEOUT_MS: String(TIMEOUT_MS) },
    painting: { tuning: { pollStaleMs: 0 } }
  }))

  async function imagine(token: string, prompt = 'a red fox in snow --ar 1:1') {
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    return { task: res.body.data, upstream: fake.last() }
  }

  /** Imagine, then drive the fake to SUCCESS with a callback. */
  async function finishedGrid(token: string) {
    const { task, upstream } = await imagine(token)
    fake.succeed(upstream.id)
    expect(await fake.notify(upstream.id)).toBe(200)
    const done = await ctx.h.settled(token, task.taskId)
    expect(done.status).toBe('SUCCESS')
    return { task: done, upstream }
  }

  it('submits with the secret header, a signed notifyHook and our task id as state; callbacks move it to SUCCESS', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const image = await ctx.h.upload()
    const { task, upstream } = await imagine(token, `${image} 一只狐狸 --ar 16:9 --v 6.1`)
    expect(task).toMatchObject({ status: 'SUBMITTED', progress: 0, demo: false, imageUrl: null, buttons: [] })

    const submit = lastCall(fake.requests, '/mj/submit/imagine')!
    expect(submit.headers['mj-api-secret']).toBe('mj-secret-123')
    expect(submit.body).toMatchObject({
      // The Lingxi URL travels as bytes; the prompt keeps only words and options.
      prompt: '一只狐狸 --ar 16:9 --v 6.1',
      state: task.taskId,
      notifyHook: `${ctx.h.publicUrl}/api/v1/painting/notify/${task.taskId}?sig=${notifySignature(NOTIFY_SECRET, task.taskId)}`
    })
    expect((submit.body!.base64Array as string[])[0]).toMatch(/^data:image\/png;base64,iVBOR/)

    fake.progress(upstream.id, 46)
    expect(await fake.notify(upstream.id)).toBe(200)
    expect(await ctx.h.settled(token, task.taskId)).toMatchObject({ status: 'IN_PROGRESS', progress: 46, imageUrl: null })

    fake.succeed(upstream.id)
    expect(await fake.notify(upstream.id)).toBe(200)
    const done = await ctx.h.settled(token, task.taskId)
    expect(done).toMatchObject({ status: 'SUCCESS', progress: 100, width: 512, height: 512, promptEn: '一只狐狸 --ar 16:9 --v 6.1' })
    // Copied: a Lingxi URL, never the upstream's.
    expect(done.imageUrl).toMatch(new RegExp(`^${ctx.h.publicUrl}/files/painting/`))
    expect(JSON.stringify(done)).not.toContain(fake.url)
    const thumb = await ctx.h.storage.get(ctx.h.storage.keyOf(done.thumbUrl!)!)
    expect((await sharp(thumb!.body).metadata()).width).toBe(160)
    expect(await ctx.h.mjCount(accountId)).toBe(start - 1)
  })

  it('out-of-order and repeated callbacks never move a task backwards', async () => {
    const { token } = await ctx.h.login()
    const { task, upstream } = await imagine(token)
    const p10 = fake.progress(upstream.id, 10)
    const p50 = fake.progress(upstream.id, 50)
    const done = fake.succeed(upstream.id)
    const states: string[] = []
    const read = async () => {
      const t = await ctx.h.settled(token, task.taskId)
      states.push(`${t.status}:${t.progress}`)
    }
    await fake.notify(upstream.id, p50)
    await read()
    await fake.notify(upstream.id, p10)
    await read()
    await fake.notify(upstream.id, p50)
    await read()
    await fake.notify(upstream.id, done)
    await read()
    await fake.notify(upstream.id, p10)
    await fake.notify(upstream.id, fake.fail(upstream.id, 'late failure'))
    await read()
    expect(states).toEqual(['IN_PROGRESS:50', 'IN_PROGRESS:50', 'IN_PROGRESS:50', 'SUCCESS:100', 'SUCCESS:100'])
    expect(fake.notifications.slice(-6).every((n) => n.status === 200)).toBe(true)
  })

  it('refuses callbacks with a wrong or missing signature, or signed for another task', async () => {
    const { token } = await ctx.h.login()
    const first = await imagine(token)
    const second = await imagine(token)
    const hook = (taskId: string, sig: string) => `${ctx.h.publicUrl}/api/v1/painting/notify/${taskId}?sig=${sig}`
    const done = fake.succeed(first.upstream.id)
    expect(await fake.notify(first.upstream.id, done, hook(first.task.taskId, 'wrong'))).toBe(403)
    expect(await fake.notify(first.upstream.id, done, `${ctx.h.publicUrl}/api/v1/painting/notify/${first.task.taskId}`)).toBe(403)
    expect(await fake.notify(first.upstream.id, done, hook(first.task.taskId, notifySignature(NOTIFY_SECRET, second.task.taskId)))).toBe(403)
    expect(await fake.notify(first.upstream.id, done, hook(first.task.taskId, notifySignature('another-secret', first.task.taskId)))).toBe(403)
    expect(fake.notifications.at(-1)!.answer).toMatchObject({ code: 40300001, message: '回调签名不正确' })
    expect((await ctx.h.task(token, first.task.taskId)).status).toBe('SUBMITTED')
    // The second task's valid hook carrying the first task's JSON is ignored.
    expect(await fake.notify(second.upstream.id, done)).toBe(200)
    expect((await ctx.h.settled(token, second.task.taskId)).status).toBe('SUBMITTED')
  })

  it('polls list-by-condition when no callback arrives', async () => {
    const { token } = await ctx.h.login()
    const { task, upstream } = await imagine(token)
    fake.progress(upstream.id, 40)
    await ctx.h.runtime.tick()
    expect(await ctx.h.task(token, task.taskId)).toMatchObject({ status: 'IN_PROGRESS', progress: 40 })
    const poll = lastCall(fake.requests, '/mj/task/list-by-condition')!
    expect(poll.body).toEqual({ ids: [upstream.id] })
    expect(poll.headers['mj-api-secret']).toBe('mj-secret-123')
    fake.succeed(upstream.id)
    await ctx.h.runtime.tick()
    expect(await ctx.h.settled(token, task.taskId)).toMatchObject({ status: 'SUCCESS', progress: 100 })
  })

  it.each([
    ['queue-full' as const, '绘画队列已满，请稍后再试（次数已退回）', 502],
    ['system-error' as const, '绘画服务异常：发送指令到discord失败，请稍后再试（次数已退回）', 502],
    ['http-500' as const, '绘画服务出错（HTTP 500），请稍后再试（次数已退回）', 502]
  ])('a refused submit (%s) answers 50200001 and gives the allowance back', async (behaviour, message, status) => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    fake.nextSubmits.push(behaviour)
    const res = await ctx.h.post(`${MJ}/imagine`, { prompt: 'a cat' }, token)
    expect(res.status).toBe(status)
    expect(res.body).toMatchObject({ code: 50200001, message })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect(await ctx.h.log(accountId)).toEqual([
      { amount: -1, balance: start - 1, reason: '绘画：文生图' },
      { amount: 1, balance: start, reason: '绘画退回：文生图失败' }
    ])
    const list = await ctx.h.post<{ list: WireTask[] }>(`${MJ}/task/list`, {}, token)
    expect(list.body.data.list[0]).toMatchObject({ status: 'FAILURE', failReason: message.replace('（次数已退回）', '') })
  })

  it('a banned prompt (code 24) names the word and gives the allowance back', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post(`${MJ}/imagine`, { prompt: 'nude body on a beach' }, token)
    expect(res.body).toMatchObject({ code: 50200001, message: '提示词可能包含敏感词「nude」，请修改后再试（次数已退回）' })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
  })

  it('a failure reported by the upstream ends the task and gives the allowance back once', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const { task, upstream } = await imagine(token)
    expect(await ctx.h.mjCount(accountId)).toBe(start - 1)
    const failed = fake.fail(upstream.id, '[Invalid parameter] Invalid value')
    await fake.notify(upstream.id, failed)
    await fake.notify(upstream.id, failed)
    await ctx.h.runtime.tick()
    expect(await ctx.h.settled(token, task.taskId)).toMatchObject({ status: 'FAILURE', failReason: '绘画失败：[Invalid parameter] Invalid value', buttons: [] })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect((await ctx.h.log(accountId)).map((l) => l.amount)).toEqual([-1, 1])
  })

  it('a stuck task times out, is refunded, and a late result is ignored', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const { task, upstream } = await imagine(token)
    fake.progress(upstream.id, 20)
    await fake.notify(upstream.id)
    ctx.h.clock.advance(TIMEOUT_MS - 1000)
    await ctx.h.runtime.tick()
    expect((await ctx.h.task(token, task.taskId)).status).toBe('IN_PROGRESS')
    ctx.h.clock.advance(2000)
    await ctx.h.runtime.tick()
    expect(await ctx.h.task(token, task.taskId)).toMatchObject({ status: 'TIMEOUT', failReason: '绘画超时（10 分钟内未完成），次数已退回' })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    fake.succeed(upstream.id)
    await fake.notify(upstream.id)
    await ctx.h.runtime.tick()
    expect(await ctx.h.settled(token, task.taskId)).toMatchObject({ status: 'TIMEOUT', imageUrl: null })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect(await ctx.h.log(accountId)).toEqual([
      { amount: -1, balance: start - 1, reason: '绘画：文生图' },
      { amount: 1, balance: start, reason: '绘画退回：文生图超时' }
    ])
  })

  it('stop ends the task as INTERRPUT, refunds it once, ignores the late result', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const { task, upstream } = await imagine(token)
    const stopped = await ctx.h.post<WireTask>(`${MJ}/task/stop`, { taskId: task.taskId }, token)
    expect(stopped.body.data).toMatchObject({ status: 'INTERRPUT', failReason: '已停止，次数已退回' })
    const again = await ctx.h.post(`${MJ}/task/stop`, { taskId: task.taskId }, token)
    expect(again.body).toMatchObject({ code: 40000001, message: '任务已停止' })
    fake.succeed(upstream.id)
    await fake.notify(upstream.id)
    expect((await ctx.h.settled(token, task.taskId)).status).toBe('INTERRPUT')
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect((await ctx.h.log(accountId)).map((l) => l.reason)).toEqual(['绘画：文生图', '绘画退回：文生图已停止'])
  })

  it('U2, V1 and reroll go to /mj/submit/change; pan is refused by an upstream without buttons', async () => {
    const { token, accountId } = await ctx.h.login()
    const { task: grid, upstream } = await finishedGrid(token)
    const up = await ctx.h.post<WireTask>(`${MJ}/action`, { taskId: grid.taskId, action: 'UPSCALE', index: 2 }, token)
    expect(up.body.code).toBe(2000)
    expect(lastCall(fake.requests, '/mj/submit/change')!.body).toMatchObject({ taskId: upstream.id, action: 'UPSCALE', index: 2, state: up.body.data.taskId })
    const upUpstream = fake.last()
    fake.succeed(upUpstream.id)
    await fake.notify(upUpstream.id)
    const upDone = await ctx.h.settled(token, up.body.data.taskId)
    expect(upDone.buttons.map((b) => b.direction)).toEqual(['left', 'right', 'up', 'down'])

    await ctx.h.post(`${MJ}/action`, { taskId: grid.taskId, action: 'VARIATION', index: 1 }, token)
    expect(lastCall(fake.requests, '/mj/submit/change')!.body).toMatchObject({ action: 'VARIATION', index: 1 })
    await ctx.h.post(`${MJ}/action`, { taskId: grid.taskId, action: 'REROLL' }, token)
    const reroll = lastCall(fake.requests, '/mj/submit/change')!.body!
    expect(reroll).toMatchObject({ action: 'REROLL', taskId: upstream.id })
    expect(reroll).not.toHaveProperty('index')

    const before = await ctx.h.mjCount(accountId)
    const pan = await ctx.h.post(`${MJ}/action`, { taskId: upDone.taskId, action: 'PAN', direction: 'left' }, token)
    expect(pan.body).toMatchObject({ code: 50200001, message: '当前绘画服务不支持平移（需要支持按钮的 midjourney-proxy plus）（次数已退回）' })
    expect(await ctx.h.mjCount(accountId)).toBe(before)
  })

  it('describe sends the picture as a data URL and splits finalPrompt into four prompts', async () => {
    const { token } = await ctx.h.login()
    const image = await ctx.h.upload()
    const res = await ctx.h.post<WireTask>(`${MJ}/describe`, { image }, token)
    expect(res.body.code).toBe(2000)
    expect(lastCall(fake.requests, '/mj/submit/describe')!.body!.base64).toMatch(/^data:image\/png;base64,/)
    const upstream = fake.last()
    fake.succeed(upstream.id)
    await fake.notify(upstream.id)
    const done = await ctx.h.settled(token, res.body.data.taskId)
    expect(done).toMatchObject({ status: 'SUCCESS', imageUrl: image })
    expect(done.prompts).toEqual(['a red fox in snow --ar 1:1', 'a fox, watercolor --ar 1:1', 'winter forest animal --ar 1:1', 'cute fox portrait --ar 1:1'])
    expect(done.buttons.map((b) => b.label)).toEqual(['P1', 'P2', 'P3', 'P4'])
  })

  it('blend sends 2–5 pictures with the dimensions', async () => {
    const { token } = await ctx.h.login()
    const images = [await ctx.h.upload(), await ctx.h.upload({ r: 1, g: 2, b: 3 }), await ctx.h.upload({ r: 200, g: 2, b: 3 })]
    const res = await ctx.h.post<WireTask>(`${MJ}/blend`, { images, dimensions: 'LANDSCAPE' }, token)
    expect(res.body.code).toBe(2000)
    const body = lastCall(fake.requests, '/mj/submit/blend')!.body!
    expect(body.dimensions).toBe('LANDSCAPE')
    expect(body.base64Array).toHaveLength(3)
  })

  it('a queued submit (code 22) is accepted', async () => {
    const { token } = await ctx.h.login()
    fake.nextSubmits.push('queued')
    const { task } = await imagine(token)
    expect(task.status).toBe('SUBMITTED')
  })

  it('a broken image link in a SUCCESS ends the task as FAILURE and refunds', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const { task, upstream } = await imagine(token)
    const done = fake.succeed(upstream.id)
    done.imageUrl = `${fake.url}/attachments/missing.webp`
    await fake.notify(upstream.id, done)
    expect(await ctx.h.settled(token, task.taskId)).toMatchObject({ status: 'FAILURE', failReason: '下载绘画结果失败（HTTP 404），次数已退回' })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
  })
})

describe('midjourney-proxy with a wrong secret', () => {
  let fake: FakeMidjourneyProxy
  beforeAll(async () => {
    fake = await startFakeMidjourneyProxy({ secret: 'right' })
  })
  afterAll(async () => {
    await fake.close()
  })
  const ctx = usePaintingHarness(() => ({ env: { MJ_PROXY_URL: fake.url, MJ_API_SECRET: 'wrong' } }))

  it('answers 50200001 and refunds', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post(`${MJ}/imagine`, { prompt: 'a cat' }, token)
    expect(res.body).toMatchObject({ code: 50200001, message: '绘画服务拒绝访问（密钥不正确），请联系管理员（次数已退回）' })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
  })
})

describe('midjourney-proxy plus (buttons)', () => {
  let fake: FakeMidjourneyProxy
  beforeAll(async () => {
    fake = await startFakeMidjourneyProxy({ secret: 's', plus: true })
  })
  afterAll(async () => {
    await fake.close()
  })
  // No notify secret: polling only.
  const ctx = usePaintingHarness(() => ({ env: { MJ_PROXY_URL: fake.url, MJ_API_SECRET: 's' } }))

  it('U2 and pan left press the upstream buttons through /mj/submit/action', async () => {
    const { token } = await ctx.h.login()
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'castle' }, token)
    const grid = fake.last()
    expect(lastCall(fake.requests, '/mj/submit/imagine')!.body).not.toHaveProperty('notifyHook')
    fake.succeed(grid.id)
    await ctx.h.runtime.tick()
    expect((await ctx.h.settled(token, res.body.data.taskId)).status).toBe('SUCCESS')

    const up = await ctx.h.post<WireTask>(`${MJ}/action`, { taskId: res.body.data.taskId, action: 'UPSCALE', index: 2 }, token)
    expect(up.body.code).toBe(2000)
    expect(lastCall(fake.requests, '/mj/submit/action')!.body).toMatchObject({ taskId: grid.id, customId: `MJ::JOB::upsample::2::hash${grid.id}` })
    const upstreamUp = fake.last()
    fake.succeed(upstreamUp.id)
    await ctx.h.runtime.tick()
    expect((await ctx.h.settled(token, up.body.data.taskId)).status).toBe('SUCCESS')

    const pan = await ctx.h.post<WireTask>(`${MJ}/action`, { taskId: up.body.data.taskId, action: 'PAN', direction: 'left' }, token)
    expect(pan.body.code, JSON.stringify(pan.body)).toBe(2000)
    expect(lastCall(fake.requests, '/mj/submit/action')!.body).toMatchObject({
      taskId: upstreamUp.id,
      customId: `MJ::JOB::pan_left::1::hash${upstreamUp.id}::SOLO`
    })
    const upstreamPan = fake.last()
    expect(upstreamPan.action).toBe('PAN')
    fake.succeed(upstreamPan.id)
    await ctx.h.runtime.tick()
    const panDone = await ctx.h.settled(token, pan.body.data.taskId)
    expect(panDone).toMatchObject({ action: 'PAN', status: 'SUCCESS' })
    expect(panDone.buttons).toHaveLength(9)
  })
})
