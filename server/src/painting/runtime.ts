import { randomUUID } from 'node:crypto'
import { and, count, eq, gte, inArray, isNotNull, lt, or, sql } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { accounts, balanceLog, type PaintingTask, paintingTasks } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { EventBus } from '../events/bus.js'
import type { Logger } from '../logger.js'
import type { Storage } from '../storage/index.js'
import { deleteImage, type StoredImage, storeImage } from './images.js'
import { type PaintingJob, type PaintingProvider, type PaintingUpdate, ProviderError } from './providers/provider.js'
import { FINISHED_RANK, isFinished, STATUS_RANK, type TaskAction, type TaskStatus, toWire } from './wire.js'

export const OUT_OF_MJ_MESSAGE = '绘画次数不足，请充值后再试'

export interface PaintingTuning {
  /** Period of the background sweep (timeouts, polling); 0: none, tests call tick(). */
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
  /** Tasks of in-process painters left unfinished by a previous run end as FAILURE; returns how many. */
  sweep(): Promise<number>
  /** Resolves when no work started here is still going (tests). */
  idle(): Promise<void>
  close(): Promise<void>
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
  const { db, bus, storage, logger, now, tuning } = options
  const jobs = new Map<string, AbortController>()
  const pending = new Set<Promise<unknown>>()
  let closed = false
  let ticking: Promise<void> | undefined

  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise)
    void promise.finally(() => pending.delete(promise)).catch(() => {})
    return promise
  }

  const providerOf = (kind: string) => (kind === 'sd' ? options.sd : options.mj)

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
    watch()

    const controller = new AbortController()
    jobs.set(id, controller)
    let accepted: { upstreamId: string | null; upstream?: Record<string, unknown> }
    try {
      accepted = await track(
        provider.submit({
          taskId: id,
          job: input.job,
          signal: controller.signal,
          report: (update) => track(apply(id, update)).then(() => {}),
          background: (work) => void track(work).catch((error: unknown) => logger.error('painting job failed', { taskId: id, error })),
          readImage: async (key) => (await storage.get(key))?.body ?? null
        })
      )
    } catch (error) {
      jobs.delete(id)
      const message = error instanceof ProviderError ? error.message : '绘画服务异常，请稍后再试'
      if (!(error instanceof ProviderError)) logger.error('painting submit failed', { taskId: id, error })
      await end(id, 'FAILURE', message)
      throw new ApiError(error instanceof ProviderError && error.timeout ? 50400001 : 50200001, `${message}（次数已退回）`)
    }
    // External upstreams keep working across restarts (polling finds them); only in-process jobs are aborted.
    if (provider.fetch) jobs.delete(id)
    const [saved] = await db
      .update(paintingTasks)
      .set({
        upstreamId: accepted.upstreamId,
        upstream: sql`coalesce(${paintingTasks.upstream}, '{}'::jsonb) || ${JSON.stringify(accepted.upstream ?? {})}::jsonb`
      })
      .where(eq(paintingTasks.id, id))
      .returning()
    const moved = await apply(id, { status: 'SUBMITTED', progress: 0 })
    if (moved) return moved
    // The painter's own reports may have got ahead of this one: answer with what is saved now.
    const [latest] = await db.select().from(paintingTasks).where(eq(paintingTasks.id, id))
    return latest ?? saved ?? row
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
    if (isFinished(row.status)) jobs.delete(taskId)
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
    const controller = jobs.get(taskId)
    jobs.delete(taskId)
    controller?.abort()
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

  // The sweep runs only while this node has unfinished tasks to watch: an idle server (or a test
  // app that never paints) keeps no timer.
  let timer: ReturnType<typeof setInterval> | undefined
  function watch() {
    if (timer || closed || tuning.tickMs <= 0) return
    timer = setInterval(() => {
      void track(
        tick().then(async () => {
          const [left] = await db.select({ n: count() }).from(paintingTasks).where(lt(paintingTasks.rank, FINISHED_RANK))
          if ((left?.n ?? 0) === 0 && timer) {
            clearInterval(timer)
            timer = undefined
          }
        })
      ).catch((error: unknown) => logger.error('painting sweep failed', { error }))
    }, tuning.tickMs)
    timer.unref()
  }

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
      const local = [options.mj, options.sd].filter((p) => !p.fetch).map((p) => p.name)
      const rows = await db
        .select({ id: paintingTasks.id })
        .from(paintingTasks)
        .where(and(lt(paintingTasks.rank, FINISHED_RANK), inArray(paintingTasks.provider, local)))
      for (const { id } of rows) await end(id, 'FAILURE', '服务重启，任务已中断，次数已退回')
      // Tasks still at an external upstream are watched again (polling, timeouts).
      const [left] = await db.select({ n: count() }).from(paintingTasks).where(lt(paintingTasks.rank, FINISHED_RANK))
      if ((left?.n ?? 0) > 0) watch()
      return rows.length
    },
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending])
    },
    async close() {
      closed = true
      if (timer) clearInterval(timer)
      const running = [...jobs.keys()]
      await Promise.allSettled(running.map((id) => end(id, 'FAILURE', '服务重启，任务已中断，次数已退回')))
      while (pending.size > 0) await Promise.allSettled([...pending])
    }
  }
}

export type { TaskStatus }
