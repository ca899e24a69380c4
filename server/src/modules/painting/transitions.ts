import { and, eq, lt, or, sql } from 'drizzle-orm'
import { type PaintingTask, paintingTasks } from '../../db/schema.js'
import { refundTask } from './charges.js'
import { deleteImage, type StoredImage, storeImage } from './images.js'
import { type PaintingUpdate, ProviderError } from './providers/provider.js'
import type { EndStatus, PaintingRuntimeOptions, PaintingState } from './types.js'
import { toWire } from './to-wire.js'
import { FINISHED_RANK, isFinished, STATUS_RANK } from './wire.js'

/** A finished picture that moderation refused: the task fails, the allowance comes back. */
export const IMAGE_BLOCKED = '生成的图片未通过内容审核，未予保存，额度已退还'

/** What an upstream answered when it accepted a task: its id there, and what it needs later. */
export interface Accepted {
  upstreamId: string | null
  upstream?: Record<string, unknown>
  channelId?: number | null
}

export type Transitions = ReturnType<typeof createTransitions>

/**
 * The task state machine: every change of a task's status goes through `apply` (forward only) or
 * `end` (the first end wins, and gives the allowance back), and each change is published on the
 * account channel as a `painting` event.
 */
export function createTransitions(options: PaintingRuntimeOptions, state: Pick<PaintingState, 'drawing'>) {
  const { db, bus, storage, logger, now } = options

  async function publish(row: PaintingTask) {
    await bus
      .publish(row.accountId, { event: 'painting', data: { ...toWire(row, storage), requestId: row.id } })
      .catch((error: unknown) => logger.warn('painting event not published', { taskId: row.id, error }))
  }

  /** A finished picture must pass moderation before it is stored (and so before it can reach the gallery). */
  async function checkImage(task: PaintingTask, bytes: Uint8Array, mime: string) {
    const result = await options.moderator?.checkImage({ bytes, mime, source: `painting.${task.kind}`, accountId: task.accountId })
    if (result?.verdict === 'block') throw new ProviderError(IMAGE_BLOCKED)
  }

  async function latest(taskId: string, fallback: PaintingTask): Promise<PaintingTask> {
    const [row] = await db.select().from(paintingTasks).where(eq(paintingTasks.id, taskId))
    return row ?? fallback
  }

  async function finished(taskId: string): Promise<boolean> {
    const [row] = await db.select({ status: paintingTasks.status }).from(paintingTasks).where(eq(paintingTasks.id, taskId))
    return !row || isFinished(row.status)
  }

  async function saveAccepted(taskId: string, accepted: Accepted) {
    await db
      .update(paintingTasks)
      .set({
        upstreamId: accepted.upstreamId,
        ...(accepted.channelId !== undefined ? { channelId: accepted.channelId } : {}),
        upstream: sql`coalesce(${paintingTasks.upstream}, '{}'::jsonb) || ${JSON.stringify(accepted.upstream ?? {})}::jsonb`
      })
      .where(eq(paintingTasks.id, taskId))
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
        stored = await storeImage(storage, update.image, {
          ...(options.fetch ? { fetch: options.fetch } : {}),
          at: new Date(now()),
          check: (bytes, mime) => checkImage(current, bytes, mime)
        })
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
    if (update.channelId !== undefined) set.channelId = update.channelId
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

  /** Ends an unfinished task and gives its allowance back; undefined when it had already ended. */
  async function end(taskId: string, status: EndStatus, reason: string): Promise<PaintingTask | undefined> {
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
      await refundTask(tx, task, status, at)
      return task
    })
    if (!row) return undefined
    state.drawing.get(taskId)?.abort()
    await publish(row)
    return row
  }

  return { publish, latest, finished, saveAccepted, apply, end }
}
