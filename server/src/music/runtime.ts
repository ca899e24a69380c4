import { randomUUID } from 'node:crypto'
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { accounts, balanceLog, type MusicSong, musicSongs, musicTasks } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { EventBus } from '../events/bus.js'
import type { Logger } from '../logger.js'
import { realTimers, type Timers } from '../hot/service.js'
import type { Storage } from '../storage/index.js'
import { saveFile, saveImage } from '../storage/images.js'
import { type Clip, type GenerateInput, type MusicProvider, MusicProviderError } from './provider.js'
import { type Song, toSong } from './wire.js'

export const OUT_OF_SUNO_MESSAGE = '音乐额度已用完，请充值后再试'
export const REFUND_REASON = '音乐生成失败，退回额度'
export const TIMEOUT_MESSAGE = '生成超时'

export interface MusicRuntimeOptions {
  db: Db
  storage: Storage
  bus: EventBus
  provider: MusicProvider
  now: () => number
  logger: Logger
  timers?: Timers
  /** Time between polls of a request's unfinished clips. */
  pollMs: number
  /** A request still unfinished after this long ends in error (refunded when no clip completed). */
  jobTimeoutMs: number
}

export interface MusicRuntime {
  provider: MusicProvider
  song(row: MusicSong): Song
  /** Charges 1 sunoCount (40200001 at zero), submits, saves the clips and starts polling them. */
  submit(accountId: string, input: GenerateInput): Promise<{ taskId: string; songs: Song[] }>
  /** Polls a request once now; joins a poll of it already running. */
  poll(taskId: string): Promise<void>
  /** Picks up the requests left unfinished by the last run (called at start); returns how many. */
  resume(): Promise<number>
  /** Resolves once no request is being polled or waiting for its next poll (tests). */
  idle(): Promise<void>
  close(): Promise<void>
}

const TERMINAL = new Set(['complete', 'error'])
const httpOnly = (url: string | null) => (url && /^https?:\/\//i.test(url) ? url : null)

/** The Chinese refusal a provider failure becomes. */
export function providerFailure(error: unknown): ApiError {
  if (error instanceof MusicProviderError) return new ApiError(error.kind === 'timeout' ? 50400001 : 50200001, error.message)
  return new ApiError(50200001, '音乐服务出错，请稍后再试')
}

export function createMusicRuntime(options: MusicRuntimeOptions): MusicRuntime {
  const { db, storage, bus, provider, now, logger, pollMs, jobTimeoutMs } = options
  const timers = options.timers ?? realTimers
  const inflight = new Map<string, Promise<void>>()
  const scheduled = new Map<string, unknown>()
  let closed = false

  const song = (row: MusicSong) => toSong(row, storage)

  function publish(row: MusicSong) {
    bus
      .publish(row.accountId, { event: 'music', data: { ...song(row), requestId: row.taskId } })
      .catch((error: unknown) => logger.error('publishing music progress failed', { error, songId: row.id }))
  }

  /** Gives the request's sunoCount back, once, logged with the balance. */
  async function refund(taskId: string, at: Date): Promise<boolean> {
    return db.transaction(async (tx) => {
      const [task] = await tx
        .update(musicTasks)
        .set({ refunded: 1 })
        .where(and(eq(musicTasks.id, taskId), eq(musicTasks.refunded, 0), gt(musicTasks.charged, 0)))
        .returning()
      if (!task) return false
      const [account] = await tx
        .update(accounts)
        .set({ sunoCount: sql`${accounts.sunoCount} + ${task.charged}` })
        .where(eq(accounts.id, task.accountId))
        .returning({ sunoCount: accounts.sunoCount })
      if (!account) return false
      await tx.insert(balanceLog).values({
        accountId: task.accountId,
        kind: 'suno',
        amount: task.charged,
        balance: account.sunoCount,
        reason: REFUND_REASON,
        createdAt: at
      })
      return true
    })
  }

  /** Marks the request finished; refunds it when no clip completed. */
  async function finish(taskId: string) {
    const at = new Date(now())
    const [task] = await db
      .update(musicTasks)
      .set({ finishedAt: at })
      .where(and(eq(musicTasks.id, taskId), isNull(musicTasks.finishedAt)))
      .returning()
    if (!task) return
    const rows = await db.select({ status: musicSongs.status }).from(musicSongs).where(eq(musicSongs.taskId, taskId))
    if (rows.length > 0 && rows.every((r) => r.status === 'error')) await refund(taskId, at)
  }

  /** Copies a completed clip's audio (and cover) into storage; returns the keys, or null to retry later. */
  async function copyFiles(row: MusicSong, clip: Clip): Promise<{ audioKey: string; imageKey: string | null } | null> {
    if (!clip.audioUrl) return null
    let audioKey: string
    try {
      const audio = await provider.download(clip.audioUrl, 'audio')
      const stored = await saveFile({ db, storage, now }, { accountId: row.accountId, bytes: audio.bytes, contentType: audio.contentType, source: 'music', name: row.title || '未命名' })
      audioKey = stored.key
    } catch (error) {
      logger.warn('copying a song into storage failed; retried at the next poll', { songId: row.id, error })
      return null
    }
    let imageKey: string | null = null
    if (clip.imageUrl) {
      try {
        const image = await provider.download(clip.imageUrl, 'image')
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
    if (now() - task.createdAt.getTime() > jobTimeoutMs || task.provider !== provider.kind) {
      const message = task.provider !== provider.kind ? '音乐服务已更换，任务已取消' : TIMEOUT_MESSAGE
      const at = new Date(now())
      const ended = await db
        .update(musicSongs)
        .set({ status: 'error', errorMessage: message, updatedAt: at })
        .where(and(inArray(musicSongs.id, open.map((r) => r.id)), sql`${musicSongs.status} not in ('complete', 'error')`))
        .returning()
      for (const row of ended) publish(row)
      await finish(taskId)
      return false
    }
    let clips: Clip[]
    try {
      clips = await provider.get(open.map((r) => r.clipId))
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
        const copied = await copyFiles(row, clip)
        if (copied) {
          patch.audioKey = copied.audioKey
          patch.imageKey = copied.imageKey
        } else {
          // Not ours yet: it stays playable from the provider, and complete once copied.
          status = 'streaming'
        }
      }
      const changed =
        status !== row.status ||
        (Object.keys(patch) as (keyof MusicSong)[]).some((k) => patch[k] !== row[k])
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

  function schedule(taskId: string, delayMs: number) {
    if (closed) return
    const previous = scheduled.get(taskId)
    if (previous !== undefined) timers.clearTimeout(previous)
    scheduled.set(
      taskId,
      timers.setTimeout(() => {
        scheduled.delete(taskId)
        void poll(taskId)
      }, delayMs)
    )
  }

  function poll(taskId: string): Promise<void> {
    const running = inflight.get(taskId)
    if (running) return running
    const job = pollOnce(taskId)
      .then((more) => {
        if (more) schedule(taskId, pollMs)
      })
      .catch((error: unknown) => {
        logger.error('music poll failed', { taskId, error })
        schedule(taskId, pollMs)
      })
      .finally(() => inflight.delete(taskId))
    inflight.set(taskId, job)
    return job
  }

  return {
    provider,
    song,

    async submit(accountId, input) {
      const taskId = randomUUID()
      const at = new Date(now())
      await db.transaction(async (tx) => {
        const [account] = await tx
          .update(accounts)
          .set({ sunoCount: sql`${accounts.sunoCount} - 1` })
          .where(and(eq(accounts.id, accountId), gt(accounts.sunoCount, 0)))
          .returning({ sunoCount: accounts.sunoCount })
        if (!account) throw new ApiError(40200001, OUT_OF_SUNO_MESSAGE)
        await tx.insert(balanceLog).values({
          accountId,
          kind: 'suno',
          amount: -1,
          balance: account.sunoCount,
          reason: input.mode === 'describe' ? '音乐生成' : '音乐生成（自定义）',
          createdAt: at
        })
        await tx.insert(musicTasks).values({ id: taskId, accountId, provider: provider.kind, mode: input.mode, charged: 1, createdAt: at })
      })
      let clips: Clip[]
      try {
        clips = (await provider.generate(input)).slice(0, 4)
        if (clips.length === 0) throw new MusicProviderError('upstream', '音乐服务没有返回任何歌曲')
      } catch (error) {
        if (!(error instanceof MusicProviderError)) logger.error('music submit failed', { taskId, error })
        await db.update(musicTasks).set({ finishedAt: new Date(now()) }).where(eq(musicTasks.id, taskId))
        await refund(taskId, new Date(now()))
        throw providerFailure(error)
      }
      const created = new Date(now())
      const rows = await db
        .insert(musicSongs)
        .values(
          clips.map((clip) => ({
            id: randomUUID(),
            accountId,
            taskId,
            clipId: clip.id,
            title: clip.title || (input.mode === 'custom' ? input.title : ''),
            tags: clip.tags || (input.mode === 'custom' ? input.tags : ''),
            lyric: clip.lyric || (input.mode === 'custom' && !input.instrumental ? input.lyric : ''),
            prompt: clip.prompt || (input.mode === 'describe' ? input.prompt : input.lyric),
            instrumental: input.instrumental,
            status: clip.status === 'complete' ? 'streaming' : clip.status,
            audioUrl: httpOnly(clip.audioUrl),
            imageUrl: httpOnly(clip.imageUrl),
            duration: clip.duration,
            errorMessage: clip.status === 'error' ? (clip.errorMessage ?? '生成失败') : null,
            demo: provider.demo,
            createdAt: created,
            updatedAt: created
          }))
        )
        .returning()
      rows.sort((a, b) => a.seq - b.seq)
      for (const row of rows) publish(row)
      schedule(taskId, pollMs)
      return { taskId, songs: rows.map(song) }
    },

    poll,

    async resume() {
      const open = await db.select({ id: musicTasks.id }).from(musicTasks).where(isNull(musicTasks.finishedAt))
      for (const task of open) schedule(task.id, 0)
      return open.length
    },

    async idle() {
      while (inflight.size > 0 || scheduled.size > 0) await new Promise((resolve) => setTimeout(resolve, 10))
    },

    async close() {
      closed = true
      for (const handle of scheduled.values()) timers.clearTimeout(handle)
      scheduled.clear()
      await Promise.allSettled([...inflight.values()])
    }
  }
}
