import { randomUUID } from 'node:crypto'
import { eq, isNull } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import { type MusicSong, musicSongs, musicTasks } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import type { EventBus } from '../../events/bus.js'
import { type JobContext, type JobQueue, JobQueueClosedError } from '../../jobs/index.js'
import type { Kv } from '../../kv/kv.js'
import type { Logger } from '../../logger.js'
import type { Storage } from '../../storage/storage.js'
import { chargeRequest, refundRequest } from './charges.js'
import { musicChoice } from './choice.js'
import { createPoller, httpOnly } from './poll.js'
import { type Clip, type GenerateInput, type MusicProvider, MusicProviderError } from './provider.js'
import { toSong } from './to-wire.js'
import type { Song } from './wire.js'

export interface MusicRuntimeOptions {
  db: Db
  storage: Storage
  bus: EventBus
  /** suno-api (behind its channels), or the demo composer. */
  provider: MusicProvider
  /**
   * The demo composer: takes new requests while `provider` has no channel enabled (`available`), and
   * goes on with the requests it took (choice.ts).
   */
  demo?: MusicProvider
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
  /** The provider new requests go to now (choice.ts). */
  current(): Promise<MusicProvider>
  /** The provider that made a song (demo or not); undefined when this server runs none such. */
  madeBy(demo: boolean): MusicProvider | undefined
  song(row: MusicSong): Song
  /**
   * Charges 1 sunoCount (40200001 at zero), submits, saves the clips and starts polling them. `via`:
   * the provider to ask (continuing a song: the one that made it); default the current one.
   */
  submit(accountId: string, input: GenerateInput, via?: MusicProvider): Promise<{ taskId: string; songs: Song[] }>
  /** Defines the `music:poll` handler on the queue (the module's jobs()). */
  defineJobs(queue: JobQueue): void
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

/** The Chinese refusal a provider failure becomes. */
export function providerFailure(error: unknown): ApiError {
  if (error instanceof MusicProviderError) return new ApiError(error.kind === 'timeout' ? 50400001 : 50200001, error.message)
  return new ApiError(50200001, '音乐服务出错，请稍后再试')
}

export function createMusicRuntime(options: MusicRuntimeOptions): MusicRuntime {
  const { db, storage, bus, now, logger, jobs, kv, pollMs, jobTimeoutMs } = options
  const choice = musicChoice(options.provider, options.demo)
  /** Polls running in this process, by request: a second one joins the first. */
  const inflight = new Map<string, Promise<boolean>>()
  let closed = false

  const song = (row: MusicSong) => toSong(row, storage)

  function publish(row: MusicSong) {
    bus
      .publish(row.accountId, { event: 'music', data: { ...song(row), requestId: row.taskId } })
      .catch((error: unknown) => logger.error('publishing music progress failed', { error, songId: row.id }))
  }
  const { pollOnce } = createPoller({ db, storage, providerOf: choice.named, now, logger, jobTimeoutMs, publish })

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
    const [task] = await db
      .select({ createdAt: musicTasks.createdAt, finishedAt: musicTasks.finishedAt })
      .from(musicTasks)
      .where(eq(musicTasks.id, data.taskId))
    if (!task || task.finishedAt) return
    const more = closed ? true : await poll(data.taskId)
    if (more) await scheduleNext(data.taskId, task.createdAt, roundOf(job.id))
  }

  return {
    current: choice.current,
    madeBy: choice.madeBy,
    song,
    defineJobs(queue) {
      queue.define<PollJob>(POLL_JOB, runRound, { concurrency: 8 })
    },

    async submit(accountId, input, via) {
      const provider = via ?? (await choice.current())
      const taskId = randomUUID()
      const at = new Date(now())
      await db.transaction(async (tx) => {
        await chargeRequest(tx, accountId, input, at)
        await tx.insert(musicTasks).values({ id: taskId, accountId, provider: provider.kind, mode: input.mode, charged: 1, createdAt: at })
      })
      let clips: Clip[]
      let channelId: number | null = null
      try {
        const taken = provider.submit ? await provider.submit(input) : { clips: await provider.generate(input), channelId: null }
        clips = taken.clips.slice(0, 4)
        channelId = taken.channelId
        if (clips.length === 0) throw new MusicProviderError('upstream', '音乐服务没有返回任何歌曲')
      } catch (error) {
        if (!(error instanceof MusicProviderError)) logger.error('music submit failed', { taskId, error })
        // The upstream's own words (error.cause) go to the log, redacted; the user gets our message.
        else logger.warn('the music upstream refused a request', { taskId, error })
        const ended = new Date(now())
        await db.transaction(async (tx) => {
          await tx.update(musicTasks).set({ finishedAt: ended }).where(eq(musicTasks.id, taskId))
          await refundRequest(tx, taskId, ended)
        })
        throw providerFailure(error)
      }
      // Its polls go to the channel that took it.
      if (channelId !== null) await db.update(musicTasks).set({ channelId }).where(eq(musicTasks.id, taskId))
      const created = new Date(now())
      const rows = await db
        .insert(musicSongs)
        .values(
          clips.map((clip) => ({
            id: randomUUID(),
            accountId,
            taskId,
            clipId: clip.id,
            title: clip.title || (input.mode === 'describe' ? '' : input.title),
            tags: clip.tags || (input.mode === 'describe' ? '' : input.tags),
            lyric: clip.lyric || (input.mode === 'extend' || (input.mode === 'custom' && !input.instrumental) ? input.lyric : ''),
            prompt: clip.prompt || (input.mode === 'describe' ? input.prompt : input.lyric),
            instrumental: input.mode !== 'extend' && input.instrumental,
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
