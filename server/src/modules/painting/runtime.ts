import { randomUUID } from 'node:crypto'
import { type PaintingTask, paintingTasks } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { chargeTask } from './charges.js'
import { createDrawing, definePaintingJobs, RESTART_REASON, RUN_ATTEMPTS, RUN_BACKOFF_MS, runJobOf } from './jobs.js'
import { currentPainter, painterNamed } from './painters.js'
import { ProviderError } from './providers/provider.js'
import { INPUT_KEY, toStoredJob } from './stored-job.js'
import { createSweeper } from './sweep.js'
import { type Accepted, createTransitions } from './transitions.js'
import type { NewTask, PaintingRuntime, PaintingRuntimeOptions, PaintingState } from './types.js'

export { RUN_JOB } from './jobs.js'
export type { PaintingRuntime, PaintingRuntimeOptions } from './types.js'

/**
 * Painting tasks from submit to their end, made of parts that each do one thing: charges.ts (the
 * mjCount taken and given back), transitions.ts (the state machine), jobs.ts (drawing in
 * `painting:run` jobs), sweep.ts (timeouts, polling, start-up). This file submits and stops.
 */
export function createPaintingRuntime(options: PaintingRuntimeOptions): PaintingRuntime {
  const { db, storage, logger, now, tuning, jobs } = options
  const state: PaintingState = {
    drawing: new Map(),
    running: new Map(),
    queued: new Set(),
    pending: new Set(),
    closed: false,
    track(promise) {
      state.pending.add(promise)
      void promise.finally(() => state.pending.delete(promise)).catch(() => {})
      return promise
    }
  }
  const t = createTransitions(options, state)
  const drawing = createDrawing(options, state, t)
  const sweeper = createSweeper(options, t)
  /** An action on a task goes to the painter that drew it; anything else to the one new tasks go to now. */
  async function painterFor(input: NewTask) {
    const parent = 'parent' in input.job ? input.job.parent : undefined
    if (!parent) return currentPainter(options, input.kind)
    const painter = painterNamed(options, parent.kind, parent.provider)
    if (!painter) throw new ApiError(40000001, '原任务所用的绘画服务已停用，无法继续操作')
    return painter
  }

  async function create(input: NewTask): Promise<PaintingTask> {
    if (state.closed) throw new ApiError(50000000, '服务正在重启，请稍后再试')
    const provider = await painterFor(input)
    const id = randomUUID()
    const at = new Date(now())
    const row = await db.transaction(async (tx) => {
      await chargeTask(tx, input.accountId, { action: input.job.action, index: input.index }, at)
      const [task] = await tx
        .insert(paintingTasks)
        .values({
          id,
          accountId: input.accountId,
          kind: input.kind,
          action: input.job.action,
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
    await t.publish(row)

    if (!provider.fetch) {
      // Queued is accepted: SUBMITTED, like a job waiting in an upstream's queue.
      if (jobs.engine === 'memory') state.queued.add(id)
      try {
        await jobs.add(runJobOf(provider), { taskId: id }, { id, attempts: RUN_ATTEMPTS, backoffMs: RUN_BACKOFF_MS })
      } catch (error) {
        state.queued.delete(id)
        logger.error('queueing a painting job failed', { taskId: id, error })
        await t.end(id, 'FAILURE', '绘画服务异常，请稍后再试')
        throw new ApiError(50200001, '绘画服务异常，请稍后再试（次数已退回）')
      }
      return (await t.apply(id, { status: 'SUBMITTED', progress: 0 })) ?? (await t.latest(id, row))
    }

    let accepted: Accepted
    try {
      accepted = await state.track(
        provider.submit({
          taskId: id,
          job: input.job,
          signal: new AbortController().signal,
          report: (update) => state.track(t.apply(id, update)).then(() => {}),
          background: (work) => void state.track(work).catch((error: unknown) => logger.error('painting job failed', { taskId: id, error })),
          readImage: async (key) => (await storage.get(key))?.body ?? null
        })
      )
    } catch (error) {
      const message = error instanceof ProviderError ? error.message : '绘画服务异常，请稍后再试'
      if (!(error instanceof ProviderError)) logger.error('painting submit failed', { taskId: id, error })
      // The upstream's own words (error.cause) go to the log, redacted; the user gets our message.
      else logger.warn('the painting upstream refused a request', { taskId: id, error })
      await t.end(id, 'FAILURE', message)
      throw new ApiError(error instanceof ProviderError && error.timeout ? 50400001 : 50200001, `${message}（次数已退回）`)
    }
    // External upstreams keep working across restarts: callbacks and the sweep's polling find them.
    await t.saveAccepted(id, accepted)
    // The upstream's callbacks may have got ahead of this one: then answer with what is saved now.
    return (await t.apply(id, { status: 'SUBMITTED', progress: 0 })) ?? (await t.latest(id, row))
  }

  return {
    mj: options.mj,
    sd: options.sd,
    current: (kind) => currentPainter(options, kind),
    storage,
    tuning,
    create,
    apply: (taskId, update) => state.track(t.apply(taskId, update)),
    end: (taskId, status, reason) => state.track(t.end(taskId, status, reason)),
    tick: () => state.track(sweeper.tick()),
    sweep: sweeper.sweep,
    defineJobs: (queue) => definePaintingJobs(queue, options, state, { run: drawing.run, tick: sweeper.tick }),
    async idle() {
      for (;;) {
        // BullMQ: every node's painting jobs (tests play several nodes on one Redis).
        await jobs.idle()
        if (state.pending.size === 0) return
        await Promise.allSettled([...state.pending])
      }
    },
    async close() {
      state.closed = true
      if (jobs.engine === 'memory') {
        // One process: nothing else will draw these.
        const cut = [...new Set([...state.drawing.keys(), ...state.queued])]
        state.queued.clear()
        await Promise.allSettled(cut.map((id) => t.end(id, 'FAILURE', RESTART_REASON)))
      } else {
        // The tasks stay as they are; their jobs fail over to the queue, which gives them to another node.
        for (const controller of state.drawing.values()) controller.abort()
      }
      while (state.pending.size > 0) await Promise.allSettled([...state.pending])
    }
  }
}
