import { and, eq, inArray, type SQL } from 'drizzle-orm'
import { defineAllowanceKind } from '../allowances/kinds.js'
import { balanceOf, hold, lock, release, settle } from '../allowances/ledger.js'
import type { Db, Tx } from '../db/database.js'
import { type ChatMessage, chatMessages } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { answerReserve } from './context.js'
import type { ModelEntry } from './models.js'
import type { FinalStatus } from './wire.js'

export const OUT_OF_TOKENS_MESSAGE = '对话额度已用完，请充值后再试'

/**
 * Chat tokens: what every chat reply costs, whichever tool started it (chat, hot news' 解读, order
 * drafts). Declared by the chat module; held and settled here.
 */
export const TOKENS = defineAllowanceKind({ id: 'tokens', field: 'tokens', label: '对话额度', exhausted: OUT_OF_TOKENS_MESSAGE })

/**
 * A reply is never cut shorter than this by a small balance: below it, the send is refused
 * instead of producing a stub of an answer.
 */
export const MIN_ANSWER_TOKENS = 64

/** Usage beyond this is not believed, whatever the upstream says (the longest contexts are ~2M). */
export const MAX_USAGE_TOKENS = 10_000_000

export interface Hold {
  /** Tokens taken from the balance for this reply. */
  held: number
  /**
   * The answer's length limit when the hold is less than the full estimate (the balance ran
   * short): the reply stops where the balance ends instead of being generated for free.
   */
  maxTokens: number | undefined
}

const ceil = (n: number) => Math.max(0, Math.ceil(n - 1e-9))

/**
 * Holds (reserves) a reply's estimated cost before anything goes upstream, in the caller's
 * transaction, under the lock of the account's tokens row: the prompt plus the longest answer the model may
 * give. When the balance is less, the whole balance is held and the answer is limited to what it
 * pays for; when it cannot pay for the prompt and a short answer, the send is refused (40200001).
 * Concurrent sends each hold their own share, so together they can never spend more than there is.
 */
export async function holdTokens(
  tx: Tx,
  accountId: string,
  model: Pick<ModelEntry, 'price' | 'contextLength' | 'maxTokens'>,
  promptTokens: number
): Promise<Hold> {
  const answer = answerReserve(model)
  const promptCost = promptTokens * model.price.input
  const estimate = ceil(promptCost + answer * model.price.output)
  const minimum = Math.max(1, ceil(promptCost + Math.min(MIN_ANSWER_TOKENS, answer) * model.price.output))
  const [row] = await lock(tx, [accountId], [TOKENS])
  const balance = row?.balance ?? 0
  if (balance <= 0) throw new ApiError(40200001, OUT_OF_TOKENS_MESSAGE)
  if (balance < minimum) throw new ApiError(40200001, `对话额度不足：这次提问至少需要 ${minimum}，剩余 ${balance}，请充值后再试`)
  const held = Math.min(balance, estimate)
  // A free model (price 0) holds nothing.
  if (held > 0) await hold(tx, accountId, TOKENS, held)
  const capped = held < estimate && model.price.output > 0
  return { held, maxTokens: capped ? Math.max(1, Math.floor((held - promptCost) / model.price.output)) : undefined }
}

/**
 * The early refusal of a send when nothing is left: before the prompt is built. The hold, in the
 * transaction that creates the reply, is the real check.
 */
export async function requireTokens(db: Db, accountId: string): Promise<void> {
  if ((await balanceOf(db, accountId, TOKENS)).balance <= 0) throw new ApiError(40200001, OUT_OF_TOKENS_MESSAGE)
}

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
  /** What the reply costs under the charging policy (see docs/chat-wire.md): usage × price, or 0. */
  cost: number
  /** The balance log's reason, e.g. "对话：灵犀演示模型（离线）". */
  reason: string
  at: Date
}

/**
 * Saves a reply's final state and settles its hold in one transaction: the cost is charged from
 * what was held (never more: the account never pays what it did not reserve, and never goes below
 * zero), the rest goes back to the balance, and a charge gets its balance-log line. Only a reply
 * still `streaming` is finished, so a reply is settled once whatever races it (stop, shutdown,
 * sweep). Returns undefined when the reply had already been finished.
 */
export async function finishReply(db: Db, o: ReplyOutcome): Promise<ChatMessage | undefined> {
  return db.transaction(async (tx) => {
    // The tokens row first, then the reply: the order every writer of holds keeps.
    await lock(tx, [o.accountId], [TOKENS])
    const [current] = await tx
      .select({ held: chatMessages.held })
      .from(chatMessages)
      .where(and(eq(chatMessages.id, o.replyId), eq(chatMessages.status, 'streaming')))
      .for('update')
    if (!current) return undefined
    const charged = Math.min(current.held, o.cost)
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
        held: 0,
        updatedAt: o.at
      })
      .where(and(eq(chatMessages.id, o.replyId), eq(chatMessages.status, 'streaming')))
      .returning()
    if (!row) return undefined
    await settle(tx, o.accountId, TOKENS, current.held, charged, charged < o.cost ? `${o.reason}（余额不足，应扣 ${o.cost}）` : o.reason, o.at)
    return row
  })
}

/**
 * Ends streaming replies that no generation will finish (their node is gone, or they are about to
 * be deleted) as interrput, free of charge, and gives their holds back — in the caller's
 * transaction. `set` adds fields to save (e.g. the text a sweep recovered). Returns the rows ended.
 */
export async function endStreaming(tx: Tx, where: SQL, at: Date, set: Partial<typeof chatMessages.$inferInsert> = {}): Promise<ChatMessage[]> {
  const streaming = and(where, eq(chatMessages.status, 'streaming'))
  const owners = await tx.selectDistinct({ accountId: chatMessages.accountId }).from(chatMessages).where(streaming)
  if (owners.length === 0) return []
  await lock(
    tx,
    owners.map((o) => o.accountId),
    [TOKENS]
  )
  const held = await tx
    .select({ id: chatMessages.id, accountId: chatMessages.accountId, held: chatMessages.held })
    .from(chatMessages)
    .where(streaming)
    .for('update')
  if (held.length === 0) return []
  const rows = await tx
    .update(chatMessages)
    .set({ status: 'interrput', promptTokens: 0, completionTokens: 0, cost: 0, charged: 0, held: 0, updatedAt: at, ...set })
    .where(
      and(
        streaming,
        inArray(
          chatMessages.id,
          held.map((h) => h.id)
        )
      )
    )
    .returning()
  const ended = new Set(rows.map((r) => r.id))
  const back = new Map<string, number>()
  for (const h of held) if (ended.has(h.id) && h.held > 0) back.set(h.accountId, (back.get(h.accountId) ?? 0) + h.held)
  for (const [accountId, tokens] of back) await release(tx, accountId, TOKENS, tokens)
  return rows
}

/** Total cost of a reply's usage at the model's price, in whole tokens of allowance. */
export function costOf(usage: { promptTokens: number; completionTokens: number }, price: { input: number; output: number }): number {
  // The epsilon keeps float noise (0.1 × 30 = 3.0000000000000004) from adding a token.
  return Math.min(Number.MAX_SAFE_INTEGER, ceil(usage.promptTokens * price.input + usage.completionTokens * price.output))
}

/**
 * The upstream's usage if it is believable: whole, non-negative, bounded numbers, and not zero
 * completion tokens for a reply that has text. Undefined otherwise (the caller counts the text).
 */
export function validUsage(
  usage: { promptTokens: unknown; completionTokens: unknown } | undefined,
  produced: boolean
): { promptTokens: number; completionTokens: number } | undefined {
  if (!usage) return undefined
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= MAX_USAGE_TOKENS
  if (!ok(usage.promptTokens) || !ok(usage.completionTokens)) return undefined
  if (produced && usage.completionTokens === 0) return undefined
  return { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens }
}
