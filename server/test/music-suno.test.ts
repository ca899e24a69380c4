import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { balanceOf } from '../src/allowances/ledger.js'
import { files, musicSongs, musicTasks } from '../src/db/schema.js'
import { type FakeSuno, fakeMp3, startFakeSuno } from './fakes/suno.js'
import { setBalance } from './helpers/allowances.js'
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

const env: Record<string, string> = {}
const ctx = useHarness(() => ({ env: { SUNO_API_URL: suno.url, MUSIC_POLL_MS: '20', ...env } }))
const chat = chatHelpers(ctx)
const post = <T = any>(path: string, body: unknown, token?: string) => ctx.h.post<T>(`${MUSIC}/${path}`, body, token === undefined ? {} : { token })

async function sunoCount(accountId: string) {
  return (await balanceOf(ctx.db.db, accountId, 'suno')).balance
}
const sunoLog = async (accountId: string) => (await chat.log(accountId)).filter((l) => l.kind === 'suno' && l.reason.startsWith('音乐'))

/** Waits until the request's songs have all finished and the task is closed. */
async function settled(taskId: string) {
  await waitUntil(async () => {
    const [task] = await ctx.db.db.select().from(musicTasks).where(eq(musicTasks.id, taskId))
    return task?.finishedAt != null
  }, 8000)
  return ctx.db.db.select().from(musicSongs).where(eq(musicSongs.taskId, taskId)).orderBy(musicSongs.seq)
}

describe('suno-api provider', () => {
  it('submits, follows the clips through their statuses, copies audio and covers into storage, charges once', async () => {
    const { token, accountId } = await chat.user()
    const before = await sunoCount(accountId)
    const res = await post<any>('generate', { prompt: '一首关于夏天的歌', instrumental: false }, token)
    expect(res.body.code).toBe(2000)
    const { taskId, songs } = res.body.data
    expect(songs).toHaveLength(2)
    for (const s of songs)
      expect(s).toMatchObject({ taskId, status: 'submitted', demo: false, prompt: '一首关于夏天的歌', instrumental: false, audioUrl: null })
    const submitted = suno.requests.find((r) => r.path === '/api/generate')!
    expect(submitted.body).toEqual({ prompt: '一首关于夏天的歌', make_instrumental: false, model: 'chirp-v3-5', wait_audio: false })
    expect(await sunoCount(accountId)).toBe(before - 1)

    const rows = await settled(taskId)
    expect(rows.map((r) => r.status)).toEqual(['complete', 'complete'])
    for (const row of rows) {
      expect(row).toMatchObject({ title: '夏日晚风', tags: 'pop, chinese', duration: 176.2 })
      expect(row.audioKey).toMatch(/^music\/\d{4}\/\d{2}\/[0-9a-f-]+\.mp3$/)
      expect(row.imageKey).toMatch(/^covers\/\d{4}\/\d{2}\/[0-9a-f-]+\.jpg$/)
      const song = (await post<any>('song/get', { songId: row.id }, token)).body.data
      expect(song.audioUrl).toBe(`${ctx.h.config.publicUrl}/files/${row.audioKey}`)
      const audio = await ctx.h.app.request(`/files/${row.audioKey}`)
      expect(audio.status).toBe(200)
      expect(audio.headers.get('content-type')).toContain('audio/mpeg')
      expect(Buffer.from(await audio.arrayBuffer()).equals(fakeMp3(row.clipId))).toBe(true)
      const cover = await ctx.h.app.request(`/files/${row.imageKey}`)
      expect(cover.headers.get('content-type')).toContain('image/jpeg')
    }
    expect(await sunoCount(accountId)).toBe(before - 1)
    expect(await sunoLog(accountId)).toEqual([{ kind: 'suno', amount: -1, balance: before - 1, reason: '音乐生成' }])
  })

  it('passes custom mode through and plays the stream URL while streaming', async () => {
    const { token } = await chat.user()
    suno.nextSubmit({ kind: 'ok', scripts: [['streaming', 'streaming', 'streaming', 'streaming', 'streaming', 'complete'], ['complete']] })
    const res = await post<any>('custom/generate', { lyric: '[Verse]\n你好', tags: 'folk', title: '问候', negativeTags: 'metal' }, token)
    expect(res.body.code).toBe(2000)
    const custom = suno.requests.filter((r) => r.path === '/api/custom_generate').at(-1)!
    expect(custom.body).toEqual({
      prompt: '[Verse]\n你好',
      tags: 'folk',
      title: '问候',
      make_instrumental: false,
      model: 'chirp-v3-5',
      wait_audio: false,
      negative_tags: 'metal'
    })
    const [first] = res.body.data.songs
    expect(first).toMatchObject({ title: '问候', tags: 'folk', lyric: '[Verse]\n你好' })
    await waitUntil(async () => (await post<any>('song/get', { songId: first.songId }, token)).body.data.audioUrl !== null)
    const streaming = (await post<any>('song/get', { songId: first.songId }, token)).body.data
    expect(streaming.status).toBe('streaming')
    expect(streaming.audioUrl).toMatch(new RegExp(`^${suno.url}/stream/`))
    await settled(res.body.data.taskId)
  })

  it('refunds (logged) when the upstream refuses: 402, 500, malformed, no clips', async () => {
    const { token, accountId } = await chat.user()
    const start = await sunoCount(accountId)
    const cases = [
      [{ kind: 'error', status: 402, error: 'Insufficient credits.' }, 502, 50200001, '音乐服务的额度已用完，请联系管理员'],
      [{ kind: 'error', status: 500, error: 'Internal server error' }, 502, 50200001, '音乐服务出错（HTTP 500）'],
      [{ kind: 'malformed' }, 502, 50200001, '音乐服务返回了无法识别的内容（HTTP 200）'],
      [{ kind: 'empty' }, 502, 50200001, '音乐服务没有返回任何歌曲']
    ] as const
    for (const [behaviour, status, code, message] of cases) {
      suno.nextSubmit(behaviour)
      const res = await post('generate', { prompt: '失败的歌' }, token)
      expect(res.status).toBe(status)
      expect(res.body).toEqual({ code, message, data: null })
      expect(await sunoCount(accountId)).toBe(start)
    }
    const log = await sunoLog(accountId)
    expect(log).toHaveLength(8)
    for (let i = 0; i < 8; i += 2) {
      expect(log[i]).toEqual({ kind: 'suno', amount: -1, balance: start - 1, reason: '音乐生成' })
      expect(log[i + 1]).toEqual({ kind: 'suno', amount: 1, balance: start, reason: '音乐生成失败，退回额度' })
    }
    expect(await ctx.db.db.select().from(musicSongs).where(eq(musicSongs.accountId, accountId))).toHaveLength(0)
  })

  it('refunds once when every clip fails, not when one completes', async () => {
    const { token, accountId } = await chat.user()
    const start = await sunoCount(accountId)
    suno.nextSubmit({
      kind: 'ok',
      scripts: [
        ['submitted', 'error'],
        ['queued', 'error']
      ]
    })
    const failed = (await post<any>('generate', { prompt: '全部失败' }, token)).body.data
    const rows = await settled(failed.taskId)
    expect(rows.map((r) => [r.status, r.errorMessage])).toEqual([
      ['error', 'Unable to generate: content policy'],
      ['error', 'Unable to generate: content policy']
    ])
    expect(await sunoCount(accountId)).toBe(start)

    suno.nextSubmit({
      kind: 'ok',
      scripts: [
        ['submitted', 'error'],
        ['submitted', 'complete']
      ]
    })
    const half = (await post<any>('generate', { prompt: '一半' }, token)).body.data
    expect((await settled(half.taskId)).map((r) => r.status)).toEqual(['error', 'complete'])
    expect(await sunoCount(accountId)).toBe(start - 1)
    expect((await sunoLog(accountId)).map((l) => l.amount)).toEqual([-1, 1, -1])
    // The refund is never given twice, whatever polls again.
    const [task] = await ctx.db.db.select().from(musicTasks).where(eq(musicTasks.id, failed.taskId))
    expect(task).toMatchObject({ refunded: 1, charged: 1 })
  })

  it('keeps polling through upstream hiccups without overlapping polls; ends unfinished requests at the time limit, refunded', async () => {
    const { token, accountId } = await chat.user()
    const start = await sunoCount(accountId)
    suno.failGets({ status: 503, error: 'busy' })
    suno.nextSubmit({
      kind: 'ok',
      scripts: [
        ['submitted', 'complete'],
        ['submitted', 'complete']
      ]
    })
    const hiccup = (await post<any>('generate', { prompt: '等一等' }, token)).body.data
    await new Promise((resolve) => setTimeout(resolve, 150))
    suno.failGets('malformed')
    await new Promise((resolve) => setTimeout(resolve, 100))
    suno.failGets(null)
    expect((await settled(hiccup.taskId)).map((r) => r.status)).toEqual(['complete', 'complete'])
    expect(suno.maxConcurrentGets()).toBe(1)

    suno.nextSubmit({ kind: 'ok', scripts: [['queued'], ['streaming']] })
    const stuck = (await post<any>('generate', { prompt: '永远不结束' }, token)).body.data
    await new Promise((resolve) => setTimeout(resolve, 100))
    ctx.h.clock.advance(ctx.h.config.music.jobTimeoutMs + 1)
    const rows = await settled(stuck.taskId)
    expect(rows.map((r) => [r.status, r.errorMessage])).toEqual([
      ['error', '生成超时'],
      ['error', '生成超时']
    ])
    expect(await sunoCount(accountId)).toBe(start - 1)
  })

  it('keeps a complete clip streaming until its audio is copied', async () => {
    const { token } = await chat.user()
    suno.failDownloads(500)
    const { taskId, songs } = (await post<any>('generate', { prompt: '下载失败' }, token)).body.data
    try {
      // Complete upstream, not copied: still streaming, from the upstream's file.
      await waitUntil(async () => /\/audio\//.test((await post<any>('song/get', { songId: songs[0].songId }, token)).body.data.audioUrl ?? ''))
      await new Promise((resolve) => setTimeout(resolve, 100))
      const waiting = (await post<any>('song/get', { songId: songs[0].songId }, token)).body.data
      expect(waiting.status).toBe('streaming')
    } finally {
      suno.failDownloads(null)
    }
    expect((await settled(taskId)).every((r) => r.status === 'complete' && r.audioKey)).toBe(true)
  })

  it('refuses at zero sunoCount before submitting; concurrent requests never go below zero', async () => {
    const { token, accountId } = await chat.user()
    await setBalance(ctx.db.db, accountId, 'suno', 0)
    const submits = suno.requests.length
    const snap = await ctx.h.snapshot()
    const res = await post('generate', { prompt: '没额度' }, token)
    expect(res.status).toBe(402)
    expect(res.body).toEqual({ code: 40200001, message: '音乐额度已用完，请充值后再试', data: null })
    expect(suno.requests.length).toBe(submits)
    expect(await ctx.h.snapshot()).toEqual(snap)

    await setBalance(ctx.db.db, accountId, 'suno', 1)
    const results = await Promise.all([1, 2, 3].map(() => post<any>('generate', { prompt: '抢' }, token)))
    expect(results.map((r) => r.body.code).sort()).toEqual([2000, 40200001, 40200001])
    expect(await sunoCount(accountId)).toBe(0)
    await settled(results.find((r) => r.body.code === 2000)!.body.data.taskId)
  })

  it('lists my songs newest first; other accounts cannot see or delete them; delete removes the files', async () => {
    const me = await chat.user()
    const other = await chat.user('13900139000')
    const a = (await post<any>('generate', { prompt: '第一首' }, me.token)).body.data
    const b = (await post<any>('generate', { prompt: '第二首' }, me.token)).body.data
    await settled(a.taskId)
    await settled(b.taskId)
    const list = (await post<any>('song/list', { pageNum: 1, pageSize: 3 }, me.token)).body.data
    expect(list.total).toBe(4)
    expect(list.list.map((s: any) => s.songId)).toEqual([b.songs[1].songId, b.songs[0].songId, a.songs[1].songId])
    expect((await post<any>('song/list', {}, other.token)).body.data).toEqual({ list: [], total: 0, pageNum: 1, pageSize: 20 })

    const target = a.songs[0].songId
    expect((await post('song/get', { songId: target }, other.token)).body).toEqual({ code: 40400001, message: '歌曲不存在或已删除', data: null })
    expect((await post('song/del', { songId: target }, other.token)).body.code).toBe(40400001)
    const [row] = await ctx.db.db.select().from(musicSongs).where(eq(musicSongs.id, target))
    const audioUrl = `/files/${row!.audioKey}`
    expect((await ctx.h.app.request(audioUrl)).status).toBe(200)
    expect((await post('song/del', { songId: target }, me.token)).body).toEqual({ code: 2000, message: '操作成功', data: true })
    expect((await ctx.h.app.request(audioUrl)).status).toBe(404)
    expect(await ctx.db.db.select().from(files).where(eq(files.key, row!.audioKey!))).toHaveLength(0)
    expect((await post('song/get', { songId: target }, me.token)).body.code).toBe(40400001)
  })

  it('validates input in Chinese and generates lyrics', async () => {
    const { token } = await chat.user()
    expect((await post('generate', {}, token)).body).toEqual({ code: 40000001, message: '歌曲描述不能为空', data: null })
    expect((await post('generate', { prompt: 'x'.repeat(401) }, token)).body.message).toBe('歌曲描述不能超过 400 个字符')
    expect((await post('generate', { prompt: '歌', instrumental: 'yes' }, token)).body.message).toBe('instrumental 只能是 true 或 false')
    expect((await post('custom/generate', { tags: 'pop', title: '无词' }, token)).body.message).toBe('歌词不能为空（纯音乐可以不填）')
    expect((await post('custom/generate', { lyric: '词', title: '无风格' }, token)).body.message).toBe('风格标签不能为空')
    expect((await post('song/get', {}, token)).body.message).toBe('songId 不能为空')
    const instrumental = await post<any>('custom/generate', { tags: 'ambient', title: '纯音乐', instrumental: true }, token)
    expect(instrumental.body.code).toBe(2000)
    expect(suno.requests.filter((r) => r.path === '/api/custom_generate').at(-1)!.body).toMatchObject({ prompt: '', make_instrumental: true })
    await settled(instrumental.body.data.taskId)

    expect((await post<any>('lyrics/generate', { prompt: '海边' }, token)).body.data).toEqual({
      title: '海边之歌',
      text: '[Verse]\n关于海边\n[Chorus]\n啦啦啦'
    })
    expect((await post('lyrics/generate', { prompt: '402' }, token)).body).toEqual({
      code: 50200001,
      message: '音乐服务的额度已用完，请联系管理员',
      data: null
    })
    expect((await post('generate', { prompt: '歌' })).body.code).toBe(50011004)
  })
})
