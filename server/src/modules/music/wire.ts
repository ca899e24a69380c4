import { z } from 'zod'
import { CLIP_STATUSES } from './provider.js'

export const MUSIC_PERMISSION = 'AI_TOOLS_MUSIC'
export const MUSIC_BASE = '/api/v1/music'
export const SONG_NOT_FOUND = '歌曲不存在或已删除'

export const songSchema = z
  .object({
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
    /** The read-only public page (`/music?share={token}`) while shared, else null. */
    sharePath: z.string().nullable(),
    createTime: z.number(),
    /** Set in my lists while an operator has it taken down (已下架): the reason; its files are not served. */
    takedown: z.string().nullable().optional()
  })
  .meta({ id: 'Song' })
export type Song = z.infer<typeof songSchema>

/** A shared song, for anyone with the link: what the player needs, nothing of its owner. */
export const sharedSongSchema = z
  .object({
    title: z.string(),
    tags: z.string(),
    lyric: z.string(),
    instrumental: z.boolean(),
    audioUrl: z.string().nullable(),
    imageUrl: z.string().nullable(),
    duration: z.number().nullable(),
    demo: z.boolean(),
    createTime: z.number()
  })
  .meta({ id: 'SharedSong' })
