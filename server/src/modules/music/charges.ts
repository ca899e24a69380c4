import { and, eq, gt } from 'drizzle-orm'
import { defineAllowanceKind } from '../../allowances/kinds.js'
import { refund, spend } from '../../allowances/ledger.js'
import type { Tx } from '../../db/database.js'
import { musicTasks } from '../../db/schema.js'

export const OUT_OF_SUNO_MESSAGE = '音乐额度已用完，请充值后再试'
export const REFUND_REASON = '音乐生成失败，退回额度'

/** Music uses: one per request (two clips), taken up front, given back when every clip fails. */
export const SUNO = defineAllowanceKind({ id: 'suno', field: 'sunoCount', label: '音乐次数', exhausted: OUT_OF_SUNO_MESSAGE })

/** Takes 1 sunoCount for a request and logs it, in the caller's transaction; 40200001 at zero. */
export async function chargeRequest(tx: Tx, accountId: string, mode: 'describe' | 'custom', at: Date): Promise<void> {
  await spend(tx, accountId, SUNO, 1, mode === 'describe' ? '音乐生成' : '音乐生成（自定义）', at)
}

/** Gives the request's sunoCount back, once, logged with the balance, in the caller's transaction. */
export async function refundRequest(tx: Tx, taskId: string, at: Date): Promise<boolean> {
  const [task] = await tx
    .update(musicTasks)
    .set({ refunded: 1 })
    .where(and(eq(musicTasks.id, taskId), eq(musicTasks.refunded, 0), gt(musicTasks.charged, 0)))
    .returning()
  if (!task) return false
  await refund(tx, task.accountId, SUNO, task.charged, REFUND_REASON, at)
  return true
}
