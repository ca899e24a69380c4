import { atom } from 'nanostores'
import { shared } from './shared'

// The spec's music state — list, current item, audio status — apart from the music actions
// (src/core/music.ts), so the host page can follow what plays without loading them.

/**
 * - `submitted`: accepted, not queued upstream yet.
 * - `queued`: waiting upstream.
 * - `streaming`: being generated; already playable from the upstream's stream URL.
 * - `complete`: finished and copied into Lingxi's storage.
 * - `error`: failed (`errorMessage` says why).
 */
export type SongStatus = 'submitted' | 'queued' | 'streaming' | 'complete' | 'error'

export interface Song {
  songId: string
  taskId: string
  title: string
  tags: string
  lyric: string
  prompt: string
  instrumental: boolean
  status: SongStatus
  /** Lingxi storage, or the upstream's stream URL while `streaming`; null until playable. */
  audioUrl: string | null
  imageUrl: string | null
  /** Seconds; null until known. */
  duration: number | null
  errorMessage: string | null
  /** Made by the offline demo composer, not by Suno. */
  demo: boolean
  createTime: number
  /** 0–100 when the server reports it (not in the wire doc: the widget estimates otherwise). */
  progress?: number
}

export interface MusicList {
  /** Newest first: the pages loaded so far. */
  list: Song[]
  total: number
  pageNum: number
  loading: boolean
  /** The first page has arrived. */
  loaded: boolean
}

/**
 * - `idle`: nothing loaded.
 * - `loading`: fetching or buffering the current song.
 * - `playing`: sound is coming out.
 * - `paused`: stopped by the person, or at the end of the list.
 * - `error`: the audio could not be loaded.
 */
export type AudioStatus = 'idle' | 'loading' | 'playing' | 'paused' | 'error'

export interface PlayerState {
  status: AudioStatus
  /** The current item (a copy, kept up to date while it is in the list). */
  song: Song | null
  /** Seconds. */
  currentTime: number
  /** Seconds; null while unknown (a stream still being written). */
  duration: number | null
}

export interface CustomSongInput {
  lyric: string
  tags: string
  title: string
  instrumental?: boolean
  negativeTags?: string
}

export const MUSIC_PAGE_SIZE = 10
/** Polling interval for unfinished songs while the account channel is closed. */
export const MUSIC_POLL_MS = 3000
/** Field limits of the creation form (characters), as Suno accepts them. */
export const MUSIC_LIMITS = { prompt: 400, lyric: 3000, tags: 200, title: 80 } as const

export const EMPTY_LIST: MusicList = { list: [], total: 0, pageNum: 0, loading: false, loaded: false }
export const IDLE: PlayerState = { status: 'idle', song: null, currentTime: 0, duration: null }

export const $songs = /* @__PURE__ */ shared('$songs', () => atom<MusicList>(EMPTY_LIST))
export const $player = /* @__PURE__ */ shared('$player', () => atom<PlayerState>(IDLE))
