import type { Song as WireSong } from '@lingxi/server/wire'
import { atom } from 'nanostores'
import { shared } from '../../core/shared'

// The spec's music state — list, current item, audio status — apart from the music actions
// (actions.ts); the player's own state is player-state.ts, which the host reads alone.

/**
 * A song of the music wire (`@lingxi/server/wire`, type-only). Its status:
 * - `submitted`: accepted, not queued upstream yet.
 * - `queued`: waiting upstream.
 * - `streaming`: being generated; already playable from the upstream's stream URL.
 * - `complete`: finished and copied into Lingxi's storage.
 * - `error`: failed (`errorMessage` says why).
 * audioUrl is Lingxi storage, or the upstream's stream URL while `streaming` (null until playable);
 * duration is in seconds (null until known); demo: made by the offline demo composer, not by Suno.
 */
export type Song = WireSong & {
  /** 0–100 when the server reports it (not in the wire: the widget estimates otherwise). */
  progress?: number
}
export type { SongStatus } from '@lingxi/server/wire'

export interface MusicList {
  /** Newest first: the pages loaded so far. */
  list: Song[]
  total: number
  pageNum: number
  loading: boolean
  /** The first page has arrived. */
  loaded: boolean
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

export const $songs = /* @__PURE__ */ shared('$songs', () => atom<MusicList>(EMPTY_LIST))
