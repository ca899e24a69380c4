import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { AuthInfo } from '../../auth/sessions.js'
import type { Tx } from '../../db/database.js'
import { isUniqueViolation } from '../../db/errors.js'
import { type ChatMessage, type ChatTopic, type chatMessages, chatTopics } from '../../db/schema.js'
import type { ChatAttachment } from '../../db/schema-chat-attachments.js'
import { ApiError } from '../../errors.js'
import type { Api } from '../../http/api.js'
import { type Hold, holdTokens, requireTokens } from '../../replies/accounting.js'
import { answerReserve, buildContext } from '../../replies/context.js'
import type { ChatRuntime } from '../../replies/runtime.js'
import { attachmentTurn, checkVision } from './attachments.js'
import { loadBranchHistory, type Node } from './branches.js'
import { type PageContext, withPageContext } from './page-context.js'
import { findReplyByRequest } from './repo.js'
import { requireModel } from './topic-routes.js'

type SendResult = { requestId: string; messageId: string; replyId: string }

/** A retried send (same requestId) gets the first send's answer. */
export function previous(reply: ChatMessage, topicId: string): SendResult {
  if (reply.topicId !== topicId || !reply.parentId) throw new ApiError(40000001, 'requestId 已被其他消息使用')
  return { requestId: reply.requestId!, messageId: reply.parentId, replyId: reply.id }
}

/** The topic row, locked until the transaction ends (a delete and a branch change do not interleave). */
export async function lockTopic(tx: Tx, topicId: string) {
  const [row] = await tx.select({ id: chatTopics.id, leafId: chatTopics.leafId }).from(chatTopics).where(eq(chatTopics.id, topicId)).for('update')
  return row
}

/** How send, edit and regenerate start a reply (message-routes.ts). */
export function replyStarter(api: Api, runtime: ChatRuntime) {
  const { db, now } = api
  /**
   * Builds the prompt, inserts the reply row (and `before` rows) in one transaction, makes the
   * reply the end of the branch shown, and starts generating.
   */
  async function startReply(input: {
    auth: AuthInfo
    topic: ChatTopic
    question: string
    /** The branch before the question (oldest first): the history sent with it, and nothing beside it. */
    branch: readonly Node[]
    requestId: string | undefined
    parentId: string
    /** The question's files (chat attachments): checked against the model, added to its turn. */
    attachments?: ChatAttachment[]
    /** The page the question was asked on (send only): in this request's system context, not stored. */
    page?: PageContext
    write: (tx: Tx, reply: typeof chatMessages.$inferInsert) => Promise<void>
  }): Promise<SendResult> {
    const { auth, topic } = input
    const accountId = auth.account.id
    const model = await requireModel(runtime, topic.model)
    checkVision(model, input.attachments ?? [])
    const budget = model.contextLength - answerReserve(model)
    // The early refusal and the history's read go together (one round trip, not two).
    const [, history] = await Promise.all([requireTokens(db, auth.account.id), topic.contextEnabled === 1 ? loadBranchHistory(db, input.branch, budget) : []])
    const files = input.attachments?.length ? await attachmentTurn(api.storage, model, input.attachments) : undefined
    const context = await buildContext({
      model,
      systemPrompt: withPageContext(topic.systemPrompt, input.page),
      history,
      message: input.question + (files?.text ?? ''),
      ...(files ? { attachments: files } : {})
    })
    if (!context) throw new ApiError(40000001, `content 太长，超出了模型「${model.name}」的上下文长度`)
    const at = new Date(now())
    const requestId = input.requestId ?? randomUUID()
    const replyId = randomUUID()
    let hold!: Hold
    try {
      await db.transaction(async (tx) => {
        // The reply's cost is reserved before anything goes upstream: sends beyond the balance are refused.
        hold = await holdTokens(tx, accountId, model, context.promptTokens)
        await input.write(tx, {
          id: replyId,
          accountId,
          topicId: topic.id,
          role: 'assistant',
          content: '',
          status: 'streaming',
          requestId,
          parentId: input.parentId,
          prevId: input.parentId,
          model: model.id,
          held: hold.held,
          nodeId: runtime.nodeId,
          createdAt: at,
          updatedAt: at
        })
        await tx.update(chatTopics).set({ updatedAt: at, leafId: replyId }).where(eq(chatTopics.id, topic.id))
      })
    } catch (error) {
      // The same requestId sent twice at once: the first insert won; answer like a retry.
      if (input.requestId && isUniqueViolation(error)) {
        const existing = await findReplyByRequest(db, accountId, input.requestId)
        if (existing) return previous(existing, topic.id)
      }
      throw error
    }
    runtime.start({
      accountId,
      topicId: topic.id,
      replyId,
      requestId,
      model,
      messages: context.messages,
      promptTokens: context.promptTokens,
      temperature: topic.temperature,
      hold
    })
    return { requestId, messageId: input.parentId, replyId }
  }

  return startReply
}
