import { and, eq, gt } from 'drizzle-orm'
import { defineAllowanceKind } from '../../allowances/kinds.js'
import { refund, spend } from '../../allowances/ledger.js'
import type { Tx } from '../../db/database.js'
import { musicTasks } from '../../db/schema.js'
import type { GenerateInput } from './provider.js'

export const OUT_OF_SUNO_MESSAGE = '音乐额度已用完，请充值后再试'
export const REFUND_REASON = '音乐生成失败，退回额度'

/** Music uses: one per request (two clips), taken up front, given back when every clip fails. */
export const SUNO = defineAllowanceKind({ id: 'suno', field: 'sunoCount', label: '音乐次数', exhausted: OUT_OF_SUNO_MESSAGE })

/** The log's reason for each kind of request. */
export function chargeReason(input: GenerateInput): string {
  if (input.mode === 'describe') return '音乐生成'
  if (input.mode === 'extend') return '音乐续写'
  if (input.purpose === 'relyric') return '音乐改词重新生成'
  if (input.purpose === 'instrumental') return '音乐纯音乐版'
  return '音乐生成（自定义）'
}

/** Takes 1 sunoCount for a request and logs it, in the caller's transaction; 40200001 at zero. */
export async function chargeRequest(tx: Tx, accountId: string, input: GenerateInput, at: Date): Promise<void> {
  await spend(tx, accountId, SUNO, 1, chargeReason(input), at)
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
