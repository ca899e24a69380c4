import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { accounts, balanceLog, type ChatMessage, chatMessages } from '../db/schema.js'
import type { FinalStatus } from './wire.js'

export const OUT_OF_TOKENS_MESSAGE = '对话额度已用完，请充值后再试'

export interface ReplyOutcome {
  replyId: string
  accountId: string
  status: FinalStatus
  content: string
  thinking: string
  errorCode: number | null
  errorMessage: string | null
  promptTokens: number
  completionTokens: number
  contentTokens: number
  /** usage × price, rounded up. */
  cost: number
  /** The balance log's reason, e.g. "对话：灵犀演示模型（离线）". */
  reason: string
  at: Date
}

/**
 * Saves a reply's final state and charges for it in one transaction. Only a reply still
 * `streaming` is finished, so a reply is charged once whatever races it (stop, shutdown, sweep).
 * The charge is at most the balance: an account never goes below zero, and the log says when
 * less than the cost was taken. Returns undefined when the reply had already been finished.
 */
export async function finishReply(db: Db, o: ReplyOutcome): Promise<ChatMessage | undefined> {
  return db.transaction(async (tx) => {
    let charged = 0
    let balance = 0
    if (o.cost > 0) {
      // The row lock serialises concurrent charges of one account.
      const [account] = await tx.select({ tokens: accounts.tokens }).from(accounts).where(eq(accounts.id, o.accountId)).for('update')
      charged = Math.max(0, Math.min(account?.tokens ?? 0, o.cost))
      balance = (account?.tokens ?? 0) - charged
    }
    const [row] = await tx
      .update(chatMessages)
      .set({
        status: o.status,
        content: o.content,
        thinking: o.thinking === '' ? null : o.thinking,
        errorCode: o.errorCode,
        errorMessage: o.errorMessage,
        contentTokens: o.contentTokens,
        promptTokens: o.promptTokens,
        completionTokens: o.completionTokens,
        cost: o.cost,
        charged,
        updatedAt: o.at
      })
      .where(and(eq(chatMessages.id, o.replyId), eq(chatMessages.status, 'streaming')))
      .returning()
    if (!row) return undefined
    if (charged > 0) {
      await tx
        .update(accounts)
        .set({ tokens: sql`${accounts.tokens} - ${charged}` })
        .where(eq(accounts.id, o.accountId))
      await tx.insert(balanceLog).values({
        accountId: o.accountId,
        kind: 'tokens',
        amount: -charged,
        balance,
        reason: charged < o.cost ? `${o.reason}（余额不足，应扣 ${o.cost}）` : o.reason,
        createdAt: o.at
      })
    }
    return row
  })
}

/** Total cost of a reply's usage at the model's price, in whole tokens of allowance. */
export function costOf(usage: { promptTokens: number; completionTokens: number }, price: { input: number; output: number }): number {
  // The epsilon keeps float noise (0.1 × 30 = 3.0000000000000004) from adding a token.
  return Math.max(0, Math.ceil(usage.promptTokens * price.input + usage.completionTokens * price.output - 1e-9))
}
