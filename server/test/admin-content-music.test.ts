import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { musicSongs, musicTasks } from '../src/db/schema.js'
import { type FakeSuno, startFakeSuno } from './fakes/suno.js'
import { chatHelpers, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

// Issue 17 "Content", songs: a takedown hides a shared song's public page and its files at once,
// its owner's list says 已下架 with the reason; a restore brings both back.
const OPERATOR = '13900000001'
const MUSIC = '/api/v1/music'

let suno: FakeSuno
beforeAll(async () => {
  suno = await startFakeSuno()
})
afterAll(async () => {
  await suno.close()
})
beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
})
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness(() => ({ env: { SUNO_API_URL: suno.url, MUSIC_POLL_MS: '20' } }))
const chat = chatHelpers(ctx)

describe('taking a song down', () => {
  it('closes its share page and its files, tells its owner, and restores', async () => {
    const user = await chat.user()
    const made = await ctx.h.post<any>(`${MUSIC}/custom/generate`, { lyric: '[Verse]\n晚风轻轻吹', tags: 'folk', title: '晚风' }, { token: user.token })
    expect(made.body.code, JSON.stringify(made.body)).toBe(2000)
    await waitUntil(async () => {
      const [task] = await ctx.db.db.select().from(musicTasks).where(eq(musicTasks.id, made.body.data.taskId))
      return task?.finishedAt != null
    }, 8000)
    const [row] = await ctx.db.db.select().from(musicSongs).where(eq(musicSongs.taskId, made.body.data.taskId)).orderBy(musicSongs.seq)
    const shared = (await ctx.h.post<any>(`${MUSIC}/song/share`, { songId: row!.id }, { token: user.token })).body.data
    const token = String(shared.sharePath).split('=').at(-1)!
    const page = async () => (await ctx.h.post<any>(`${MUSIC}/share/get`, { token })).body
    const file = async () => (await ctx.h.app.request(new URL(shared.audioUrl, 'http://localhost').pathname)).status
    expect((await page()).code).toBe(2000)
    expect(await file()).toBe(200)

    const { accessToken: op } = await ctx.h.login(OPERATOR)
    const listed = await ctx.h.post<any>('/api/admin/content/list', { list: 'song', pageNum: 1, pageSize: 10 }, { token: op })
    expect(listed.body.data.list.map((r: { itemId: string }) => r.itemId)).toContain(row!.id)
    expect((await ctx.h.post('/api/admin/content/takedown', { kind: 'song', itemId: row!.id, reason: '歌词违规' }, { token: op })).body.code).toBe(2000)
    expect((await page()).code).toBe(40400001)
    expect(await file()).toBe(410)
    const mine = (await ctx.h.post<any>(`${MUSIC}/song/list`, { pageNum: 1, pageSize: 10 }, { token: user.token })).body.data.list
    expect(mine.find((s: { songId: string }) => s.songId === row!.id)).toMatchObject({ takedown: '歌词违规', audioUrl: null })

    expect((await ctx.h.post('/api/admin/content/restore', { kind: 'song', itemId: row!.id, reason: '复核无问题' }, { token: op })).body.code).toBe(2000)
    expect((await page()).code).toBe(2000)
    expect(await file()).toBe(200)
  })
})
