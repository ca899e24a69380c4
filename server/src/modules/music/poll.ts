import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import { type MusicSong, musicSongs, musicTasks } from '../../db/schema.js'
import type { Logger } from '../../logger.js'
import { saveFile, saveImage } from '../../storage/images.js'
import type { Storage } from '../../storage/storage.js'
import { refundRequest } from './charges.js'
import type { Clip, MusicProvider } from './provider.js'

export const TIMEOUT_MESSAGE = '生成超时'
export const TERMINAL = new Set(['complete', 'error'])
export const httpOnly = (url: string | null) => (url && /^https?:\/\//i.test(url) ? url : null)

/**
 * One poll of a request against its provider: clips copied into storage as they complete, each
 * change saved (never undoing a finished clip) and published, the request finished — and refunded
 * when every clip failed — once no clip is open, or when it ran out of time.
 */
export function createPoller(o: {
  db: Db
  storage: Storage
  /** The provider that took a request (by music_tasks.provider); undefined when this server runs none by that kind. */
  providerOf(kind: string): MusicProvider | undefined
  now: () => number
  logger: Logger
  jobTimeoutMs: number
  publish(row: MusicSong): void
}) {
  const { db, storage, providerOf, now, logger, jobTimeoutMs, publish } = o

  /**
   * Marks the request finished and refunds it when no clip completed, in one transaction: a request
   * seen finished was refunded if it had to be, and a crash between the two cannot keep the refund.
   */
  async function finish(taskId: string) {
    const at = new Date(now())
    await db.transaction(async (tx) => {
      const [task] = await tx
        .update(musicTasks)
        .set({ finishedAt: at })
        .where(and(eq(musicTasks.id, taskId), isNull(musicTasks.finishedAt)))
        .returning()
      if (!task) return
      const rows = await tx.select({ status: musicSongs.status }).from(musicSongs).where(eq(musicSongs.taskId, taskId))
      if (rows.length > 0 && rows.every((r) => r.status === 'error')) await refundRequest(tx, taskId, at)
    })
  }

  /** Copies a completed clip's audio (and cover) into storage; returns the keys, or null to retry later. */
  async function copyFiles(
    provider: MusicProvider,
    channelId: number | null,
    row: MusicSong,
    clip: Clip
  ): Promise<{ audioKey: string; imageKey: string | null } | null> {
    if (!clip.audioUrl) return null
    let audioKey: string
    try {
      const audio = await provider.download(clip.audioUrl, 'audio', channelId)
      const stored = await saveFile(
        { db, storage, now },
        { accountId: row.accountId, bytes: audio.bytes, contentType: audio.contentType, source: 'music', name: row.title || '未命名' }
      )
      audioKey = stored.key
    } catch (error) {
      logger.warn('copying a song into storage failed; retried at the next poll', { songId: row.id, error })
      return null
    }
    let imageKey: string | null = null
    if (clip.imageUrl) {
      try {
        const image = await provider.download(clip.imageUrl, 'image', channelId)
        imageKey = (await saveImage({ db, storage, now }, { accountId: row.accountId, bytes: image.bytes, source: 'cover', name: row.title || '封面' })).key
      } catch (error) {
        logger.warn('copying a song cover failed; the song has none', { songId: row.id, error })
      }
    }
    return { audioKey, imageKey }
  }

  /** One poll of a request; true when it needs another. */
  async function pollOnce(taskId: string): Promise<boolean> {
    const [task] = await db.select().from(musicTasks).where(eq(musicTasks.id, taskId))
    if (!task || task.finishedAt) return false
    const rows = await db.select().from(musicSongs).where(eq(musicSongs.taskId, taskId)).orderBy(asc(musicSongs.seq))
    const open = rows.filter((r) => !TERMINAL.has(r.status))
    if (open.length === 0) {
      await finish(taskId)
      return false
    }
    // Asked of the provider that took it, even when new requests go elsewhere now (a channel added or disabled since).
    const provider = providerOf(task.provider)
    if (now() - task.createdAt.getTime() > jobTimeoutMs || !provider) {
      const message = provider ? TIMEOUT_MESSAGE : '音乐服务已更换，任务已取消'
      const at = new Date(now())
      const ended = await db
        .update(musicSongs)
        .set({ status: 'error', errorMessage: message, updatedAt: at })
        .where(
          and(
            inArray(
              musicSongs.id,
              open.map((r) => r.id)
            ),
            sql`${musicSongs.status} not in ('complete', 'error')`
          )
        )
        .returning()
      for (const row of ended) publish(row)
      await finish(taskId)
      return false
    }
    let clips: Clip[]
    try {
      clips = await provider.get(
        open.map((r) => r.clipId),
        task.channelId
      )
    } catch (error) {
      logger.warn('polling music clips failed; retried at the next poll', { taskId, error })
      return true
    }
    const byId = new Map(clips.map((c) => [c.id, c]))
    for (const row of open) {
      const clip = byId.get(row.clipId)
      if (!clip) continue
      let status = clip.status
      const patch: Partial<MusicSong> = {
        title: clip.title || row.title,
        tags: clip.tags || row.tags,
        lyric: clip.lyric || row.lyric,
        duration: clip.duration ?? row.duration,
        audioUrl: httpOnly(clip.audioUrl) ?? row.audioUrl,
        imageUrl: httpOnly(clip.imageUrl) ?? row.imageUrl,
        errorMessage: status === 'error' ? (clip.errorMessage ?? '生成失败') : null
      }
      if (status === 'complete') {
        const copied = await copyFiles(provider, task.channelId, row, clip)
        if (copied) {
          patch.audioKey = copied.audioKey
          patch.imageKey = copied.imageKey
        } else {
          // Not ours yet: it stays playable from the provider, and complete once copied.
          status = 'streaming'
        }
      }
      const changed = status !== row.status || (Object.keys(patch) as (keyof MusicSong)[]).some((k) => patch[k] !== row[k])
      if (!changed) continue
      const [updated] = await db
        .update(musicSongs)
        .set({ ...patch, status, updatedAt: new Date(now()) })
        .where(and(eq(musicSongs.id, row.id), sql`${musicSongs.status} not in ('complete', 'error')`))
        .returning()
      if (updated) publish(updated)
      else if (patch.audioKey) {
        // Deleted (or finished elsewhere) meanwhile: the copies belong to nothing.
        await storage.delete(patch.audioKey).catch(() => {})
        if (patch.imageKey) await storage.delete(patch.imageKey).catch(() => {})
      }
    }
    const after = await db.select({ status: musicSongs.status }).from(musicSongs).where(eq(musicSongs.taskId, taskId))
    if (after.every((r) => TERMINAL.has(r.status))) {
      await finish(taskId)
      return false
    }
    return true
  }

  return { pollOnce, finish }
}
