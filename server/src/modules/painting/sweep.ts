import { and, eq, inArray, isNotNull, lt } from 'drizzle-orm'
import { paintingTasks } from '../../db/schema.js'
import { RESTART_REASON, RUN_ATTEMPTS, RUN_BACKOFF_MS, runJobOf } from './jobs.js'
import { inProcessPainters } from './painters.js'
import type { PaintingUpdate } from './providers/provider.js'
import type { Transitions } from './transitions.js'
import type { PaintingRuntimeOptions } from './types.js'
import { FINISHED_RANK } from './wire.js'

/**
 * The periodic sweep (`painting:sweep`: timeouts, then polling of an external upstream for tasks
 * that went quiet) and the one at start-up (tasks the previous run left to in-process painters).
 */
export function createSweeper(options: PaintingRuntimeOptions, t: Transitions) {
  const { db, logger, now, tuning, jobs } = options
  let ticking: Promise<void> | undefined

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
        for (const { id } of late) await t.end(id, 'TIMEOUT', `绘画超时（${minutes} 分钟内未完成），次数已退回`)

        const external = options.mj.fetch ? options.mj : undefined
        if (!external?.fetch) return
        const stale = await db
          .select({ id: paintingTasks.id, upstreamId: paintingTasks.upstreamId, channelId: paintingTasks.channelId })
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
        // Each task is asked of the channel that took it (null: the env's upstream).
        const byChannel = new Map<number | null, typeof stale>()
        for (const task of stale) byChannel.set(task.channelId, [...(byChannel.get(task.channelId) ?? []), task])
        for (const [channelId, tasks] of byChannel) {
          let updates: Map<string, PaintingUpdate>
          try {
            updates = await external.fetch([...new Set(tasks.map((task) => task.upstreamId!))], channelId)
          } catch (error) {
            logger.warn('polling midjourney-proxy failed', { channel: channelId, error: error instanceof Error ? error.message : String(error) })
            continue
          }
          for (const task of tasks) {
            const update = updates.get(task.upstreamId!)
            if (update) await t.apply(task.id, update)
          }
        }
      } finally {
        ticking = undefined
      }
    })()
    return ticking
  }

  /** See PaintingRuntime.sweep: memory engine, end them (refunded); BullMQ, add their jobs again. */
  async function sweep(): Promise<number> {
    const inProcess = inProcessPainters(options)
    const local = inProcess.map((p) => p.name)
    if (local.length === 0) return 0
    const rows = await db
      .select({ id: paintingTasks.id, provider: paintingTasks.provider })
      .from(paintingTasks)
      .where(and(lt(paintingTasks.rank, FINISHED_RANK), inArray(paintingTasks.provider, local)))
    if (jobs.engine === 'memory') {
      for (const { id } of rows) await t.end(id, 'FAILURE', RESTART_REASON)
      return rows.length
    }
    for (const { id, provider } of rows) {
      const painter = inProcess.find((p) => p.name === provider)!
      await jobs.add(runJobOf(painter), { taskId: id }, { id, attempts: RUN_ATTEMPTS, backoffMs: RUN_BACKOFF_MS })
    }
    return 0
  }

  return { tick, sweep }
}
