import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { RUN_JOB } from '../src/modules/painting/runtime.js'
import type { WireTask } from '../src/modules/painting/wire.js'
import { type FakeA1111, startFakeA1111 } from './fakes/a1111.js'
import { type FakeMidjourneyProxy, startFakeMidjourneyProxy } from './fakes/midjourney-proxy.js'
import { waitUntil } from './helpers/chat.js'
import { createPaintingHarness, type DrawingGate, drawingGate, type PaintingHarnessOptions, usePaintingHarness } from './helpers/painting.js'

// A server started without MJ_PROXY_URL and A1111_URL: midjourney and sd channels added, disabled
// or deleted in the console take effect with the next task (no restart); with none enabled, tasks
// go to the demo painter, labelled demo; a task stays with the painter that took it (its drawing,
// polls and actions), also when another node draws it after a restart.
const MJ = '/api/v1/painting'
const OPERATOR = '13900000018'
const SECRET = Buffer.alloc(32, 18)
const KEY = 'mj-secret-LIVE-3333'
const SD_AUTH = 'sd:live-pass-4444'

let mj: FakeMidjourneyProxy
let sd: FakeA1111
let gate: DrawingGate
beforeAll(async () => {
  mj = await startFakeMidjourneyProxy({ secret: KEY })
  sd = await startFakeA1111({ auth: SD_AUTH })
})
afterAll(async () => {
  await Promise.all([mj.close(), sd.close()])
})
beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
  mj.requests.length = 0
  mj.nextSubmits.length = 0
  sd.requests.length = 0
  sd.behaviour = { kind: 'ok' }
})
afterEach(() => vi.unstubAllEnvs())

const options = (demoGate: DrawingGate): PaintingHarnessOptions => ({
  env: { CHANNEL_SECRET_KEY: SECRET.toString('base64'), ADMIN_PHONES: OPERATOR, PAINTING_TIMEOUT_MS: '600000' },
  painting: { tuning: { pollStaleMs: 0 }, demo: { sleep: demoGate.sleep } }
})
const ctx = usePaintingHarness(() => {
  // The demo painter holds each drawing until the test releases it.
  gate = drawingGate()
  return options(gate)
})

// Imagines only: features() probes other /mj/submit/ routes.
const submits = () => mj.requests.filter((r) => r.path === '/mj/submit/imagine').length
const sdDraws = () => sd.requests.filter((r) => r.path === '/sdapi/v1/txt2img').length
const SD_BODY = { prompt: 'a lighthouse', negativePrompt: 'lowres', width: 512, height: 512, steps: 20, cfgScale: 7, sampler: 'Euler a' }

async function saveChannel(token: string, body: Record<string, unknown>) {
  const res = await ctx.h.post<{ channel: { id: number; enabled: boolean } }>('/api/admin/channels/save', body, token)
  expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
  return res.body.data.channel
}

const features = async (token: string) => (await ctx.h.post<{ demo: boolean }>(`${MJ}/features`, {}, token)).body.data
const sdOptions = async (token: string) => (await ctx.h.post<{ demo: boolean; samplers: string[] }>('/api/v1/sd/options', {}, token)).body.data
const imagine = (token: string, prompt: string) => ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt }, token)

describe('painting channels switched at run time (no MJ_PROXY_URL, no A1111_URL)', () => {
  it('midjourney: demo → a channel added in the console → disabled; tasks finish, poll and act where they started', async () => {
    const h = ctx.h
    const admin = await h.login(OPERATOR)
    const { token, accountId } = await h.login()
    await h.setMjCount(accountId, 20)

    // No channel: the demo painter, and the page is told so.
    expect((await features(token)).demo).toBe(true)
    const early = await imagine(token, 'a fox drawn by the demo')
    expect(early.body.code, JSON.stringify(early.body)).toBe(2000)
    expect(early.body.data.demo).toBe(true)
    await waitUntil(() => gate.waiting > 0, 10_000)

    // The operator adds a midjourney channel: the very next task goes to it.
    const channel = await saveChannel(admin.token, { kind: 'midjourney', name: '新 MJ', baseUrl: `${mj.url}/mj`, keys: [KEY] })
    expect((await features(token)).demo).toBe(false)
    const live = await imagine(token, 'a fox drawn upstream')
    expect(live.body.code, JSON.stringify(live.body)).toBe(2000)
    expect(live.body.data).toMatchObject({ demo: false, status: 'SUBMITTED' })
    expect(submits()).toBe(1)
    expect(mj.requests[0]!.headers['mj-api-secret']).toBe(KEY)
    expect(await h.row(live.body.data.taskId)).toMatchObject({ provider: 'midjourney-proxy', channelId: channel.id })

    // The demo task made before it is finished by the demo painter.
    gate.release()
    await waitUntil(async () => (await h.row(early.body.data.taskId)).status === 'SUCCESS', 10_000)
    expect(await h.row(early.body.data.taskId)).toMatchObject({ provider: 'demo', demo: true, channelId: null })
    // An action on the demo's picture stays with the demo painter (the proxy never drew it).
    const up = await h.post<WireTask>(`${MJ}/action`, { taskId: early.body.data.taskId, action: 'UPSCALE', index: 2 }, token)
    expect(up.body.code, JSON.stringify(up.body)).toBe(2000)
    expect(up.body.data.demo).toBe(true)
    expect(await h.row(up.body.data.taskId)).toMatchObject({ provider: 'demo', channelId: null })
    expect(submits()).toBe(1)

    // Disabled: the next task goes to the demo painter; the channel's own task is still polled at it.
    const off = await saveChannel(admin.token, { id: channel.id, name: '新 MJ', baseUrl: mj.url, keys: [KEY], enabled: false })
    expect(off.enabled).toBe(false)
    expect((await features(token)).demo).toBe(true)
    const after = await imagine(token, 'a fox after the switch')
    expect(after.body.code).toBe(2000)
    expect(after.body.data.demo).toBe(true)
    expect(await h.row(after.body.data.taskId)).toMatchObject({ provider: 'demo', channelId: null })
    expect(submits()).toBe(1)
    mj.succeed(mj.last().id)
    await h.runtime.tick()
    expect(mj.requests.some((r) => r.path === '/mj/task/list-by-condition')).toBe(true)
    const done = await h.settled(token, live.body.data.taskId)
    expect(done).toMatchObject({ status: 'SUCCESS', demo: false })
    // …and an action on it goes to its channel, disabled or not.
    const u1 = await h.post<WireTask>(`${MJ}/action`, { taskId: live.body.data.taskId, action: 'UPSCALE', index: 1 }, token)
    expect(u1.body.code, JSON.stringify(u1.body)).toBe(2000)
    expect(u1.body.data.demo).toBe(false)
    expect(mj.requests.filter((r) => r.path === '/mj/submit/change')).toHaveLength(1)
    expect(await h.row(u1.body.data.taskId)).toMatchObject({ provider: 'midjourney-proxy', channelId: channel.id })
    await h.runtime.idle()
  }, 60_000)

  it('a demo task handed to another node after a channel was added is drawn by the demo painter there', async () => {
    const h = ctx.h
    const admin = await h.login(OPERATOR)
    const { token } = await h.login()
    const early = await imagine(token, 'drawn across a restart')
    expect(early.body.data.demo).toBe(true)
    const taskId = early.body.data.taskId
    await waitUntil(() => gate.waiting > 0, 10_000)
    await saveChannel(admin.token, { kind: 'midjourney', name: 'MJ', baseUrl: mj.url, keys: [KEY] })
    // A node started now (this one hangs): the task's job comes to it, as BullMQ hands a dead node's job on.
    const open = drawingGate(true)
    const next = await createPaintingHarness(ctx.db, { ...options(open), dataDir: h.dataDir })
    try {
      expect((await next.runtime.current('mj')).name).toBe('midjourney-proxy')
      await next.jobs.add(RUN_JOB, { taskId }, { id: taskId })
      await waitUntil(async () => (await h.row(taskId)).status === 'SUCCESS', 10_000)
      expect(await h.row(taskId)).toMatchObject({ provider: 'demo', demo: true, channelId: null })
      expect(submits()).toBe(0)
      await next.runtime.idle()
    } finally {
      // This node's held drawing ends (the first end won: the task stays SUCCESS).
      gate.release()
      await next.close()
    }
  })

  it('stable diffusion: a channel added in the console draws the next picture; deleted, the demo again', async () => {
    gate.release()
    const h = ctx.h
    const admin = await h.login(OPERATOR)
    const { token } = await h.login()
    expect((await sdOptions(token)).demo).toBe(true)

    const channel = await saveChannel(admin.token, { kind: 'sd', name: '新 SD', baseUrl: sd.url, keys: [SD_AUTH] })
    expect((await sdOptions(token)).demo).toBe(false)
    const live = await h.post<WireTask>('/api/v1/sd/txt2img', SD_BODY, token)
    expect(live.body.code, JSON.stringify(live.body)).toBe(2000)
    expect(live.body.data.demo).toBe(false)
    expect((await h.settled(token, live.body.data.taskId)).status).toBe('SUCCESS')
    expect(await h.row(live.body.data.taskId)).toMatchObject({ provider: 'a1111', channelId: channel.id, demo: false })
    expect(sdDraws()).toBe(1)

    const deleted = await h.post('/api/admin/channels/delete', { id: channel.id }, admin.token)
    expect(deleted.body.code).toBe(2000)
    expect((await sdOptions(token)).demo).toBe(true)
    const after = await h.post<WireTask>('/api/v1/sd/txt2img', SD_BODY, token)
    expect(after.body.code, JSON.stringify(after.body)).toBe(2000)
    expect((await h.settled(token, after.body.data.taskId)).status).toBe('SUCCESS')
    expect(await h.row(after.body.data.taskId)).toMatchObject({ provider: 'demo', demo: true })
    expect(sdDraws()).toBe(1)
  })
})
