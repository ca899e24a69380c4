import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { balanceOf } from '../src/allowances/ledger.js'
import { files, musicSongs, musicTasks } from '../src/db/schema.js'
import { attachment } from '../src/modules/music/songs.js'
import { type FakeSuno, fakeMp3, startFakeSuno } from './fakes/suno.js'
import { chatHelpers, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const MUSIC = '/api/v1/music'

let suno: FakeSuno
beforeAll(async () => {
  suno = await startFakeSuno()
})
afterAll(async () => {
  await suno.close()
})

const ctx = useHarness(() => ({ env: { SUNO_API_URL: suno.url, MUSIC_POLL_MS: '20' } }))
const chat = chatHelpers(ctx)
const post = <T = any>(path: string, body: unknown, token?: string) => ctx.h.post<T>(`${MUSIC}/${path}`, body, token === undefined ? {} : { token })
const sunoCount = async (accountId: string) => (await balanceOf(ctx.db.db, accountId, 'suno')).balance
const sunoLog = async (accountId: string) => (await chat.log(accountId)).filter((l) => l.kind === 'suno' && l.reason.startsWith('音乐'))

async function settled(taskId: string) {
  await waitUntil(async () => {
    const [task] = await ctx.db.db.select().from(musicTasks).where(eq(musicTasks.id, taskId))
    return task?.finishedAt != null
  }, 8000)
  return ctx.db.db.select().from(musicSongs).where(eq(musicSongs.taskId, taskId)).orderBy(musicSongs.seq)
}

/** A finished song (176.2 s in the fake) of a new account, with its charge already taken. */
async function finishedSong() {
  const user = await chat.user()
  const res = await post<any>('custom/generate', { lyric: '[Verse]\n原来的歌词', tags: 'folk', title: '晚风' }, user.token)
  const [row] = await settled(res.body.data.taskId)
  expect(row!.status).toBe('complete')
  return { ...user, row: row!, start: await sunoCount(user.accountId) }
}

const lastRequest = (path: string) => suno.requests.filter((r) => r.path === path).at(-1)!

describe('song actions against suno-api', () => {
  it('extends a song from a chosen second: extend_audio with audio_id and continue_at, 1 sunoCount logged', async () => {
    const { token, accountId, row, start } = await finishedSong()
    const res = await post<any>('extend', { songId: row.id, continueAt: 95.5, lyric: '[Verse]\n接着唱' }, token)
    expect(res.body.code).toBe(2000)
    expect(lastRequest('/api/extend_audio').body).toEqual({
      audio_id: row.clipId,
      prompt: '[Verse]\n接着唱',
      continue_at: 95.5,
      tags: 'folk',
      title: '晚风',
      model: 'chirp-v3-5',
      wait_audio: false
    })
    expect(res.body.data.songs).toHaveLength(2)
    expect(res.body.data.songs[0]).toMatchObject({ title: '晚风', tags: 'folk', lyric: '[Verse]\n接着唱', instrumental: false })
    expect(await sunoCount(accountId)).toBe(start - 1)
    expect((await settled(res.body.data.taskId)).map((r) => r.status)).toEqual(['complete', 'complete'])
    expect((await sunoLog(accountId)).at(-1)).toEqual({ kind: 'suno', amount: -1, balance: start - 1, reason: '音乐续写' })
  })

  it('refunds an extension the upstream refuses, logged', async () => {
    const { token, accountId, row, start } = await finishedSong()
    suno.nextSubmit({ kind: 'error', status: 500, error: 'Internal server error' })
    const res = await post('extend', { songId: row.id, continueAt: 30 }, token)
    expect(res.body).toEqual({ code: 50200001, message: '音乐服务出错（HTTP 500）', data: null })
    expect(await sunoCount(accountId)).toBe(start)
    expect((await sunoLog(accountId)).slice(-2)).toEqual([
      { kind: 'suno', amount: -1, balance: start - 1, reason: '音乐续写' },
      { kind: 'suno', amount: 1, balance: start, reason: '音乐生成失败，退回额度' }
    ])
  })

  it('sings edited lyrics again (custom_generate), refunded when the upstream has no credits', async () => {
    const { token, accountId, row, start } = await finishedSong()
    const res = await post<any>('regenerate', { songId: row.id, lyric: '[Verse]\n改过的歌词' }, token)
    expect(res.body.code).toBe(2000)
    expect(lastRequest('/api/custom_generate').body).toMatchObject({ prompt: '[Verse]\n改过的歌词', tags: 'folk', title: '晚风', make_instrumental: false })
    expect(res.body.data.songs[0].lyric).toBe('[Verse]\n改过的歌词')
    await settled(res.body.data.taskId)
    expect(await sunoCount(accountId)).toBe(start - 1)
    suno.nextSubmit({ kind: 'error', status: 402, error: 'Insufficient credits.' })
    const refused = await post('regenerate', { songId: row.id, lyric: '再改一次' }, token)
    expect(refused.body).toMatchObject({ code: 50200001, message: '音乐服务的额度已用完，请联系管理员' })
    expect(await sunoCount(accountId)).toBe(start - 1)
    expect((await sunoLog(accountId)).slice(-3).map((l) => [l.amount, l.reason])).toEqual([
      [-1, '音乐改词重新生成'],
      [-1, '音乐改词重新生成'],
      [1, '音乐生成失败，退回额度']
    ])
  })

  it('makes an instrumental version (make_instrumental, no lyrics); every clip failing gives the charge back', async () => {
    const { token, accountId, row, start } = await finishedSong()
    suno.nextSubmit({
      kind: 'ok',
      scripts: [
        ['submitted', 'error'],
        ['submitted', 'error']
      ]
    })
    const res = await post<any>('instrumental', { songId: row.id }, token)
    expect(res.body.code).toBe(2000)
    expect(lastRequest('/api/custom_generate').body).toMatchObject({ prompt: '', tags: 'folk', title: '晚风（纯音乐）', make_instrumental: true })
    expect(res.body.data.songs[0]).toMatchObject({ instrumental: true, lyric: '' })
    expect((await settled(res.body.data.taskId)).map((r) => r.status)).toEqual(['error', 'error'])
    expect(await sunoCount(accountId)).toBe(start)
    expect((await sunoLog(accountId)).slice(-2).map((l) => [l.amount, l.reason])).toEqual([
      [-1, '音乐纯音乐版'],
      [1, '音乐生成失败，退回额度']
    ])
    const again = await post<any>('instrumental', { songId: res.body.data.songs[0].songId }, token)
    expect(again.body).toMatchObject({ code: 40000001, message: '这首歌已经是纯音乐了' })
  })

  it('refuses bad input before charging anything: past the end, someone else’s song, unfinished songs', async () => {
    const { token, accountId, row, start } = await finishedSong()
    const requestsBefore = suno.requests.filter((r) => r.method === 'POST').length
    const beyond = await post('extend', { songId: row.id, continueAt: 176.2 }, token)
    expect(beyond.status).toBe(400)
    expect(beyond.body).toEqual({ code: 40000001, message: '续写起点（176.2 秒）超出了歌曲时长（176.2 秒），请选择更早的时间', data: null })
    expect((await post('extend', { songId: row.id, continueAt: -3 }, token)).body).toMatchObject({ code: 40000001, message: '续写起点必须大于 0 秒' })
    expect((await post('extend', { songId: row.id, continueAt: '10' }, token)).body).toMatchObject({ code: 40000001, message: '续写起点必须是秒数' })
    expect((await post('regenerate', { songId: row.id, lyric: '  ' }, token)).body).toMatchObject({ code: 40000001, message: '歌词不能为空' })

    const other = await chat.user('13900139000')
    const otherStart = await sunoCount(other.accountId)
    for (const [path, body] of [
      ['extend', { songId: row.id, continueAt: 10 }],
      ['regenerate', { songId: row.id, lyric: '偷来的歌' }],
      ['instrumental', { songId: row.id }],
      ['song/share', { songId: row.id }]
    ] as const) {
      const res = await post(path, body, other.token)
      expect(res.body).toEqual({ code: 40400001, message: '歌曲不存在或已删除', data: null })
    }
    const download = await ctx.h.app.request(`${MUSIC}/song/download/${row.id}/audio`, { headers: { Authorization: `Bearer ${other.token}` } })
    expect(await download.json()).toMatchObject({ code: 40400001, message: '歌曲不存在或已删除' })

    suno.nextSubmit({ kind: 'ok', scripts: [['submitted'], ['submitted']] })
    const pending = (await post<any>('generate', { prompt: '还没好' }, token)).body.data.songs[0]
    expect((await post('extend', { songId: pending.songId, continueAt: 5 }, token)).body).toMatchObject({
      code: 40000001,
      message: '歌曲还没有生成完成，请稍后再试'
    })
    expect((await post('song/share', { songId: pending.songId }, token)).body).toMatchObject({ code: 40000001, message: '歌曲还没有生成完成，请稍后再试' })

    expect(await sunoCount(accountId)).toBe(start - 1) // only the unfinished request
    expect(await sunoCount(other.accountId)).toBe(otherStart)
    expect(suno.requests.filter((r) => r.method === 'POST').length).toBe(requestsBefore + 1)
  })
})

describe('downloads and share links', () => {
  it('downloads the MP3 and the cover with a Chinese-safe file name (RFC 5987)', async () => {
    const { token, row } = await finishedSong()
    const audio = await ctx.h.app.request(`${MUSIC}/song/download/${row.id}/audio`, { headers: { Authorization: `Bearer ${token}` } })
    expect(audio.status).toBe(200)
    expect(audio.headers.get('content-type')).toBe('audio/mpeg')
    expect(audio.headers.get('content-disposition')).toBe(`attachment; filename="song.mp3"; filename*=UTF-8''${encodeURIComponent('晚风.mp3')}`)
    expect(Buffer.from(await audio.arrayBuffer()).equals(fakeMp3(row.clipId))).toBe(true)
    const cover = await ctx.h.app.request(`${MUSIC}/song/download/${row.id}/cover`, { headers: { Authorization: `Bearer ${token}` } })
    expect(cover.headers.get('content-type')).toBe('image/jpeg')
    expect(cover.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('晚风-封面.jpg')}`)
    const anonymous = await ctx.h.app.request(`${MUSIC}/song/download/${row.id}/audio`)
    expect(anonymous.status).toBe(401)
    const wrongKind = await ctx.h.app.request(`${MUSIC}/song/download/${row.id}/video`, { headers: { Authorization: `Bearer ${token}` } })
    expect(await wrongKind.json()).toMatchObject({ code: 40000001, message: '下载类型只能是 audio 或 cover' })
  })

  it('names files safely whatever the title holds', () => {
    expect(attachment('Summer "Night"/夜曲', 'mp3')).toBe(
      `attachment; filename="Summer Night.mp3"; filename*=UTF-8''${encodeURIComponent('Summer Night夜曲.mp3')}`
    )
    expect(attachment('  ', 'wav')).toBe(`attachment; filename="song.wav"; filename*=UTF-8''${encodeURIComponent('未命名.wav')}`)
    expect(attachment("it's (live)*", 'mp3')).toBe(`attachment; filename="it's (live).mp3"; filename*=UTF-8''it%27s%20%28live%29.mp3`)
  })

  it('shares a song read-only behind an unguessable token, shows nothing of the owner, and revokes it', async () => {
    const { token, row } = await finishedSong()
    const shared = (await post<any>('song/share', { songId: row.id }, token)).body.data
    expect(shared.sharePath).toMatch(/^\/music\?share=[A-Za-z0-9_-]{24}$/)
    expect((await post<any>('song/share', { songId: row.id }, token)).body.data.sharePath).toBe(shared.sharePath)
    const shareToken = shared.sharePath.split('=').at(-1)
    const page = await post<any>('share/get', { token: shareToken })
    expect(page.body.code).toBe(2000)
    expect(Object.keys(page.body.data).sort()).toEqual(['audioUrl', 'createTime', 'demo', 'duration', 'imageUrl', 'instrumental', 'lyric', 'tags', 'title'])
    expect(page.body.data).toMatchObject({ title: '晚风', tags: 'folk', duration: 176.2, audioUrl: `${ctx.h.config.publicUrl}/files/${row.audioKey}` })
    expect(JSON.stringify(page.body)).not.toContain(row.accountId)
    expect(JSON.stringify(page.body)).not.toContain(row.id)

    expect((await post('share/get', { token: 'x'.repeat(24) })).body).toEqual({ code: 40400001, message: '分享不存在或已撤销', data: null })
    expect((await post('share/get', { token: '../../etc' })).body).toMatchObject({ code: 40400001 })
    const revoked = (await post<any>('song/unshare', { songId: row.id }, token)).body.data
    expect(revoked.sharePath).toBeNull()
    expect((await post('share/get', { token: shareToken })).body).toEqual({ code: 40400001, message: '分享不存在或已撤销', data: null })
    const fresh = (await post<any>('song/share', { songId: row.id }, token)).body.data
    expect(fresh.sharePath).not.toBe(shared.sharePath)
    // Deleting the song ends its link and removes its files.
    await post('song/del', { songId: row.id }, token)
    expect((await post('share/get', { token: fresh.sharePath.split('=').at(-1) })).body).toMatchObject({ code: 40400001 })
    expect(await ctx.db.db.select().from(files).where(eq(files.key, row.audioKey!))).toHaveLength(0)
    expect((await ctx.h.app.request(`/files/${row.audioKey}`)).status).toBe(404)
    expect((await ctx.h.app.request(`/files/${row.imageKey}`)).status).toBe(404)
  })

  it('limits share-page reads per client address (429), another address is not held up', async () => {
    const { token, row } = await finishedSong()
    const shareToken = (await post<any>('song/share', { songId: row.id }, token)).body.data.sharePath.split('=').at(-1)
    const read = (address: string) => ctx.h.post<any>(`${MUSIC}/share/get`, { token: shareToken }, { address })
    for (let i = 0; i < 60; i++) expect((await read('203.0.113.9')).status).toBe(200)
    const busy = await read('203.0.113.9')
    expect(busy.status).toBe(429)
    expect(busy.body.message).toMatch(/^访问过于频繁，请 \d+ 秒后再试$/)
    expect((await read('203.0.113.10')).status).toBe(200)
  })
})
