import { createServer } from 'node:net'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { balanceOf } from '../src/allowances/ledger.js'
import { musicSongs, musicTasks, upstreamChannels } from '../src/db/schema.js'
import { encryptKey, keyHint } from '../src/replies/channels-crypto.js'
import { type FakeSuno, startFakeSuno } from './fakes/suno.js'
import { setBalance } from './helpers/allowances.js'
import { chatHelpers, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

// suno-api behind channels (kind suno): failover before the upstream took the request, polls at
// the request's channel, one charge (and at most one refund) whatever the number of tries.
const MUSIC = '/api/v1/music'
const SECRET = Buffer.alloc(32, 5)
const KEY_B = 'suno-key-BBBB-2222'

let a: FakeSuno
let b: FakeSuno
let closedUrl: string
beforeAll(async () => {
  a = await startFakeSuno()
  b = await startFakeSuno()
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  closedUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}`
  await new Promise<void>((resolve) => probe.close(() => resolve()))
})
afterAll(async () => {
  await Promise.all([a.close(), b.close()])
})
beforeEach(() => {
  a.requests.length = 0
  b.requests.length = 0
})

const ctx = useHarness(() => ({ env: { SUNO_API_URL: a.url, CHANNEL_SECRET_KEY: SECRET.toString('base64'), MUSIC_POLL_MS: '20' } }))
const chat = chatHelpers(ctx)
const post = <T = any>(path: string, body: unknown, token: string) => ctx.h.post<T>(`${MUSIC}/${path}`, body, { token })
const sunoCount = async (accountId: string) => (await balanceOf(ctx.db.db, accountId, 'suno')).balance

async function addChannel(name: string, baseUrl: string, key: string | undefined, priority: number) {
  const at = new Date(ctx.h.clock.now())
  const keys = key ? [key] : []
  const [row] = await ctx.db.db
    .insert(upstreamChannels)
    .values({
      kind: 'suno',
      name,
      baseUrl,
      keys: keys.map((k) => encryptKey(SECRET, k)),
      keyHints: keys.map(keyHint),
      models: [],
      priority,
      createdAt: at,
      updatedAt: at
    })
    .returning()
  ctx.h.clock.advance(6000)
  return row!.id
}

const submits = (f: FakeSuno) => f.requests.filter((r) => r.path === '/api/generate').length

describe('suno-api channels', () => {
  it.each([
    ['HTTP 503', () => a.nextSubmit({ kind: 'error', status: 503, error: 'busy' }), false],
    ['HTTP 429', () => a.nextSubmit({ kind: 'error', status: 429, error: 'rate limited' }), false],
    ['a refused connection', () => {}, true]
  ])('the first channel fails with %s: the second takes the request, charged once, polled there', async (_, cue, refused) => {
    await addChannel('A', refused ? closedUrl : a.url, undefined, 10)
    const idB = await addChannel('B', b.url, KEY_B, 0)
    cue()
    const { token, accountId } = await chat.user()
    const before = await sunoCount(accountId)
    const res = await post<any>('generate', { prompt: '一首关于夏天的歌', instrumental: false }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    expect(submits(a)).toBe(refused ? 0 : 1)
    expect(submits(b)).toBe(1)
    const { taskId } = res.body.data
    const [task] = await ctx.db.db.select().from(musicTasks).where(eq(musicTasks.id, taskId))
    expect(task!.channelId).toBe(idB)
    await waitUntil(async () => {
      const [t] = await ctx.db.db.select().from(musicTasks).where(eq(musicTasks.id, taskId))
      return t?.finishedAt != null
    }, 8000)
    const songs = await ctx.db.db.select().from(musicSongs).where(eq(musicSongs.taskId, taskId))
    expect(songs.map((s) => s.status)).toEqual(['complete', 'complete'])
    expect(b.requests.some((r) => r.path.startsWith('/api/get?'))).toBe(true)
    expect(a.requests.some((r) => r.path.startsWith('/api/get?'))).toBe(false)
    expect(await sunoCount(accountId)).toBe(before - 1)
  })

  it('a refusal of the request (HTTP 402) is not sent elsewhere; every channel failing refunds once', async () => {
    await addChannel('A', a.url, undefined, 10)
    await addChannel('B', b.url, KEY_B, 0)
    const { token, accountId } = await chat.user()
    const before = await sunoCount(accountId)
    a.nextSubmit({ kind: 'error', status: 402, error: 'no credits' })
    const refused = await post<any>('generate', { prompt: '秋天', instrumental: false }, token)
    expect(refused.body.code).not.toBe(2000)
    expect(submits(b)).toBe(0)
    a.nextSubmit({ kind: 'error', status: 500, error: 'boom' })
    b.nextSubmit({ kind: 'error', status: 502, error: 'bad gateway' })
    const failed = await post<any>('generate', { prompt: '冬天', instrumental: false }, token)
    expect(failed.body.code).not.toBe(2000)
    expect(failed.body.message).toMatch(/音乐服务/)
    expect(submits(b)).toBe(1)
    expect(await sunoCount(accountId)).toBe(before)
    const refunds = (await chat.log(accountId)).filter((l) => l.kind === 'suno' && l.amount > 0 && l.reason.startsWith('音乐'))
    expect(refunds).toHaveLength(2)
  })

  it('20 parallel requests with the first channel down: all on B, each charged exactly once', async () => {
    await addChannel('A', closedUrl, undefined, 10)
    const idB = await addChannel('B', b.url, KEY_B, 0)
    const { token, accountId } = await chat.user()
    await setBalance(ctx.db.db, accountId, 'suno', 20)
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post<any>('generate', { prompt: `歌 ${i}`, instrumental: false }, token)))
    expect(answers.map((r) => r.body.code)).toEqual(Array(20).fill(2000))
    expect(submits(b)).toBe(20)
    const tasks = await ctx.db.db.select().from(musicTasks).where(eq(musicTasks.accountId, accountId))
    expect(tasks.map((t) => t.channelId)).toEqual(Array(20).fill(idB))
    expect(await sunoCount(accountId)).toBe(0)
    // The key went to B as a bearer token, and into no row in clear.
    expect(JSON.stringify(await ctx.db.db.select().from(upstreamChannels))).not.toContain(KEY_B)
    await ctx.h.modules.music.runtime.idle()
  })
})
