import { randomUUID } from 'node:crypto'
import { and, eq, gte, inArray, isNotNull, lt, or, sql } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { accounts, balanceLog, type PaintingTask, paintingTasks } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { EventBus } from '../events/bus.js'
import type { JobContext, JobQueue } from '../jobs/index.js'
import type { Logger } from '../logger.js'
import type { Storage } from '../storage/index.js'
import { deleteImage, type StoredImage, storeImage } from './images.js'
import { type PaintingJob, type PaintingProvider, type PaintingUpdate, ProviderError } from './providers/provider.js'
import { INPUT_KEY, loadJob, toStoredJob } from './stored-job.js'
import { FINISHED_RANK, isFinished, STATUS_RANK, type TaskAction, type TaskStatus, toWire } from './wire.js'

export const OUT_OF_MJ_MESSAGE = '绘画次数不足，请充值后再试'

export interface PaintingTuning {
  /** Period of the `painting:sweep` schedule (timeouts, polling; one node per period); 0: none, tests call tick(). */
  tickMs: number
  /** A task unfinished this long after it was created ends as TIMEOUT. */
  timeoutMs: number
  /** midjourney-proxy tasks with no news for this long are polled (0: every tick). */
  pollStaleMs: number
}

export interface PaintingRuntimeOptions {
  db: Db
  bus: EventBus
  storage: Storage
  logger: Logger
  now: () => number
  /** In-process painters draw in `painting:run` jobs; the sweep runs as `painting:sweep`. */
  jobs: JobQueue
  /** Midjourney-style jobs (demo painter or midjourney-proxy). */
  mj: PaintingProvider
  /** Stable-diffusion jobs (demo painter or AUTOMATIC1111). */
  sd: PaintingProvider
  tuning: PaintingTuning
  /** Downloads finished images from the upstream (tests may inject). */
  fetch?: typeof fetch
}

export interface NewTask {
  accountId: string
  kind: 'mj' | 'sd'
  prompt: string
  parentId?: string | null
  index?: number | null
  params?: Record<string, unknown> | null
  /** Shown on the task from the start (DESCRIBE: the picture being described). */
  imageKey?: string | null
  job: PaintingJob
}

export interface PaintingRuntime {
  mj: PaintingProvider
  sd: PaintingProvider
  storage: Storage
  tuning: PaintingTuning
  /** Charges one mjCount, saves the task, hands it to the provider; refused submits are given back and thrown. */
  create(input: NewTask): Promise<PaintingTask>
  /** Applies an upstream update; ignored (undefined) when it would move the task backwards or it has ended. */
  apply(taskId: string, update: PaintingUpdate): Promise<PaintingTask | undefined>
  /** Ends an unfinished task (FAILURE, TIMEOUT, INTERRPUT) and gives the allowance back. */
  end(taskId: string, status: 'FAILURE' | 'TIMEOUT' | 'INTERRPUT', reason: string): Promise<PaintingTask | undefined>
  /** One sweep: timeouts, then polling of external upstreams. */
  tick(): Promise<void>
  /**
   * At start-up. Memory engine (one process): tasks of in-process painters left unfinished by the
   * previous run were cut off with it and end as FAILURE (refunded); returns how many. BullMQ: their
   * jobs are in Redis and another node may be drawing them right now, so nothing ends; their jobs are
   * added again (a no-op for jobs still queued or running) in case one was lost; returns 0.
   */
  sweep(): Promise<number>
  /** Resolves when no work started here is still going (tests). */
  idle(): Promise<void>
  /**
   * Stops taking jobs. Memory engine: tasks drawn or queued here end as FAILURE (refunded), since
   * nothing else will draw them. BullMQ: drawings here stop and their jobs fail over to the queue,
   * which hands them to another node (or to this one after its restart).
   */
  close(): Promise<void>
}

/** Jobs of in-process painters with no limit across nodes (the demo painter). */
export const RUN_JOB = 'painting:run'
export const SWEEP_JOB = 'painting:sweep'
/** Demo drawings at once in one process (each is a few sharp renders). */
const LOCAL_CONCURRENCY = 4
/**
 * Tries of one drawing. A drawing throws only when this node stops mid-way (the job goes back to
 * the queue for another node) or the database failed; the provider's own errors end the task.
 */
const RUN_ATTEMPTS = 5
const RUN_BACKOFF_MS = 1000
const RESTART_REASON = '服务重启，任务已中断，次数已退回'

/** One job name per cross-node limit: AUTOMATIC1111 (one picture at a time) gets a queue of its own. */
export const runJobOf = (provider: PaintingProvider) => (provider.globalConcurrency ? `${RUN_JOB}:${provider.name}` : RUN_JOB)

/** Thrown by a drawing cut off by close() with BullMQ, so the queue tries the job again elsewhere. */
class HandedOverError extends Error {
  constructor(taskId: string) {
    super(`painting task ${taskId} handed back to the queue: this node is stopping`)
    this.name = 'HandedOverError'
  }
}

const ACTION_NAMES: Record<TaskAction, string> = {
  IMAGINE: '文生图',
  UPSCALE: '放大',
  VARIATION: '变化',
  REROLL: '重新生成',
  PAN: '平移',
  DESCRIBE: '图生文',
  BLEND: '混图',
  TXT2IMG: 'Stable Diffusion 文生图'
}

const END_NAMES = { FAILURE: '失败', TIMEOUT: '超时', INTERRPUT: '已停止' } as const

export function createPaintingRuntime(options: PaintingRuntimeOptions): PaintingRuntime {
  const { db, bus, storage, logger, now, tuning, jobs } = options
  /** Tasks drawn in this process now, to stop their painter (stop, timeout, close). */
  const drawing = new Map<string, AbortController>()
  /** The running `painting:run` handlers of this process, by task id. */
  const running = new Map<string, Promise<void>>()
  /** Memory engine: tasks queued here whose drawing has not started (close ends them). */
  const queued = new Set<string>()
  const pending = new Set<Promise<unknown>>()
  let closed = false
  let ticking: Promise<void> | undefined

  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise)
    void promise.finally(() => pending.delete(promise)).catch(() => {})
    return promise
  }

  const providerOf = (kind: string) => (kind === 'sd' ? options.sd : options.mj)
  const inProcess = [...new Set([options.mj, options.sd])].filter((p) => !p.fetch)

  async function publish(row: PaintingTask) {
    await bus
      .publish(row.accountId, { event: 'painting', data: { ...toWire(row, storage), requestId: row.id } })
      .catch((error: unknown) => logger.warn('painting event not published', { taskId: row.id, error }))
  }

  async function create(input: NewTask): Promise<PaintingTask> {
    if (closed) throw new ApiError(50000000, '服务正在重启，请稍后再试')
    const provider = providerOf(input.kind)
    const id = randomUUID()
    const at = new Date(now())
    const action = input.job.action
    const row = await db.transaction(async (tx) => {
      // The conditional update is the check: two requests racing for the last use cannot both pass.
      const [account] = await tx
        .update(accounts)
        .set({ mjCount: sql`${accounts.mjCount} - 1` })
        .where(and(eq(accounts.id, input.accountId), gte(accounts.mjCount, 1)))
        .returning({ mjCount: accounts.mjCount })
      if (!account) throw new ApiError(40200001, OUT_OF_MJ_MESSAGE)
      await tx.insert(balanceLog).values({
        accountId: input.accountId,
        kind: 'mj',
        amount: -1,
        balance: account.mjCount,
        reason: `绘画：${ACTION_NAMES[action]}${input.index ? ` ${input.index}` : ''}`,
        createdAt: at
      })
      const [task] = await tx
        .insert(paintingTasks)
        .values({
          id,
          accountId: input.accountId,
          kind: input.kind,
          action,
          status: 'NOT_START',
          rank: 0,
          progress: 0,
          prompt: input.prompt,
          parentId: input.parentId ?? null,
          index: input.index ?? null,
          provider: provider.name,
          // In-process painters draw in a queued job that may run on any node: it reads the job from here.
          upstream: provider.fetch ? null : { [INPUT_KEY]: toStoredJob(input.job) },
          imageKey: input.imageKey ?? null,
          thumbKey: input.imageKey ?? null,
          demo: provider.demo,
          params: input.params ?? null,
          charged: 1,
          createdAt: at,
          updatedAt: at
        })
        .returning()
      return task!
    })
    await publish(row)

    if (!provider.fetch) {
      // Queued is accepted: SUBMITTED, like a job waiting in an upstream's queue.
      if (jobs.engine === 'memory') queued.add(id)
      try {
        await jobs.add(runJobOf(provider), { taskId: id }, { id, attempts: RUN_ATTEMPTS, backoffMs: RUN_BACKOFF_MS })
      } catch (error) {
        queued.delete(id)
        logger.error('queueing a painting job failed', { taskId: id, error })
        await end(id, 'FAILURE', '绘画服务异常，请稍后再试')
        throw new ApiError(50200001, '绘画服务异常，请稍后再试（次数已退回）')
      }
      return (await apply(id, { status: 'SUBMITTED', progress: 0 })) ?? (await latest(id, row))
    }

    let accepted: { upstreamId: string | null; upstream?: Record<string, unknown> }
    try {
      accepted = await track(
        provider.submit({
          taskId: id,
          job: input.job,
          signal: new AbortController().signal,
          report: (update) => track(apply(id, update)).then(() => {}),
          background: (work) => void track(work).catch((error: unknown) => logger.error('painting job failed', { taskId: id, error })),
          readImage: async (key) => (await storage.get(key))?.body ?? null
        })
      )
    } catch (error) {
      const message = error instanceof ProviderError ? error.message : '绘画服务异常，请稍后再试'
      if (!(error instanceof ProviderError)) logger.error('painting submit failed', { taskId: id, error })
      // The upstream's own words (error.cause) go to the log, redacted; the user gets our message.
      else logger.warn('the painting upstream refused a request', { taskId: id, error })
      await end(id, 'FAILURE', message)
      throw new ApiError(error instanceof ProviderError && error.timeout ? 50400001 : 50200001, `${message}（次数已退回）`)
    }
    // External upstreams keep working across restarts: callbacks and the sweep's polling find them.
    await saveAccepted(id, accepted)
    // The upstream's callbacks may have got ahead of this one: then answer with what is saved now.
    return (await apply(id, { status: 'SUBMITTED', progress: 0 })) ?? (await latest(id, row))
  }

  async function latest(taskId: string, fallback: PaintingTask): Promise<PaintingTask> {
    const [row] = await db.select().from(paintingTasks).where(eq(paintingTasks.id, taskId))
    return row ?? fallback
  }

  async function saveAccepted(taskId: string, accepted: { upstreamId: string | null; upstream?: Record<string, unknown> }) {
    await db
      .update(paintingTasks)
      .set({
        upstreamId: accepted.upstreamId,
        upstream: sql`coalesce(${paintingTasks.upstream}, '{}'::jsonb) || ${JSON.stringify(accepted.upstream ?? {})}::jsonb`
      })
      .where(eq(paintingTasks.id, taskId))
  }

  /**
   * The `painting:run` job: draws one task with its in-process painter and waits until the drawing
   * is over. Safe to run twice: a finished task is skipped, the painter's reports go through apply()
   * (never backwards), and the first end wins, so a job taken over from a node that died just draws
   * again and the task is charged once (at create).
   */
  async function run(taskId: string, job: JobContext): Promise<void> {
    queued.delete(taskId)
    // The same job handed to this process again (BullMQ thought it stalled): one drawing is enough.
    const already = running.get(taskId)
    if (already) return already
    const work = draw(taskId, job).finally(() => running.delete(taskId))
    running.set(taskId, work)
    return track(work)
  }

  async function draw(taskId: string, job: JobContext): Promise<void> {
    if (closed) {
      if (jobs.engine !== 'memory') throw new HandedOverError(taskId)
      await end(taskId, 'FAILURE', RESTART_REASON)
      return
    }
    const [task] = await db.select().from(paintingTasks).where(eq(paintingTasks.id, taskId))
    if (!task || isFinished(task.status)) return
    const provider = providerOf(task.kind)
    if (provider.fetch || provider.name !== task.provider) {
      // Configured differently since the task was saved: nothing here can draw it.
      logger.warn('painting task of a painter this node does not run', { taskId, provider: task.provider })
      await end(taskId, 'FAILURE', '绘画服务配置已变更，任务已中断，次数已退回')
      return
    }
    if (job.attempt > 1) logger.info('painting task drawn again', { taskId, attempt: job.attempt })

    let paintingJob: PaintingJob
    try {
      paintingJob = await loadJob(db, storage, task)
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error
      await end(taskId, 'FAILURE', error.message)
      return
    }
    const controller = new AbortController()
    drawing.set(taskId, controller)
    const background: Promise<void>[] = []
    try {
      let accepted: { upstreamId: string | null; upstream?: Record<string, unknown> }
      try {
        accepted = await provider.submit({
          taskId,
          job: paintingJob,
          signal: controller.signal,
          report: async (update) => {
            if (controller.signal.aborted) return
            const row = await track(apply(taskId, update))
            // Ended elsewhere (stopped or timed out on another node): stop drawing here too. Not after
            // a last word of its own: AUTOMATIC1111's abort interrupts whatever the UI draws by then.
            const last = update.status === 'SUCCESS' || update.status === 'FAILURE'
            if (!row && !last && !controller.signal.aborted && (await finished(taskId))) controller.abort()
          },
          background: (work) => {
            background.push(track(work.catch((error: unknown) => logger.error('painting job failed', { taskId, error }))))
          },
          readImage: async (key) => (await storage.get(key))?.body ?? null
        })
      } catch (error) {
        const message = error instanceof ProviderError ? error.message : '绘画服务异常，请稍后再试'
        if (!(error instanceof ProviderError)) logger.error('painting submit failed', { taskId, error })
        else logger.warn('the painting upstream refused a request', { taskId, error })
        await end(taskId, 'FAILURE', message)
        return
      }
      if (accepted.upstream && Object.keys(accepted.upstream).length > 0) await saveAccepted(taskId, accepted)
      // The drawing itself: the job lasts as long (so limits across nodes hold, and a dead node's job is taken over).
      while (background.length > 0) await Promise.all(background.splice(0))
    } finally {
      if (drawing.get(taskId) === controller) drawing.delete(taskId)
    }
    if (await finished(taskId)) return
    if (closed && jobs.engine !== 'memory') throw new HandedOverError(taskId)
    // The painter stopped without a last word: nothing will finish this task.
    logger.warn('painting job ended without a result', { taskId })
    await end(taskId, 'FAILURE', '绘画中断，次数已退回')
  }

  async function finished(taskId: string): Promise<boolean> {
    const [row] = await db.select({ status: paintingTasks.status }).from(paintingTasks).where(eq(paintingTasks.id, taskId))
    return !row || isFinished(row.status)
  }

  /**
   * The one way a task changes state. The WHERE clause holds the rule "never backwards": an
   * unfinished task moves only to a higher status rank, or within a rank to higher progress, so
   * late or duplicated callbacks, polls and several API nodes cannot undo each other.
   */
  async function apply(taskId: string, update: PaintingUpdate): Promise<PaintingTask | undefined> {
    if (update.status === 'FAILURE') return end(taskId, 'FAILURE', update.failReason ?? '绘画失败')
    const [current] = await db.select().from(paintingTasks).where(eq(paintingTasks.id, taskId))
    if (!current || isFinished(current.status)) return undefined
    const rank = STATUS_RANK[update.status]
    const progress = Math.max(0, Math.min(100, Math.round(update.progress)))
    if (rank < current.rank || (rank === current.rank && progress <= current.progress && rank !== FINISHED_RANK)) return undefined

    let stored: StoredImage | undefined
    if (update.status === 'SUCCESS' && update.image) {
      try {
        stored = await storeImage(storage, update.image, { ...(options.fetch ? { fetch: options.fetch } : {}), at: new Date(now()) })
      } catch (error) {
        const message = error instanceof ProviderError ? error.message : '保存绘画结果失败'
        if (!(error instanceof ProviderError)) logger.error('storing a painting failed', { taskId, error })
        return end(taskId, 'FAILURE', message)
      }
    }
    const at = new Date(now())
    const set: Partial<typeof paintingTasks.$inferInsert> = { status: update.status, rank, progress, updatedAt: at }
    if (update.promptEn !== undefined) set.promptEn = update.promptEn
    if (update.prompts !== undefined) set.prompts = update.prompts
    if (update.params !== undefined) set.params = update.params
    if (stored) Object.assign(set, stored)
    if (update.status === 'SUCCESS') set.finishedAt = at
    const [row] = await db
      .update(paintingTasks)
      .set({
        ...set,
        ...(update.upstream && Object.keys(update.upstream).length > 0
          ? { upstream: sql`coalesce(${paintingTasks.upstream}, '{}'::jsonb) || ${JSON.stringify(update.upstream)}::jsonb` }
          : {})
      })
      .where(
        and(
          eq(paintingTasks.id, taskId),
          lt(paintingTasks.rank, FINISHED_RANK),
          or(lt(paintingTasks.rank, rank), and(eq(paintingTasks.rank, rank), lt(paintingTasks.progress, progress)))
        )
      )
      .returning()
    if (!row) {
      if (stored) await deleteImage(storage, stored)
      return undefined
    }
    await publish(row)
    return row
  }

  async function end(taskId: string, status: 'FAILURE' | 'TIMEOUT' | 'INTERRPUT', reason: string): Promise<PaintingTask | undefined> {
    const at = new Date(now())
    const row = await db.transaction(async (tx) => {
      const [task] = await tx
        .update(paintingTasks)
        .set({
          status,
          rank: FINISHED_RANK,
          failReason: reason,
          refunded: sql`${paintingTasks.charged} > 0`,
          updatedAt: at,
          finishedAt: at
        })
        .where(and(eq(paintingTasks.id, taskId), lt(paintingTasks.rank, FINISHED_RANK)))
        .returning()
      if (!task) return undefined
      // Only the update that ended the task gets here, so the allowance comes back exactly once.
      if (task.charged > 0) {
        const [account] = await tx
          .update(accounts)
          .set({ mjCount: sql`${accounts.mjCount} + ${task.charged}` })
          .where(eq(accounts.id, task.accountId))
          .returning({ mjCount: accounts.mjCount })
        if (account) {
          await tx.insert(balanceLog).values({
            accountId: task.accountId,
            kind: 'mj',
            amount: task.charged,
            balance: account.mjCount,
            reason: `绘画退回：${ACTION_NAMES[task.action as TaskAction] ?? task.action}${END_NAMES[status]}`,
            createdAt: at
          })
        }
      }
      return task
    })
    if (!row) return undefined
    drawing.get(taskId)?.abort()
    await publish(row)
    return row
  }

  async function tick(): Promise<void> {
    ticking ??= (async () => {
      try {
        const at = now()
        const late = await db
          .select({ id: paintingTasks.id })
          .from(paintingTasks)
          .where(and(lt(paintingTasks.rank, FINISHED_RANK), lt(paintingTasks.createdAt, new Date(at - tuning.timeoutMs))))
          .limit(500)
        const minutes = Math.max(1, Math.round(tuning.timeoutMs / 60_000))
        for (const { id } of late) await end(id, 'TIMEOUT', `绘画超时（${minutes} 分钟内未完成），次数已退回`)

        const external = options.mj.fetch ? options.mj : undefined
        if (!external?.fetch) return
        const stale = await db
          .select({ id: paintingTasks.id, upstreamId: paintingTasks.upstreamId })
          .from(paintingTasks)
          .where(
            and(
              eq(paintingTasks.provider, external.name),
              lt(paintingTasks.rank, FINISHED_RANK),
              isNotNull(paintingTasks.upstreamId),
              lt(paintingTasks.updatedAt, new Date(at - tuning.pollStaleMs + 1))
            )
          )
          .limit(100)
        if (stale.length === 0) return
        let updates: Map<string, PaintingUpdate>
        try {
          updates = await external.fetch([...new Set(stale.map((t) => t.upstreamId!))])
        } catch (error) {
          logger.warn('polling midjourney-proxy failed', { error: error instanceof Error ? error.message : String(error) })
          return
        }
        for (const task of stale) {
          const update = updates.get(task.upstreamId!)
          if (update) await apply(task.id, update)
        }
      } finally {
        ticking = undefined
      }
    })()
    return ticking
  }

  const local = inProcess.map((p) => p.name)

  for (const provider of inProcess) {
    const name = runJobOf(provider)
    // Painters sharing a name (the demo painter for both kinds) share its worker.
    if (inProcess.find((p) => runJobOf(p) === name) !== provider) continue
    const limit = provider.globalConcurrency
    jobs.define<{ taskId: string }>(name, (data, job) => run(data.taskId, job), limit ? { concurrency: limit, globalConcurrency: limit } : { concurrency: LOCAL_CONCURRENCY })
  }
  jobs.define(SWEEP_JOB, async () => {
    if (!closed) await track(tick())
  })
  if (tuning.tickMs > 0) void jobs.every(SWEEP_JOB, tuning.tickMs).catch((error: unknown) => logger.error('scheduling the painting sweep failed', { error }))

  return {
    mj: options.mj,
    sd: options.sd,
    storage,
    tuning,
    create,
    apply: (taskId, update) => track(apply(taskId, update)),
    end: (taskId, status, reason) => track(end(taskId, status, reason)),
    tick: () => track(tick()),
    async sweep() {
      if (local.length === 0) return 0
      const rows = await db
        .select({ id: paintingTasks.id, provider: paintingTasks.provider })
        .from(paintingTasks)
        .where(and(lt(paintingTasks.rank, FINISHED_RANK), inArray(paintingTasks.provider, local)))
      if (jobs.engine === 'memory') {
        for (const { id } of rows) await end(id, 'FAILURE', RESTART_REASON)
        return rows.length
      }
      for (const { id, provider } of rows) {
        const painter = inProcess.find((p) => p.name === provider)!
        await jobs.add(runJobOf(painter), { taskId: id }, { id, attempts: RUN_ATTEMPTS, backoffMs: RUN_BACKOFF_MS })
      }
      return 0
    },
    async idle() {
      for (;;) {
        // BullMQ: every node's painting jobs (tests play several nodes on one Redis).
        await jobs.idle()
        if (pending.size === 0) return
        await Promise.allSettled([...pending])
      }
    },
    async close() {
      closed = true
      if (jobs.engine === 'memory') {
        // One process: nothing else will draw these.
        const cut = [...new Set([...drawing.keys(), ...queued])]
        queued.clear()
        await Promise.allSettled(cut.map((id) => end(id, 'FAILURE', RESTART_REASON)))
      } else {
        // The tasks stay as they are; their jobs fail over to the queue, which gives them to another node.
        for (const controller of drawing.values()) controller.abort()
      }
      while (pending.size > 0) await Promise.allSettled([...pending])
    }
  }
}

export type { TaskStatus }
