import { eq } from 'drizzle-orm'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { musicTasks } from '../src/db/schema.js'
import { composeWav, plan, SAMPLE_RATE } from '../src/modules/music/compose.js'
import { demoCover } from '../src/modules/music/cover.js'
import { createDemoMusicProvider, demoLyrics } from '../src/modules/music/demo.js'
import { chatHelpers, parseFrames, readAll, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const MUSIC = '/api/v1/music'

/** Reads a RIFF/WAVE header and its 16-bit samples. */
function readWav(bytes: Uint8Array) {
  const b = Buffer.from(bytes)
  expect(b.toString('ascii', 0, 4)).toBe('RIFF')
  expect(b.readUInt32LE(4)).toBe(b.length - 8)
  expect(b.toString('ascii', 8, 12)).toBe('WAVE')
  expect(b.toString('ascii', 12, 16)).toBe('fmt ')
  const format = {
    audioFormat: b.readUInt16LE(20),
    channels: b.readUInt16LE(22),
    sampleRate: b.readUInt32LE(24),
    byteRate: b.readUInt32LE(28),
    blockAlign: b.readUInt16LE(32),
    bits: b.readUInt16LE(34)
  }
  expect(b.toString('ascii', 36, 40)).toBe('data')
  const size = b.readUInt32LE(40)
  expect(size).toBe(b.length - 44)
  const samples = new Int16Array(size / 2)
  for (let i = 0; i < samples.length; i++) samples[i] = b.readInt16LE(44 + i * 2)
  return { format, samples }
}

describe('the demo composer', () => {
  it('renders a 20–30 s, 22.05 kHz mono 16-bit WAV that is deterministic, audible and not clipped', () => {
    const a = composeWav(12345)
    const { format, samples } = readWav(a.wav)
    expect(format).toEqual({ audioFormat: 1, channels: 1, sampleRate: 22050, byteRate: 44100, blockAlign: 2, bits: 16 })
    const seconds = samples.length / SAMPLE_RATE
    expect(seconds).toBeGreaterThanOrEqual(20)
    expect(seconds).toBeLessThanOrEqual(31)
    expect(seconds).toBeCloseTo(a.composition.durationSeconds, 1)
    let peak = 0
    let energy = 0
    for (const s of samples) {
      peak = Math.max(peak, Math.abs(s))
      energy += s * s
    }
    expect(peak).toBeGreaterThan(20000)
    expect(peak).toBeLessThan(32767)
    expect(Math.sqrt(energy / samples.length)).toBeGreaterThan(1500)
    // Every second of the body has sound in it (no silent gaps).
    for (let t = 1; t < seconds - 2; t++) {
      let e = 0
      for (let i = t * SAMPLE_RATE; i < (t + 1) * SAMPLE_RATE; i++) e += samples[i]! ** 2
      expect(Math.sqrt(e / SAMPLE_RATE)).toBeGreaterThan(300)
    }
    expect(Buffer.from(composeWav(12345).wav).equals(Buffer.from(a.wav))).toBe(true)
    expect(Buffer.from(composeWav(54321).wav).equals(Buffer.from(a.wav))).toBe(false)
    expect(plan(1).tempo).toBeGreaterThanOrEqual(84)
  })

  it('draws a valid PNG cover and writes lyrics from the prompt', async () => {
    const meta = await sharp(Buffer.from(await demoCover(7))).metadata()
    expect(meta).toMatchObject({ format: 'png', width: 512, height: 512 })
    const lyrics = demoLyrics('一首关于夏天海边的歌')
    expect(lyrics.title).toBe('夏天海边之歌')
    expect(lyrics.text).toMatch(/^\[Verse\]\n/)
    expect(lyrics.text).toContain('[Chorus]')
    expect(demoLyrics('一首关于夏天海边的歌')).toEqual(lyrics)
  })

  it('moves two clips with different seeds through the statuses over its delay', async () => {
    let t = 1_000_000
    const demo = createDemoMusicProvider({ now: () => t, delayMs: 1000 })
    const clips = await demo.generate({ mode: 'describe', prompt: '雨夜', instrumental: true })
    expect(clips).toHaveLength(2)
    expect(clips[0]!.id).not.toBe(clips[1]!.id)
    expect(clips.map((c) => c.lyric)).toEqual(['', ''])
    const at = async (ms: number) => {
      t = 1_000_000 + ms
      return (await demo.get(clips.map((c) => c.id))).map((c) => c.status)
    }
    expect(await at(0)).toEqual(['submitted', 'submitted'])
    expect(await at(200)).toEqual(['queued', 'queued'])
    expect(await at(500)).toEqual(['streaming', 'streaming'])
    expect(await at(1000)).toEqual(['complete', 'complete'])
    const [c0, c1] = await demo.get(clips.map((c) => c.id))
    expect(c0!.audioUrl).not.toBe(c1!.audioUrl)
    const audio = await demo.download(c0!.audioUrl!, 'audio')
    expect(audio.contentType).toBe('audio/wav')
    expect(Buffer.from(audio.bytes).equals(Buffer.from((await demo.download(c1!.audioUrl!, 'audio')).bytes))).toBe(false)
    await expect(demo.download('demo:audio:../../x', 'audio')).rejects.toThrow()
    expect((await demo.get(['bogus']))[0]).toMatchObject({ status: 'error' })
  })
})

const ctx = useHarness(() => ({ env: { MUSIC_POLL_MS: '20', MUSIC_DEMO_DELAY_MS: '1000' } }))
const chat = chatHelpers(ctx)

describe('offline (no suno-api configured)', () => {
  it('composes demo songs, publishes progress on the account channel, and serves the WAV and cover from storage', async () => {
    const { token, accountId } = await chat.user()
    const channel = await ctx.h.app.request('/api/v1/ai-chat/sse/subscribe', { headers: { Authorization: `Bearer ${token}` } })
    expect(channel.status).toBe(200)
    const res = await ctx.h.post<any>(`${MUSIC}/generate`, { prompt: '一首轻快的夏日歌曲' }, { token })
    expect(res.body.code).toBe(2000)
    const { taskId, songs } = res.body.data
    expect(songs.map((s: any) => [s.status, s.demo])).toEqual([
      ['submitted', true],
      ['submitted', true]
    ])
    expect(songs[0].title).toBe('轻快之歌')
    expect(songs[0].lyric).toContain('[Verse]')

    // The demo moves with the clock.
    const events = readAll(channel, (text) => (text.match(/"status":"complete"/g) ?? []).length >= 2)
    for (const step of [200, 200, 300, 400]) {
      await new Promise((resolve) => setTimeout(resolve, 80))
      ctx.h.clock.advance(step)
    }
    const frames = parseFrames(await events).filter((f) => f.event === 'music')
    const seen = frames.map((f) => JSON.parse(f.data!))
    for (const song of seen) expect(song.requestId).toBe(taskId)
    const statuses = new Set(seen.map((s) => s.status))
    expect(statuses).toEqual(new Set(['submitted', 'queued', 'streaming', 'complete']))

    await waitUntil(async () => {
      const [task] = await ctx.db.db.select().from(musicTasks).where(eq(musicTasks.id, taskId))
      return task?.finishedAt != null
    })
    const done = await Promise.all(songs.map(async (s: any) => (await ctx.h.post<any>(`${MUSIC}/song/get`, { songId: s.songId }, { token })).body.data))
    for (const song of done) {
      expect(song).toMatchObject({ status: 'complete', demo: true })
      expect(song.duration).toBeGreaterThanOrEqual(20)
      const path = new URL(song.audioUrl).pathname
      expect(path).toMatch(/^\/files\/music\/.+\.wav$/)
      const wav = await ctx.h.app.request(path)
      expect(wav.headers.get('content-type')).toContain('audio/wav')
      const { format, samples } = readWav(new Uint8Array(await wav.arrayBuffer()))
      expect(format.sampleRate).toBe(22050)
      expect(samples.length / 22050).toBeCloseTo(song.duration, 0)
      const cover = await ctx.h.app.request(new URL(song.imageUrl).pathname)
      expect((await sharp(Buffer.from(await cover.arrayBuffer())).metadata()).format).toBe('png')
    }
    expect(done[0].audioUrl).not.toBe(done[1].audioUrl)
    // Charged one sunoCount for the request, not refunded.
    const log = (await chat.log(accountId)).filter((l) => l.kind === 'suno')
    expect(log.at(-1)).toMatchObject({ amount: -1, reason: '音乐生成' })
  })

  it('writes demo lyrics', async () => {
    const { token } = await chat.user()
    const res = await ctx.h.post<any>(`${MUSIC}/lyrics/generate`, { prompt: '星空' }, { token })
    expect(res.body.data.title).toBe('星空之歌')
    expect(res.body.data.text).toContain('星空')
  })
})
