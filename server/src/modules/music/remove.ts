import { and, eq, inArray } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import { files, type MusicSong, musicSongs } from '../../db/schema.js'
import type { Logger } from '../../logger.js'
import { deleteStoredFile } from '../../storage/images.js'
import type { Storage } from '../../storage/storage.js'

/**
 * Removes a song for good: its row (so its share link answers 404 at once), then its stored audio
 * and cover — bytes, thumbnails and `files` rows. The one delete path: the owner's `song/del` and an
 * operator's takedown both call it. A file that fails to go is logged, never left half-recorded.
 */
export async function removeSong(deps: { db: Db; storage: Storage; logger: Logger }, row: MusicSong): Promise<void> {
  const { db, storage, logger } = deps
  await db.delete(musicSongs).where(eq(musicSongs.id, row.id))
  const keys = [row.audioKey, row.imageKey].filter((k): k is string => Boolean(k))
  if (keys.length === 0) return
  const stored = await db
    .select()
    .from(files)
    .where(and(inArray(files.key, keys), eq(files.accountId, row.accountId)))
  for (const file of stored) {
    await deleteStoredFile({ db, storage }, file).catch((error: unknown) => logger.warn('deleting a song file failed', { key: file.key, error }))
  }
}
