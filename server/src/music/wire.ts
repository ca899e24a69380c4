import { z } from 'zod'
import type { MusicSong } from '../db/schema.js'
import type { Storage } from '../storage/index.js'
import { CLIP_STATUSES } from './provider.js'

export const MUSIC_PERMISSION = 'AI_TOOLS_MUSIC'
export const MUSIC_BASE = '/api/v1/music'
export const SONG_NOT_FOUND = '歌曲不存在或已删除'

export const songSchema = z.object({
  songId: z.string(),
  taskId: z.string(),
  title: z.string(),
  tags: z.string(),
  lyric: z.string(),
  prompt: z.string(),
  instrumental: z.boolean(),
  status: z.enum(CLIP_STATUSES),
  audioUrl: z.string().nullable(),
  imageUrl: z.string().nullable(),
  duration: z.number().nullable(),
  errorMessage: z.string().nullable(),
  demo: z.boolean(),
  createTime: z.number()
})
export type Song = z.infer<typeof songSchema>

/** Files copied into storage win; before that, the provider's own (stream) URL. */
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
    createTime: row.createdAt.getTime()
  }
}
