import { eq } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { type ChatMessage, chatMessages } from '../db/schema.js'
import { SYSTEM_ERROR_MESSAGE } from '../errors.js'
import type { Logger } from '../logger.js'
import { costOf, endStreaming, finishReply, validUsage } from './accounting.js'
import { countTokens } from './context.js'
import type { ModelEntry } from './models.js'
import { type FinalStatus, STOPPED } from './wire.js'

/** Runs after a reply is saved and charged, before its final event (chat's topic titles: modules/chat/titles.ts). */
export type SettledHook = (row: ChatMessage) => Promise<void>
const settledHooks = new WeakMap<Db, Map<string, SettledHook>>()

/**
 * Sets the hook named `name` for the replies settled on `db` (an app made later on the same
 * database replaces it); a hook's failure is logged and never touches the reply.
 */
export function onReplySettled(db: Db, name: string, hook: SettledHook): void {
  const hooks = settledHooks.get(db) ?? new Map<string, SettledHook>()
  hooks.set(name, hook)
  settledHooks.set(db, hooks)
}

/**
 * The model and its price ratio in the balance-log line, when the ratio is not ×1 (input and
 * output): `（gpt-4o，输入 ×2.5，输出 ×10）`. A ×1 model's line is its name alone.
 */
function priceNote(model: Pick<ModelEntry, 'id' | 'price'>): string {
  const { input, output } = model.price
  return input === 1 && output === 1 ? '' : `（${model.id}，输入 ×${input}，输出 ×${output}）`
}

/** How a generation ended, as the runtime saw it. */
export interface ReplyEnd {
  status: FinalStatus
  content: string
  thinking: string
  errorCode: number | null
  errorMessage: string | null
  /** What the upstream reported, unchecked. */
  usage: { promptTokens: number; completionTokens: number } | undefined
  stoppedByUser: boolean
  /** Set when moderation blocked the reply: only this text (what passed before the bad window) is billed. */
  billed?: string
}

/**
 * The charging policy (docs/chat-wire.md, "What a reply costs"): the user pays for text they were
 * given and chose to have — a complete reply, or what was shown before their own stop. A reply
 * that ends by a fault (the upstream failed or cut it off, it timed out, the server shut down or
 * died) costs nothing, whatever it showed; so does a reply that produced nothing.
 *
 * Returns the saved reply (none when it had already ended), or `lost` when not even the free end
 * could be saved.
 */
export async function settleReply(
  deps: { db: Db; logger: Logger; now: () => number },
  job: { replyId: string; accountId: string; promptTokens: number; model: Pick<ModelEntry, 'id' | 'name' | 'price'> },
  end: ReplyEnd
): Promise<{ row?: ChatMessage; lost?: true }> {
  const { db, logger } = deps
  const { status, content, thinking } = end
  const produced = content !== '' || thinking !== ''
  const at = new Date(deps.now())
  try {
    const contentTokens = await countTokens(content)
    const upstream = status === 'complete' ? validUsage(end.usage, produced) : undefined
    if (end.usage && status === 'complete' && !upstream) {
      logger.warn('the upstream reported an unbelievable usage; the reply is billed by its own count', {
        usage: end.usage,
        replyId: job.replyId,
        model: job.model.id
      })
    }
    const counted =
      end.billed !== undefined
        ? { promptTokens: end.billed ? job.promptTokens : 0, completionTokens: await countTokens(end.billed) }
        : (upstream ?? {
            promptTokens: produced ? job.promptTokens : 0,
            completionTokens: produced ? contentTokens + (await countTokens(thinking)) : 0
          })
    const billable = end.billed !== undefined ? end.billed !== '' : produced && (status === 'complete' || (status === STOPPED && end.stoppedByUser))
    const cost = billable ? costOf(counted, job.model.price) : 0
    const row = await finishReply(db, {
      replyId: job.replyId,
      accountId: job.accountId,
      status,
      content,
      thinking,
      errorCode: end.errorCode,
      errorMessage: end.errorMessage,
      promptTokens: counted.promptTokens,
      completionTokens: counted.completionTokens,
      contentTokens,
      cost,
      reason: `${status === 'complete' ? '对话：' : '对话（已停止）：'}${job.model.name}${priceNote(job.model)}`,
      at
    })
    for (const hook of row ? (settledHooks.get(db)?.values() ?? []) : []) {
      await hook(row!).catch((error: unknown) => logger.error('a settled-reply hook failed', { error, replyId: job.replyId }))
    }
    return row ? { row } : {}
  } catch (error) {
    // Accounting failed: the reply must still end, keep its text and give its hold back (free).
    logger.error('settling a reply failed; it ends as an error, free of charge', { error, replyId: job.replyId })
    try {
      const [row] = await db.transaction((tx) =>
        endStreaming(tx, eq(chatMessages.id, job.replyId), at, {
          status: 'error',
          content,
          thinking: thinking === '' ? null : thinking,
          errorCode: 50000000,
          errorMessage: SYSTEM_ERROR_MESSAGE
        })
      )
      return row ? { row } : {}
    } catch (again) {
      logger.error('ending a reply failed; the next sweep ends it', { error: again, replyId: job.replyId })
      return { lost: true }
    }
  }
}
