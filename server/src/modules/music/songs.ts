import { and, eq } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import { type MusicSong, musicSongs } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { SONG_NOT_FOUND } from './wire.js'

/** One of the account's songs; another account's song is "not found" too (nothing about it is told). */
export async function requireSong(db: Db, accountId: string, songId: string): Promise<MusicSong> {
  const [row] = await db
    .select()
    .from(musicSongs)
    .where(and(eq(musicSongs.id, songId), eq(musicSongs.accountId, accountId)))
  if (!row) throw new ApiError(40400001, SONG_NOT_FOUND)
  return row
}

/** The public page of a shared song, on the site's origin: the music route with `?share=` (no route of its own in the host's table). */
export const songSharePath = (token: string) => `/music?share=${token}`

/** `attachment` with an ASCII fallback name and the real (Chinese) one in RFC 5987 `filename*`. */
export function attachment(base: string, ext: string): string {
  const clean =
    base
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters never belong in a file name
      .replace(/[\u0000-\u001f\u007f"\\/:*?<>|]/g, '')
      .trim()
      .slice(0, 80) || '未命名'
  const ascii =
    clean
      .replace(/[^\x20-\x7e]/g, '')
      .replace(/[%;]/g, '')
      .trim() || 'song'
  const encoded = encodeURIComponent(`${clean}.${ext}`).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}.${ext}"; filename*=UTF-8''${encoded}`
}
