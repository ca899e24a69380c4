import type { SharedSong } from '@lingxi/server/wire'
import { ApiError, authHeaders, NetworkError, request } from '../../core/api'
import { $config } from '../../core/config'
import { added, call, putSong } from './actions'
import type { Song } from './state'

// The song actions beyond creating one (docs/tools-wire.md, Music): each new version is a request
// of two songs (1 sunoCount) that joins the list like a new one.

export type { SharedSong }

/** Continues a song from `continueAt` seconds with new lyrics (extend_audio). */
export async function extendSong(song: Song, continueAt: number, lyric: string) {
  return added(await call('extend', { songId: song.songId, continueAt: Math.round(continueAt * 10) / 10, lyric: lyric.trim() }))
}

/** The same style sung with edited lyrics. */
export async function regenerateSong(song: Song, lyric: string) {
  return added(await call('regenerate', { songId: song.songId, lyric: lyric.trim() }))
}

/** An instrumental version (no vocals). */
export async function instrumentalSong(song: Song) {
  return added(await call('instrumental', { songId: song.songId }))
}

/** Turns the read-only link on (or off): the song comes back with its `sharePath`. */
export async function setShared(song: Song, on: boolean): Promise<Song> {
  const updated = await call<Song>(on ? 'song/share' : 'song/unshare', { songId: song.songId })
  putSong(updated)
  return updated
}

/** The full address of a share page, on this site. */
export const shareUrl = (path: string) => new URL(path, location.origin).toString()

/** A shared song, for anyone holding the link (sent without the bearer). */
export const readSharedSong = (token: string) => request<SharedSong>('/music/share/get', { token }, { token: null })

/** The file name of a Content-Disposition: `filename*` (RFC 5987) first, else `filename`. */
export function dispositionName(header: string | null): string | null {
  if (!header) return null
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header)
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim())
    } catch {}
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(header)?.[1] ?? null
}

/** Saves a song's audio (MP3; WAV for demo songs) or cover under the name the server gives. */
export async function downloadSong(song: Song, kind: 'audio' | 'cover'): Promise<string> {
  let res: Response
  try {
    res = await fetch(`${$config.get().apiBase}/api/v1/music/song/download/${encodeURIComponent(song.songId)}/${kind}`, {
      headers: authHeaders(),
      credentials: 'include'
    })
  } catch (cause) {
    throw new NetworkError(undefined, { cause })
  }
  if ((res.headers.get('content-type') ?? '').includes('application/json')) {
    const body = (await res.json().catch(() => null)) as { code?: number; message?: string } | null
    throw body && typeof body.code === 'number' ? new ApiError(body.code, body.message ?? '') : new NetworkError()
  }
  if (!res.ok) throw new NetworkError()
  const name = dispositionName(res.headers.get('content-disposition')) ?? `${song.title || '未命名'}.${kind === 'audio' ? 'mp3' : 'jpg'}`
  const url = URL.createObjectURL(await res.blob())
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.style.display = 'none'
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
  return name
}
