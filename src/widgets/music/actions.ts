import { accountChannelOpen, onAccountEvent } from '../../core/account-events'
import { request } from '../../core/api'
import { refreshUser } from '../../core/auth'
import { toast } from '../../core/emit'
import type { Paged } from '../../core/paged-list'
import { shared } from '../../core/shared'
import { $token } from '../../core/stores'
import { $player, IDLE, type PlayerState } from './player-state'
import { $songs, EMPTY_LIST, MUSIC_LIMITS, MUSIC_PAGE_SIZE, MUSIC_POLL_MS, type CustomSongInput, type Song, type SongStatus } from './state'

// Shapes and calls: docs/tools-wire.md (Music). The spec's music state — list, current item,
// audio status — is $songs and $player; the one <audio> of the page lives here, outside every
// widget, so a song keeps playing while the host page shows another route.

export const call = <T>(path: string, body: object) => request<T>(`/music/${path}`, body)

export const isUnfinished = (song: Song) => song.status !== 'complete' && song.status !== 'error'
/** A URL the browser can load (a provider's private scheme, e.g. `demo:`, is not one). */
export const isWebUrl = (url: string | null | undefined): url is string => typeof url === 'string' && /^(https?:\/\/|\/(?!\/))/i.test(url)
export const isPlayable = (song: Song) => isWebUrl(song.audioUrl) && song.status !== 'error'

/**
 * Page-wide bookkeeping: the watcher of unfinished songs, the load ticket, and the logout reset
 * (installed once, when music is first used).
 */
const book = () =>
  shared('music.book', () => {
    const b = {
      unwatch: null as null | (() => void),
      ticket: 0
    }
    $token.listen(() => resetMusic())
    return b
  })

/** The one <audio> of the page (null outside a browser). Never in any shadow root: routes come and go. */
function audio(): HTMLAudioElement | null {
  if (typeof Audio === 'undefined') return null
  return shared('music.audio', () => {
    const a = new Audio()
    a.preload = 'metadata'
    const patch = (p: Partial<PlayerState>) => $player.set({ ...$player.get(), ...p })
    const duration = () => (Number.isFinite(a.duration) && a.duration > 0 ? a.duration : ($player.get().song?.duration ?? null))
    a.addEventListener('playing', () => patch({ status: 'playing' }))
    a.addEventListener('play', () => patch({ status: a.readyState >= 3 ? 'playing' : 'loading' }))
    a.addEventListener('waiting', () => patch({ status: 'loading' }))
    a.addEventListener('pause', () => {
      if ($player.get().status !== 'error' && $player.get().song) patch({ status: 'paused' })
    })
    a.addEventListener('timeupdate', () => patch({ currentTime: a.currentTime }))
    a.addEventListener('durationchange', () => patch({ duration: duration() }))
    a.addEventListener('loadedmetadata', () => patch({ duration: duration() }))
    a.addEventListener('ended', () => {
      if (!playNext()) patch({ status: 'paused', currentTime: duration() ?? a.currentTime })
    })
    a.addEventListener('error', () => {
      if (!a.getAttribute('src')) return
      patch({ status: 'error' })
      toast('音频加载失败，请稍后重试', 'warning')
    })
    return a
  })
}

const RANK: Record<SongStatus, number> = { submitted: 0, queued: 1, streaming: 2, complete: 3, error: 3 }

/** The songs the list shows, replacing one (or adding it at the top when new). */
export function putSong(song: Song, addIfMissing = false): void {
  const state = $songs.get()
  const at = state.list.findIndex((s) => s.songId === song.songId)
  // A poll answered late must not undo a newer push: a song never goes back a step.
  if (at >= 0 && RANK[song.status] < RANK[state.list[at]!.status]) return
  if (at >= 0) {
    const list = state.list.slice()
    list[at] = { ...list[at], ...song }
    $songs.set({ ...state, list })
  } else if (addIfMissing && state.loaded) {
    const list = [song, ...state.list].sort((x, y) => y.createTime - x.createTime)
    $songs.set({ ...state, list, total: state.total + 1 })
  }
  const player = $player.get()
  if (player.song?.songId === song.songId) {
    // The stream URL becomes the stored file when the song completes: keep what is playing.
    $player.set({ ...player, song: { ...player.song, ...song }, duration: player.duration ?? song.duration })
  }
  syncWatch()
}

function asSong(data: unknown): Song | null {
  const d = data as Partial<Song> | null
  return d && typeof d === 'object' && typeof d.songId === 'string' && typeof d.status === 'string' ? (d as Song) : null
}

/** Polls every unfinished song once. */
async function pollUnfinished(): Promise<void> {
  const pending = $songs.get().list.filter(isUnfinished)
  await Promise.all(
    pending.map((s) =>
      call<Song>('song/get', { songId: s.songId }).then(
        (song) => putSong(song),
        () => {}
      )
    )
  )
}

/**
 * While songs are unfinished: their progress from the account channel (`event: music`), or —
 * while that channel is closed — from song/get every 3 s. Stops when every song has ended.
 */
function syncWatch(): void {
  const b = book()
  const wanted = Boolean($token.get()) && $songs.get().list.some(isUnfinished)
  if (!wanted) {
    b.unwatch?.()
    b.unwatch = null
    return
  }
  if (b.unwatch) return
  const $open = accountChannelOpen()
  const off = onAccountEvent('music', (data) => {
    const song = asSong(data)
    if (song) putSong(song, true)
  })
  // The channel does not replay: whatever happened while it was down is fetched once it is up.
  const offOpen = $open.listen((open) => {
    if (open) void pollUnfinished()
  })
  const timer = setInterval(() => {
    if (!$open.get()) void pollUnfinished()
  }, MUSIC_POLL_MS)
  b.unwatch = () => {
    off()
    offOpen()
    clearInterval(timer)
  }
}

/** Loads the first page of my songs (or the next one with `more`). */
export async function loadSongs({ more = false }: { more?: boolean } = {}): Promise<void> {
  const b = book()
  const ticket = ++b.ticket
  const before = $songs.get()
  const pageNum = more ? before.pageNum + 1 : 1
  $songs.set({ ...before, loading: true })
  try {
    const page = await call<Paged<Song>>('song/list', { pageNum, pageSize: MUSIC_PAGE_SIZE })
    if (ticket !== b.ticket) return
    const current = $songs.get()
    const kept = more ? current.list : []
    const seen = new Set(kept.map((s) => s.songId))
    const list = [...kept, ...(page.list ?? []).filter((s) => !seen.has(s.songId))]
    $songs.set({ list, total: page.total ?? list.length, pageNum, loading: false, loaded: true })
    syncWatch()
  } catch (error) {
    if (ticket === b.ticket) $songs.set({ ...$songs.get(), loading: false })
    throw error
  }
}

/** Puts a request's new songs at the top of the list and follows them (song-actions.ts uses it too). */
export function added(answer: { taskId: string; songs: Song[] }): { taskId: string; songs: Song[] } {
  const state = $songs.get()
  const ids = new Set(answer.songs.map((s) => s.songId))
  // The answer lists the clips as made; song/list is newest first, the second clip before the first.
  // Shown the list's way, the order stays put when the list is loaded again.
  const list = [...answer.songs.slice().reverse(), ...state.list.filter((s) => !ids.has(s.songId))]
  $songs.set({ ...state, list, total: state.total + answer.songs.length, loaded: true })
  syncWatch()
  refreshUser().catch(() => {})
  return answer
}

/** Two songs from a description (1 sunoCount). They appear at the top of the list and are followed. */
export async function generateMusic(input: { prompt: string; instrumental?: boolean }): Promise<{ taskId: string; songs: Song[] }> {
  return added(await call('generate', { prompt: input.prompt.trim(), instrumental: Boolean(input.instrumental) }))
}

/** Two songs from my lyrics, style tags and title (1 sunoCount). */
export async function generateCustomMusic(input: CustomSongInput): Promise<{ taskId: string; songs: Song[] }> {
  const body: Record<string, unknown> = {
    lyric: input.lyric.trim(),
    tags: input.tags.trim(),
    title: input.title.trim(),
    instrumental: Boolean(input.instrumental)
  }
  if (input.negativeTags?.trim()) body.negativeTags = input.negativeTags.trim()
  return added(await call('custom/generate', body))
}

/** AI 写词: lyrics (and a title) from a theme. */
export function generateLyrics(prompt: string): Promise<{ title: string; text: string }> {
  return call('lyrics/generate', { prompt: prompt.trim() })
}

export async function deleteSong(songId: string): Promise<void> {
  await call<boolean>('song/del', { songId })
  if ($player.get().song?.songId === songId) stopPlayer()
  const state = $songs.get()
  $songs.set({ ...state, list: state.list.filter((s) => s.songId !== songId), total: Math.max(0, state.total - 1) })
  syncWatch()
}

/** What is wrong with a creation form, in Chinese (empty when it can be sent). */
export function validateSong(
  mode: 'simple' | 'custom',
  input: { prompt?: string } & Partial<CustomSongInput>
): Partial<Record<'prompt' | 'lyric' | 'tags' | 'title', string>> {
  const errors: Partial<Record<'prompt' | 'lyric' | 'tags' | 'title', string>> = {}
  const len = (s: string | undefined) => (s ?? '').trim().length
  if (mode === 'simple') {
    if (!len(input.prompt)) errors.prompt = '请描述你想要的歌曲'
    else if (len(input.prompt) > MUSIC_LIMITS.prompt) errors.prompt = `描述不能超过 ${MUSIC_LIMITS.prompt} 个字`
    return errors
  }
  if (!input.instrumental && !len(input.lyric)) errors.lyric = '请填写歌词，或点「AI 写词」'
  else if (len(input.lyric) > MUSIC_LIMITS.lyric) errors.lyric = `歌词不能超过 ${MUSIC_LIMITS.lyric} 个字`
  if (!len(input.tags)) errors.tags = '请填写音乐风格，如：流行, 钢琴, 女声'
  else if (len(input.tags) > MUSIC_LIMITS.tags) errors.tags = `风格不能超过 ${MUSIC_LIMITS.tags} 个字`
  if (!len(input.title)) errors.title = '请填写歌名'
  else if (len(input.title) > MUSIC_LIMITS.title) errors.title = `歌名不能超过 ${MUSIC_LIMITS.title} 个字`
  return errors
}

/** How far along a song is, 0–100: the server's figure when it gives one, else from its status and age. */
export function songProgress(song: Song, now: number = Date.now()): number {
  if (song.status === 'complete' || song.status === 'error') return 100
  if (typeof song.progress === 'number' && Number.isFinite(song.progress)) return Math.max(0, Math.min(99, song.progress))
  if (song.status === 'submitted') return 8
  if (song.status === 'queued') return 20
  // streaming: from 40 towards 95 over about two minutes
  const age = Math.max(0, now - song.createTime) / 1000
  return Math.min(95, Math.round(40 + 55 * (1 - Math.exp(-age / 60))))
}

/** 125.4 → '2:05'; null or not finite → '--:--'. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '--:--'
  const s = Math.floor(seconds)
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`
}

// ---- the player ---------------------------------------------------------------------------------

const playable = () => $songs.get().list.filter(isPlayable)

/** Plays a song of the list from its start (or resumes it when it is the current one). */
export function playSong(songId: string): void {
  const a = audio()
  const song = $songs.get().list.find((s) => s.songId === songId) ?? ($player.get().song?.songId === songId ? $player.get().song : null)
  if (!a || !song || !isPlayable(song)) return
  const current = $player.get()
  if (current.song?.songId !== songId || current.status === 'error' || !a.getAttribute('src')) {
    $player.set({ status: 'loading', song, currentTime: 0, duration: song.duration })
    a.src = song.audioUrl!
  }
  a.play().catch((error: unknown) => {
    // Autoplay refused or the element was reset meanwhile: paused, not broken.
    if ((error as Error)?.name === 'NotAllowedError' && $player.get().song) $player.set({ ...$player.get(), status: 'paused' })
  })
}

export function pausePlayer(): void {
  audio()?.pause()
}

/** Play ⇄ pause the current song; with none, the first playable song of the list. */
export function togglePlay(): void {
  const { song, status } = $player.get()
  if (!song) {
    const first = playable()[0]
    if (first) playSong(first.songId)
    return
  }
  if (status === 'playing' || status === 'loading') pausePlayer()
  else playSong(song.songId)
}

/** Jumps to a position (seconds), within the song. */
export function seekTo(seconds: number): void {
  const a = audio()
  const { song, duration } = $player.get()
  if (!a || !song || !Number.isFinite(seconds)) return
  const t = Math.max(0, duration ? Math.min(seconds, duration) : seconds)
  a.currentTime = t
  $player.set({ ...$player.get(), currentTime: t })
}

function neighbour(step: 1 | -1): Song | null {
  const list = playable()
  const id = $player.get().song?.songId
  const at = list.findIndex((s) => s.songId === id)
  if (at < 0) return list[0] ?? null
  return list[at + step] ?? null
}

/** The next playable song of the list; false at the end. */
export function playNext(): boolean {
  const next = neighbour(1)
  if (!next) return false
  playSong(next.songId)
  return true
}

/** Back to the start when more than 3 s in, else the previous song; false when there is none. */
export function playPrevious(): boolean {
  const a = audio()
  if (a && $player.get().song && a.currentTime > 3) {
    seekTo(0)
    return true
  }
  const previous = neighbour(-1)
  if (!previous) {
    if ($player.get().song) seekTo(0)
    return false
  }
  playSong(previous.songId)
  return true
}

export const hasNext = () => neighbour(1) !== null && $player.get().song !== null
export const hasPrevious = () => neighbour(-1) !== null && $player.get().song !== null

/** Stops and forgets the current song (the mini player closes). */
export function stopPlayer(): void {
  const a = audio()
  $player.set(IDLE)
  if (a) {
    a.pause()
    a.removeAttribute('src')
    a.load()
  }
}

/** Logout or another account: nothing of the previous person's music stays. */
export function resetMusic(): void {
  const b = book()
  b.ticket++
  b.unwatch?.()
  b.unwatch = null
  if ($player.get().song) stopPlayer()
  $songs.set(EMPTY_LIST)
}

/** Installs the logout reset (call once a music widget is shown). */
export function startMusic(): void {
  book()
}
