// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { $token } from '../../core/stores'
import {
  deleteSong,
  formatDuration,
  generateCustomMusic,
  generateMusic,
  loadSongs,
  playNext,
  playPrevious,
  playSong,
  seekTo,
  songProgress,
  stopPlayer,
  togglePlay,
  validateSong
} from './actions'
import { $player } from './player-state'
import { $songs, type Song } from './state'

// The music core against a loopback fake of docs/tools-wire.md (Music): list paging, generation,
// progress from the account channel or — while it is closed — from song/get every 3 s, and the
// page-wide player.

const song = (songId: string, patch: Partial<Song> = {}): Song => ({
  songId,
  taskId: `t-${songId}`,
  title: `歌${songId}`,
  tags: 'pop',
  lyric: '[Verse]\n啦啦啦',
  prompt: '夏天',
  instrumental: false,
  status: 'complete',
  audioUrl: `/files/music/${songId}.wav`,
  imageUrl: null,
  duration: 30,
  errorMessage: null,
  demo: true,
  sharePath: null,
  createTime: 1000,
  ...patch
})

let songs: Song[] = []
let calls: { path: string; body: Record<string, unknown> }[] = []
/** The account channel: null = refused (closed), else the open responses. */
let channel: Set<ServerResponse> | null = null
let server: ReturnType<typeof createServer>

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept, last-event-id')
  if (req.method === 'OPTIONS') return res.end()
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/api/v1/', '')
  if (path === 'ai-chat/sse/subscribe') {
    if (!channel) {
      res.setHeader('content-type', 'application/json')
      return res.end(JSON.stringify({ code: 40300001, message: '无权限', data: null }))
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(': hello\n\n')
    channel.add(res)
    req.on('close', () => channel?.delete(res))
    return
  }
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>
  calls.push({ path, body })
  const json = (data: unknown) => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ code: 2000, message: 'success', data }))
  }
  switch (path) {
    case 'music/song/list': {
      const n = Number(body.pageNum)
      const size = Number(body.pageSize)
      return json({ list: songs.slice((n - 1) * size, n * size), total: songs.length, pageNum: n, pageSize: size })
    }
    case 'music/song/get':
      return json(songs.find((s) => s.songId === body.songId))
    case 'music/song/del':
      songs = songs.filter((s) => s.songId !== body.songId)
      return json(true)
    case 'music/generate':
    case 'music/custom/generate': {
      const made = [
        song('n1', { status: 'submitted', audioUrl: null, createTime: 5000 }),
        song('n2', { status: 'submitted', audioUrl: null, createTime: 5000 })
      ]
      songs = [...made.slice().reverse(), ...songs] // newest first
      return json({ taskId: 'tn', songs: made })
    }
    case 'user/info':
      return json({
        accountId: 'a',
        userId: 'a',
        phone: '13800138000',
        nickName: '',
        avatarUrl: '',
        state: 1,
        tokens: 1,
        mjCount: 1,
        sunoCount: 9,
        permissionCodes: []
      })
    default:
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ code: 40400001, message: path, data: null }))
  }
}

beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
})
afterAll(() => {
  for (const res of channel ?? []) res.end()
  return new Promise<void>((r) => server.close(() => r()))
})
beforeEach(() => {
  songs = Array.from({ length: 12 }, (_, i) => song(`s${i + 1}`, { createTime: 100 - i }))
  calls = []
  channel = null
  $token.set('tok')
})
afterEach(() => {
  $token.set(null) // the logout reset: nothing of this person's music stays
})

describe('music list', () => {
  it('loads page by page, newest first, without duplicates', async () => {
    await loadSongs()
    expect($songs.get()).toMatchObject({ total: 12, pageNum: 1, loaded: true, loading: false })
    expect($songs.get().list.map((s) => s.songId)).toEqual(['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10'])
    await loadSongs({ more: true })
    expect($songs.get().list).toHaveLength(12)
    expect(calls.map((c) => c.body)).toEqual([
      { pageNum: 1, pageSize: 10 },
      { pageNum: 2, pageSize: 10 }
    ])
  })

  it('a logout forgets the list and stops the player', async () => {
    await loadSongs()
    playSong('s1')
    expect($player.get().song?.songId).toBe('s1')
    $token.set(null)
    expect($songs.get()).toMatchObject({ list: [], loaded: false })
    expect($player.get()).toMatchObject({ status: 'idle', song: null })
  })

  it('deleting the current song stops it and removes it', async () => {
    await loadSongs()
    playSong('s2')
    await deleteSong('s2')
    expect($player.get().song).toBeNull()
    expect($songs.get().list.map((s) => s.songId)).not.toContain('s2')
    expect($songs.get().total).toBe(11)
  })
})

describe('generation and progress', () => {
  it('sends the description, puts both clips on top and polls song/get every 3 s while the channel is closed', async () => {
    await loadSongs()
    const answer = await generateMusic({ prompt: '  夏天的海边  ', instrumental: true })
    expect(answer.songs).toHaveLength(2)
    expect(calls.find((c) => c.path === 'music/generate')?.body).toEqual({ prompt: '夏天的海边', instrumental: true })
    expect(
      $songs
        .get()
        .list.slice(0, 2)
        .map((s) => s.songId)
    ).toEqual(['n2', 'n1']) // newest first, as song/list has them
    // the server moves on; nothing is pushed (the channel refuses), so the client polls
    songs = songs.map((s) => (s.songId.startsWith('n') ? { ...s, status: 'streaming', audioUrl: `http://up/${s.songId}` } : s))
    await vi.waitFor(() => expect($songs.get().list[0]?.status).toBe('streaming'), { timeout: 5000 })
    const polled = calls.filter((c) => c.path === 'music/song/get').map((c) => c.body.songId)
    expect(polled).toEqual(expect.arrayContaining(['n1', 'n2']))
    songs = songs.map((s) => (s.songId.startsWith('n') ? { ...s, status: 'complete', audioUrl: `/files/${s.songId}.wav` } : s))
    await vi.waitFor(
      () =>
        expect(
          $songs
            .get()
            .list.slice(0, 2)
            .map((s) => s.status)
        ).toEqual(['complete', 'complete']),
      { timeout: 5000 }
    )
    // everything finished: polling stops
    const count = calls.filter((c) => c.path === 'music/song/get').length
    await new Promise((r) => setTimeout(r, 3300))
    expect(calls.filter((c) => c.path === 'music/song/get')).toHaveLength(count)
  }, 20_000)

  it('takes progress from the account channel (event: music) when it is open, without polling', async () => {
    channel = new Set()
    await loadSongs()
    await generateCustomMusic({ lyric: '[Verse]\n你好', tags: 'folk', title: '你好', instrumental: false, negativeTags: ' ' })
    expect(calls.find((c) => c.path === 'music/custom/generate')?.body).toEqual({ lyric: '[Verse]\n你好', tags: 'folk', title: '你好', instrumental: false })
    await vi.waitFor(() => expect(channel!.size).toBe(1))
    const pushed = song('n1', { status: 'streaming', audioUrl: 'http://up/n1', createTime: 5000 })
    for (const res of channel!) res.write(`id: 1\nevent: music\ndata: ${JSON.stringify({ ...pushed, requestId: 'tn' })}\n\n`)
    await vi.waitFor(() => expect($songs.get().list.find((s) => s.songId === 'n1')).toMatchObject({ status: 'streaming', audioUrl: 'http://up/n1' }))
    await new Promise((r) => setTimeout(r, 3300))
    // one catch-up poll when the channel opened, no interval polling while it stays open
    expect(calls.filter((c) => c.path === 'music/song/get').length).toBeLessThanOrEqual(2)
  }, 20_000)
})

describe('ordering', () => {
  it('a late poll answer never takes a song back a step', async () => {
    channel = new Set()
    songs = [song('p1', { status: 'submitted', audioUrl: null })]
    await loadSongs()
    await vi.waitFor(() => expect(channel!.size).toBe(1))
    for (const res of channel!) res.write(`id: 1\nevent: music\ndata: ${JSON.stringify(song('p1', { status: 'complete' }))}\n\n`)
    await vi.waitFor(() => expect($songs.get().list[0]?.status).toBe('complete'))
    // the server's list still says submitted (an older read): a poll must not undo the push
    for (const res of channel!) res.write(`id: 2\nevent: music\ndata: ${JSON.stringify(song('p1', { status: 'streaming' }))}\n\n`)
    await new Promise((r) => setTimeout(r, 100))
    expect($songs.get().list[0]?.status).toBe('complete')
  })
})

describe('the player', () => {
  beforeEach(async () => {
    songs = [song('a'), song('b', { status: 'error', audioUrl: null }), song('c'), song('d', { status: 'streaming', audioUrl: 'http://up/d', duration: null })]
    await loadSongs()
  })
  afterEach(() => stopPlayer())

  it('plays a song, pauses and resumes it', async () => {
    playSong('a')
    expect($player.get()).toMatchObject({ song: { songId: 'a' }, duration: 30 })
    await vi.waitFor(() => expect($player.get().status).toBe('playing'))
    togglePlay()
    await vi.waitFor(() => expect($player.get().status).toBe('paused'))
    togglePlay()
    await vi.waitFor(() => expect($player.get().status).toBe('playing'))
  })

  it('next and previous skip songs that cannot play; previous restarts after 3 s', async () => {
    playSong('a')
    expect(playNext()).toBe(true)
    expect($player.get().song?.songId).toBe('c') // b failed
    expect(playNext()).toBe(true)
    expect($player.get().song?.songId).toBe('d') // streaming songs play
    expect(playNext()).toBe(false)
    seekTo(10)
    expect($player.get().currentTime).toBe(10)
    expect(playPrevious()).toBe(true)
    expect($player.get()).toMatchObject({ song: { songId: 'd' }, currentTime: 0 })
    expect(playPrevious()).toBe(true)
    expect($player.get().song?.songId).toBe('c')
  })

  it('seeks within the song only', () => {
    playSong('a')
    seekTo(99)
    expect($player.get().currentTime).toBe(30)
    seekTo(-5)
    expect($player.get().currentTime).toBe(0)
  })

  it('with nothing current, play starts the first playable song', () => {
    togglePlay()
    expect($player.get().song?.songId).toBe('a')
  })
})

describe('helpers', () => {
  it('validates both forms in Chinese', () => {
    expect(validateSong('simple', { prompt: ' ' })).toEqual({ prompt: '请描述你想要的歌曲' })
    expect(validateSong('simple', { prompt: '好'.repeat(401) }).prompt).toMatch(/400/)
    expect(validateSong('custom', { lyric: '', tags: '', title: '' })).toEqual({
      lyric: '请填写歌词，或点「AI 写词」',
      tags: '请填写音乐风格，如：流行, 钢琴, 女声',
      title: '请填写歌名'
    })
    expect(validateSong('custom', { lyric: '', tags: 'piano', title: '夜', instrumental: true })).toEqual({})
  })

  it('estimates progress from the status, and formats durations', () => {
    const s = song('x', { status: 'submitted', createTime: 0 })
    expect(songProgress(s)).toBeLessThan(songProgress({ ...s, status: 'queued' }))
    expect(songProgress({ ...s, status: 'streaming' }, 0)).toBe(40)
    expect(songProgress({ ...s, status: 'streaming' }, 600_000)).toBe(95)
    expect(songProgress({ ...s, status: 'streaming', progress: 70 })).toBe(70)
    expect(songProgress({ ...s, status: 'complete' })).toBe(100)
    expect(formatDuration(125.4)).toBe('2:05')
    expect(formatDuration(null)).toBe('--:--')
    expect(formatDuration(Infinity)).toBe('--:--')
  })
})
