import { atom, computed } from 'nanostores'
import { shared } from '../../core/shared'
import type { Song } from './state'

// The page's one player — what plays and how — apart from the songs, so the host page (which
// shows the mini player on every route) carries only this.

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

export const IDLE: PlayerState = { status: 'idle', song: null, currentTime: 0, duration: null }

export const $player = /* @__PURE__ */ shared('$player', () => atom<PlayerState>(IDLE))

/** A song is current: the host shows the mini player while another route is on screen. */
export const $playerShown = /* @__PURE__ */ computed($player, (player) => player.song !== null)
