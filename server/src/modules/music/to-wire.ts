import type { MusicSong } from '../../db/schema.js'
import type { Storage } from '../../storage/storage.js'
import { songSharePath } from './songs.js'
import type { Song } from './wire.js'

/** The `Song` of a stored song's row. Files copied into storage win; before that, the provider's own (stream) URL. */
export function toSong(row: MusicSong, storage: Storage): Song {
  return {
    songId: row.id,
    taskId: row.taskId,
    title: row.title,
    tags: row.tags,
    lyric: row.lyric,
    prompt: row.prompt,
    instrumental: row.instrumental,
    status: row.status as Song['status'],
    audioUrl: row.audioKey ? storage.publicUrl(row.audioKey) : row.audioUrl,
    imageUrl: row.imageKey ? storage.publicUrl(row.imageKey) : row.imageUrl,
    duration: row.duration,
    errorMessage: row.errorMessage,
    demo: row.demo,
    sharePath: row.shareToken ? songSharePath(row.shareToken) : null,
    createTime: row.createdAt.getTime()
  }
}
