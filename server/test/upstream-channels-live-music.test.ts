import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { musicSongs, musicTasks } from '../src/db/schema.js'
import { type FakeSuno, startFakeSuno } from './fakes/suno.js'
import { setBalance } from './helpers/allowances.js'
import { chatHelpers, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'
import { createHarness, type Harness, type HarnessOptions } from './helpers/harness.js'

// A server started without SUNO_API_URL: suno channels added, disabled or deleted in the console
// take effect with the next request (no restart); with none enabled, requests go to the demo
// composer, labelled demo; a request stays with the provider that took it, across a restart too.
const MUSIC = '/api/v1/music'
const OPERATOR = '13900000017'
const SECRET = Buffer.alloc(32, 17)

let suno: FakeSuno
beforeAll(async () => {
  suno = await startFakeSuno()
})
afterAll(async () => {
  await suno.close()
})
beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
  suno.requests.length = 0
  suno.failGets(null)
})
afterEach(() => vi.unstubAllEnvs())

const options = (): HarnessOptions => ({
  env: { CHANNEL_SECRET_KEY: SECRET.toString('base64'), ADMIN_PHONES: OPERATOR, MUSIC_POLL_MS: '20', MUSIC_DEMO_DELAY_MS: '1000' }
})
const ctx = useHarness(options)
const chat = chatHelpers(ctx)

const post = <T = any>(h: Harness, path: string, body: unknown, token: string) => h.post<T>(`${MUSIC}/${path}`, body, { token })
const submits = () => suno.requests.filter((r) => r.path === '/api/generate' || r.path === '/api/extend_audio').length
const task = async (taskId: string) => (await ctx.db.db.select().from(musicTasks).where(eq(musicTasks.id, taskId)))[0]!
const songs = (taskId: string) => ctx.db.db.select().from(musicSongs).where(eq(musicSongs.taskId, taskId))
const finished = (taskId: string, timeoutMs = 8000) => waitUntil(async () => (await task(taskId)).finishedAt != null, timeoutMs)

/** Moves the demo composer's clock past its delay, a step at a time, while its polls run. */
async function passDemoDelay(h: Harness) {
  for (let i = 0; i < 6; i++) {
    await new Promise((resolve) => setTimeout(resolve, 40))
    h.clock.advance(300)
  }
}

async function operator() {
  return (await ctx.h.login(OPERATOR)).accessToken
}

async function saveChannel(token: string, body: Record<string, unknown>) {
  const res = await ctx.h.post<{ channel: { id: number; enabled: boolean } }>('/api/admin/channels/save', body, { token })
  expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
  return res.body.data.channel
}

describe('suno channels switched at run time (no SUNO_API_URL)', () => {
  it('demo → a channel added in the console → disabled → deleted: each next request follows, earlier ones finish where they started', async () => {
    const admin = await operator()
    const { token, accountId } = await chat.user()
    await setBalance(ctx.db.db, accountId, 'suno', 20)

    // No channel: the demo composer, its songs labelled demo.
    const demo = await post(ctx.h, 'generate', { prompt: '一首关于夏天的歌' }, token)
    expect(demo.body.code, JSON.stringify(demo.body)).toBe(2000)
    expect(demo.body.data.songs.map((s: { demo: boolean }) => s.demo)).toEqual([true, true])
    expect(await task(demo.body.data.taskId)).toMatchObject({ provider: 'demo', channelId: null })
    expect((await post(ctx.h, 'lyrics/generate', { prompt: '星空' }, token)).body.data.title).toBe('星空之歌')
    expect(suno.requests).toHaveLength(0)

    // The operator adds a suno channel: the very next request goes to it.
    const channel = await saveChannel(admin, { kind: 'suno', name: '新 Suno', baseUrl: `${suno.url}/` })
    const live = await post(ctx.h, 'generate', { prompt: '一首关于秋天的歌' }, token)
    expect(live.body.code, JSON.stringify(live.body)).toBe(2000)
    expect(live.body.data.songs.map((s: { demo: boolean }) => s.demo)).toEqual([false, false])
    expect(submits()).toBe(1)
    expect(await task(live.body.data.taskId)).toMatchObject({ provider: 'suno', channelId: channel.id })
    await post(ctx.h, 'lyrics/generate', { prompt: '秋天' }, token)
    expect(suno.requests.filter((r) => r.path === '/api/generate_lyrics')).toHaveLength(1)

    // The demo request made before it finishes on the demo composer: nothing of it goes upstream.
    await passDemoDelay(ctx.h)
    await finished(demo.body.data.taskId)
    const demoSongs = await songs(demo.body.data.taskId)
    expect(demoSongs.map((s) => [s.status, s.demo])).toEqual([
      ['complete', true],
      ['complete', true]
    ])
    expect(suno.requests.some((r) => r.path.includes('demo-'))).toBe(false)
    await finished(live.body.data.taskId)
    expect((await songs(live.body.data.taskId)).map((s) => [s.status, s.demo])).toEqual([
      ['complete', false],
      ['complete', false]
    ])

    // Continuing a demo song stays with the demo composer (suno-api knows nothing of it).
    const extended = await post(ctx.h, 'extend', { songId: demoSongs[0]!.id, continueAt: 5, lyric: '再唱一段' }, token)
    expect(extended.body.code, JSON.stringify(extended.body)).toBe(2000)
    expect(extended.body.data.songs.map((s: { demo: boolean }) => s.demo)).toEqual([true, true])
    expect(await task(extended.body.data.taskId)).toMatchObject({ provider: 'demo', channelId: null })
    expect(submits()).toBe(1)

    // A request on the channel, then the channel is disabled: the request is still polled there,
    // while the next one goes to the demo composer.
    suno.failGets({ status: 503, error: 'busy' })
    const before = await post(ctx.h, 'generate', { prompt: '冬天' }, token)
    expect(before.body.code).toBe(2000)
    expect(submits()).toBe(2)
    const off = await saveChannel(admin, { id: channel.id, name: '新 Suno', baseUrl: suno.url, enabled: false })
    expect(off.enabled).toBe(false)
    const after = await post(ctx.h, 'generate', { prompt: '春天' }, token)
    expect(after.body.code).toBe(2000)
    expect(after.body.data.songs.map((s: { demo: boolean }) => s.demo)).toEqual([true, true])
    expect(await task(after.body.data.taskId)).toMatchObject({ provider: 'demo', channelId: null })
    expect(submits()).toBe(2)
    expect((await post(ctx.h, 'lyrics/generate', { prompt: '春天' }, token)).body.data.title).toBe('春天之歌')
    const gets = suno.requests.filter((r) => r.path.startsWith('/api/get?')).length
    suno.failGets(null)
    await finished(before.body.data.taskId)
    expect(suno.requests.filter((r) => r.path.startsWith('/api/get?')).length).toBeGreaterThan(gets)
    expect((await songs(before.body.data.taskId)).map((s) => s.status)).toEqual(['complete', 'complete'])

    // Enabled again, then deleted: with no channel at all, the demo composer again.
    await saveChannel(admin, { id: channel.id, name: '新 Suno', baseUrl: suno.url, enabled: true })
    const again = await post(ctx.h, 'generate', { prompt: '又一首' }, token)
    expect(again.body.data.songs[0].demo).toBe(false)
    expect(submits()).toBe(3)
    await finished(again.body.data.taskId)
    const deleted = await ctx.h.post('/api/admin/channels/delete', { id: channel.id }, { token: admin })
    expect(deleted.body.code).toBe(2000)
    const last = await post(ctx.h, 'generate', { prompt: '最后一首' }, token)
    expect(last.body.data.songs[0].demo).toBe(true)
    expect(submits()).toBe(3)
    await passDemoDelay(ctx.h)
    await finished(last.body.data.taskId)
    await ctx.h.modules.music.runtime.idle()
  }, 60_000)

  it('a demo request left unfinished by a restart is finished by the demo composer, though a channel was added meanwhile', async () => {
    const admin = await operator()
    const { token } = await chat.user()
    const demo = await post(ctx.h, 'generate', { prompt: '重启前的歌' }, token)
    expect(demo.body.data.songs[0].demo).toBe(true)
    // This node stops polling (its rounds are handed on), the operator adds a channel.
    await ctx.h.modules.music.runtime.close()
    await saveChannel(admin, { kind: 'suno', name: 'Suno', baseUrl: suno.url })
    // The next start: new requests go to the channel, the old one stays on the demo.
    const next = createHarness(ctx.db, options())
    try {
      const runtime = next.modules.music.runtime
      expect((await runtime.current()).kind).toBe('suno')
      expect(await runtime.resume()).toBeGreaterThanOrEqual(1)
      next.clock.advance(Math.max(0, ctx.h.clock.now() - next.clock.now()))
      await passDemoDelay(next)
      await finished(demo.body.data.taskId)
      expect((await songs(demo.body.data.taskId)).map((s) => [s.status, s.demo])).toEqual([
        ['complete', true],
        ['complete', true]
      ])
      expect(suno.requests).toHaveLength(0)
      await runtime.idle()
      await runtime.close()
    } finally {
      await next.close()
    }
  })
})
