import { randomUUID } from 'node:crypto'
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm'
import type { Db, Tx } from '../db/database.js'
import { accounts, balanceLog, type MusicSong, musicSongs, musicTasks } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { EventBus } from '../events/bus.js'
import { type JobContext, type JobQueue, JobQueueClosedError } from '../jobs/index.js'
import type { Kv } from '../kv/kv.js'
import type { Logger } from '../logger.js'
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
  /** Runs the polls (`music:poll`): in this process, or BullMQ shared by every node. */
  jobs: JobQueue
  /** Holds the lease that keeps two nodes from polling one request at once. */
  kv: Kv
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
  /** Polls a request once now (its schedule stays as it is); joins a poll of it already running. */
  poll(taskId: string): Promise<void>
  /**
   * Schedules the next poll of every unfinished request (called at start); returns how many. Picks up
   * what the last run left with the memory engine, and requests whose jobs were lost with BullMQ; a
   * request whose poll is already scheduled keeps it (same job id), see nextRound.
   */
  resume(): Promise<number>
  /** Resolves once no job of the queue is waiting, delayed or running and no poll runs (tests, memory engine). */
  idle(): Promise<void>
  /** Stops polling in this process; polls that come due meanwhile are handed on, not dropped. */
  close(): Promise<void>
}

export const POLL_JOB = 'music:poll'
export type PollJob = { taskId: string }

/**
 * How long a poll may hold its request's lease. It covers one poll's upstream calls (30 s per call,
 * a download per clip); a node that dies holding it delays that request's polls by at most this.
 */
export const POLL_LEASE_MS = 5 * 60_000

/** The job id of a request's poll in one round: `${taskId}:${round}`. */
export const pollJobId = (taskId: string, round: number) => `${taskId}:${round}`

/** The round in a poll's job id; -1 when it has none. */
function roundOf(jobId: string): number {
  const round = Number(jobId.slice(jobId.lastIndexOf(':') + 1))
  return Number.isSafeInteger(round) && round >= 0 ? round : -1
}

/**
 * The round to poll next, and when. Round r of a request is due pollMs × (r + 1) after it was
 * created, so whoever schedules a request's next poll — the poll before it, resume() on any node —
 * picks the same round at the same moment, and the queue keeps one job per id: a second schedule
 * is a no-op, or (when it raced a poll running late) a second chain that meets the first one at the
 * next round and merges. The delay never exceeds pollMs (a clock that stands still in tests).
 */
export function nextRound(createdAt: number, previous: number, at: number, pollMs: number): { round: number; delayMs: number } {
  const round = Math.max(previous + 1, Math.floor((at - createdAt) / pollMs))
  const delayMs = Math.min(pollMs, Math.max(0, createdAt + (round + 1) * pollMs - at))
  return { round, delayMs }
}

const TERMINAL = new Set(['complete', 'error'])
const httpOnly = (url: string | null) => (url && /^https?:\/\//i.test(url) ? url : null)

/** The Chinese refusal a provider failure becomes. */
export function providerFailure(error: unknown): ApiError {
  if (error instanceof MusicProviderError) return new ApiError(error.kind === 'timeout' ? 50400001 : 50200001, error.message)
  return new ApiError(50200001, '音乐服务出错，请稍后再试')
}

export function createMusicRuntime(options: MusicRuntimeOptions): MusicRuntime {
  const { db, storage, bus, provider, now, logger, jobs, kv, pollMs, jobTimeoutMs } = options
  /** Polls running in this process, by request: a second one joins the first. */
  const inflight = new Map<string, Promise<boolean>>()
  let closed = false

  const song = (row: MusicSong) => toSong(row, storage)

  function publish(row: MusicSong) {
    bus
      .publish(row.accountId, { event: 'music', data: { ...song(row), requestId: row.taskId } })
      .catch((error: unknown) => logger.error('publishing music progress failed', { error, songId: row.id }))
  }

  /** Gives the request's sunoCount back, once, logged with the balance, in the caller's transaction. */
  async function refund(tx: Tx, taskId: string, at: Date): Promise<boolean> {
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
  }

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
      if (rows.length > 0 && rows.every((r) => r.status === 'error')) await refund(tx, taskId, at)
    })
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

  /**
   * One poll, unless one of this request is running: in this process (joined) or on another node
   * (its lease is held; then nothing is asked and the caller keeps the schedule). True when the
   * request needs another poll.
   */
  function poll(taskId: string): Promise<boolean> {
    const running = inflight.get(taskId)
    if (running) return running
    const lease = `music:poll:${taskId}`
    const job = (async () => {
      if (!(await kv.setIfAbsent(lease, POLL_LEASE_MS))) return true
      try {
        return await pollOnce(taskId)
      } finally {
        await kv.del(lease).catch((error: unknown) => logger.warn('releasing a music poll lease failed', { taskId, error }))
      }
    })()
      .catch((error: unknown) => {
        logger.error('music poll failed', { taskId, error })
        return true
      })
      .finally(() => inflight.delete(taskId))
    inflight.set(taskId, job)
    return job
  }

  /** Adds the request's next poll (see nextRound); false when the queue is closed (the next start resumes it). */
  async function scheduleNext(taskId: string, createdAt: Date, previous: number): Promise<boolean> {
    const { round, delayMs } = nextRound(createdAt.getTime(), previous, now(), pollMs)
    try {
      // Tried again (the whole round, idempotent) when the database or Redis fails it for a moment.
      await jobs.add<PollJob>(POLL_JOB, { taskId }, { id: pollJobId(taskId, round), delayMs, attempts: 3, backoffMs: pollMs })
      return true
    } catch (error) {
      if (error instanceof JobQueueClosedError) return false
      throw error
    }
  }

  /**
   * One round of a request: polls it (idempotent against the database: a finished request is left
   * alone) and adds the next round while it is unfinished. A failed read or add throws, so the round
   * is tried again (attempts) and the request is not dropped. After close() the round is handed on
   * unpolled: a poll that came due on a stopping node runs on another one (BullMQ) or at the next
   * start (memory).
   */
  async function runRound(data: PollJob, job: JobContext) {
    const [task] = await db.select({ createdAt: musicTasks.createdAt, finishedAt: musicTasks.finishedAt }).from(musicTasks).where(eq(musicTasks.id, data.taskId))
    if (!task || task.finishedAt) return
    const more = closed ? true : await poll(data.taskId)
    if (more) await scheduleNext(data.taskId, task.createdAt, roundOf(job.id))
  }

  jobs.define<PollJob>(POLL_JOB, runRound, { concurrency: 8 })

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
        // The upstream's own words (error.cause) go to the log, redacted; the user gets our message.
        else logger.warn('the music upstream refused a request', { taskId, error })
        const ended = new Date(now())
        await db.transaction(async (tx) => {
          await tx.update(musicTasks).set({ finishedAt: ended }).where(eq(musicTasks.id, taskId))
          await refund(tx, taskId, ended)
        })
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
      // Round 0, pollMs from now. Not added (the queue is down): the next start's resume() polls it.
      await scheduleNext(taskId, at, -1).catch((error: unknown) => logger.error('scheduling a music poll failed', { taskId, error }))
      return { taskId, songs: rows.map(song) }
    },

    async poll(taskId) {
      await poll(taskId)
    },

    async resume() {
      const open = await db.select({ id: musicTasks.id, createdAt: musicTasks.createdAt }).from(musicTasks).where(isNull(musicTasks.finishedAt))
      let scheduled = 0
      for (const task of open) if (await scheduleNext(task.id, task.createdAt, -1)) scheduled++
      return scheduled
    },

    async idle() {
      await jobs.idle()
      await Promise.allSettled([...inflight.values()])
    },

    async close() {
      closed = true
      await Promise.allSettled([...inflight.values()])
    }
  }
}
