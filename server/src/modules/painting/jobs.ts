import { eq } from 'drizzle-orm'
import { paintingTasks } from '../../db/schema.js'
import type { JobContext, JobQueue } from '../../jobs/queue.js'
import { type PaintingJob, type PaintingProvider, ProviderError } from './providers/provider.js'
import { inProcessPainters, painterNamed } from './painters.js'
import { loadJob } from './stored-job.js'
import type { Accepted, Transitions } from './transitions.js'
import type { PaintingRuntimeOptions, PaintingState } from './types.js'
import { isFinished } from './wire.js'

/** Jobs of in-process painters with no limit across nodes (the demo painter). */
export const RUN_JOB = 'painting:run'
export const SWEEP_JOB = 'painting:sweep'
/** Demo drawings at once in one process (each is a few sharp renders). */
const LOCAL_CONCURRENCY = 4
/**
 * Tries of one drawing. A drawing throws only when this node stops mid-way (the job goes back to
 * the queue for another node) or the database failed; the provider's own errors end the task.
 */
export const RUN_ATTEMPTS = 5
export const RUN_BACKOFF_MS = 1000
export const RESTART_REASON = '服务重启，任务已中断，次数已退回'

/** One job name per cross-node limit: AUTOMATIC1111 (one picture at a time) gets a queue of its own. */
export const runJobOf = (provider: PaintingProvider) => (provider.globalConcurrency ? `${RUN_JOB}:${provider.name}` : RUN_JOB)

/** Thrown by a drawing cut off by close() with BullMQ, so the queue tries the job again elsewhere. */
class HandedOverError extends Error {
  constructor(taskId: string) {
    super(`painting task ${taskId} handed back to the queue: this node is stopping`)
    this.name = 'HandedOverError'
  }
}

/**
 * The `painting:run` job: draws one task with its in-process painter and waits until the drawing
 * is over. Safe to run twice: a finished task is skipped, the painter's reports go through apply()
 * (never backwards), and the first end wins, so a job taken over from a node that died just draws
 * again and the task is charged once (at create).
 */
export function createDrawing(options: PaintingRuntimeOptions, state: PaintingState, t: Transitions) {
  const { db, storage, logger, jobs } = options

  async function run(taskId: string, job: JobContext): Promise<void> {
    state.queued.delete(taskId)
    // The same job handed to this process again (BullMQ thought it stalled): one drawing is enough.
    const already = state.running.get(taskId)
    if (already) return already
    const work = draw(taskId, job).finally(() => state.running.delete(taskId))
    state.running.set(taskId, work)
    return state.track(work)
  }

  async function draw(taskId: string, job: JobContext): Promise<void> {
    if (state.closed) {
      if (jobs.engine !== 'memory') throw new HandedOverError(taskId)
      await t.end(taskId, 'FAILURE', RESTART_REASON)
      return
    }
    const [task] = await db.select().from(paintingTasks).where(eq(paintingTasks.id, taskId))
    if (!task || isFinished(task.status)) return
    // The painter that took it, even when new tasks go elsewhere now (a channel added or disabled since).
    const provider = painterNamed(options, task.kind, task.provider)
    if (!provider || provider.fetch) {
      // Configured differently since the task was saved: nothing here can draw it.
      logger.warn('painting task of a painter this node does not run', { taskId, provider: task.provider })
      await t.end(taskId, 'FAILURE', '绘画服务配置已变更，任务已中断，次数已退回')
      return
    }
    if (job.attempt > 1) logger.info('painting task drawn again', { taskId, attempt: job.attempt })

    let paintingJob: PaintingJob
    try {
      paintingJob = await loadJob(db, storage, task)
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error
      await t.end(taskId, 'FAILURE', error.message)
      return
    }
    const controller = new AbortController()
    state.drawing.set(taskId, controller)
    const background: Promise<void>[] = []
    try {
      let accepted: Accepted
      try {
        accepted = await provider.submit({
          taskId,
          job: paintingJob,
          signal: controller.signal,
          report: async (update) => {
            if (controller.signal.aborted) return
            const row = await state.track(t.apply(taskId, update))
            // Ended elsewhere (stopped or timed out on another node): stop drawing here too. Not after
            // a last word of its own: AUTOMATIC1111's abort interrupts whatever the UI draws by then.
            const last = update.status === 'SUCCESS' || update.status === 'FAILURE'
            if (!row && !last && !controller.signal.aborted && (await t.finished(taskId))) controller.abort()
          },
          background: (work) => {
            background.push(state.track(work.catch((error: unknown) => logger.error('painting job failed', { taskId, error }))))
          },
          readImage: async (key) => (await storage.get(key))?.body ?? null
        })
      } catch (error) {
        const message = error instanceof ProviderError ? error.message : '绘画服务异常，请稍后再试'
        if (!(error instanceof ProviderError)) logger.error('painting submit failed', { taskId, error })
        else logger.warn('the painting upstream refused a request', { taskId, error })
        await t.end(taskId, 'FAILURE', message)
        return
      }
      if ((accepted.upstream && Object.keys(accepted.upstream).length > 0) || accepted.channelId !== undefined) await t.saveAccepted(taskId, accepted)
      // The drawing itself: the job lasts as long (so limits across nodes hold, and a dead node's job is taken over).
      while (background.length > 0) await Promise.all(background.splice(0))
    } finally {
      if (state.drawing.get(taskId) === controller) state.drawing.delete(taskId)
    }
    if (await t.finished(taskId)) return
    if (state.closed && jobs.engine !== 'memory') throw new HandedOverError(taskId)
    // The painter stopped without a last word: nothing will finish this task.
    logger.warn('painting job ended without a result', { taskId })
    await t.end(taskId, 'FAILURE', '绘画中断，次数已退回')
  }

  return { run }
}

/** Defines `painting:run` (one per cross-node limit) and `painting:sweep`, and schedules the sweep. */
export function definePaintingJobs(
  queue: JobQueue,
  options: PaintingRuntimeOptions,
  state: PaintingState,
  handlers: { run(taskId: string, job: JobContext): Promise<void>; tick(): Promise<void> }
): void {
  const inProcess = inProcessPainters(options)
  for (const provider of inProcess) {
    const name = runJobOf(provider)
    // Painters sharing a name (the demo painter for both kinds) share its worker.
    if (inProcess.find((p) => runJobOf(p) === name) !== provider) continue
    const limit = provider.globalConcurrency
    queue.define<{ taskId: string }>(
      name,
      (data, job) => handlers.run(data.taskId, job),
      limit ? { concurrency: limit, globalConcurrency: limit } : { concurrency: LOCAL_CONCURRENCY }
    )
  }
  queue.define(SWEEP_JOB, async () => {
    if (!state.closed) await state.track(handlers.tick())
  })
  const { tickMs } = options.tuning
  if (tickMs > 0) void queue.every(SWEEP_JOB, tickMs).catch((error: unknown) => options.logger.error('scheduling the painting sweep failed', { error }))
}
