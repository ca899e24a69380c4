import { randomUUID } from 'node:crypto'
import { and, count, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { AuthInfo } from '../../auth/sessions.js'
import { type ChatMessage, type ChatTopic, chatMessages, chatTopics } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/errors.js'
import { ApiError } from '../../errors.js'
import { assertTexts, type Moderator, NO_MODERATION } from '../../moderation/index.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, pageFields, readPage } from '../../http/fields.js'
import { endStreaming, type Hold, holdTokens, requireTokens } from '../../replies/accounting.js'
import { answerReserve, buildContext, countTokens } from '../../replies/context.js'
import { findReplyByRequest, loadHistory, requireMessage, requireTopic, REQUEST_NOT_FOUND, toMessage } from './repo.js'
import type { ChatRuntime } from '../../replies/runtime.js'
import { CHAT_BASE, CHAT_PERMISSION, requireModel, stopTopicReplies } from './topic-routes.js'
import { messageSchema, paged, sendResultSchema } from './wire.js'

export const MAX_CONTENT_CHARS = 20_000

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const contentField = z
  .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'content 不能为空' : 'content 格式不正确') })
  .refine((text) => text.trim() !== '', 'content 不能为空')
  .refine((text) => text.length <= MAX_CONTENT_CHARS, `content 不能超过 ${MAX_CONTENT_CHARS} 个字符`)

const requestIdField = z
  .string({ error: 'requestId 格式不正确' })
  .trim()
  .regex(UUID, 'requestId 必须是 UUID')
  .transform((id) => id.toLowerCase())

/** Stop takes any string: an id that is not a UUID simply does not exist (40400001). */
const requiredRequestId = idField('requestId').transform((id) => id.toLowerCase())

type SendResult = { requestId: string; messageId: string; replyId: string }

/** `replyCodes`: the codes of every tool whose replies stream here; each may stop its own. */
export function registerMessageRoutes(api: Api, runtime: ChatRuntime, replyCodes: readonly string[], moderator: Moderator = NO_MODERATION): void {
  const { db, now } = api
  const path = (p: string) => `${CHAT_BASE}/${p}`
  const tag = 'chat'

  const requireAllowance = (auth: AuthInfo) => requireTokens(db, auth.account.id)

  /** A retried send (same requestId) gets the first send's answer. */
  const previous = (reply: ChatMessage, topicId: string): SendResult => {
    if (reply.topicId !== topicId || !reply.parentId) throw new ApiError(40000001, 'requestId 已被其他消息使用')
    return { requestId: reply.requestId!, messageId: reply.parentId, replyId: reply.id }
  }

  /** Builds the prompt, inserts the reply row (and `before` rows) in one transaction, and starts generating. */
  async function startReply(input: {
    auth: AuthInfo
    topic: ChatTopic
    question: string
    /** History ends before this message (regenerate); all of it otherwise. */
    beforeSeq?: number
    requestId: string | undefined
    parentId: string
    write: (tx: Parameters<Parameters<typeof db.transaction>[0]>[0], reply: typeof chatMessages.$inferInsert) => Promise<void>
  }): Promise<SendResult> {
    const { auth, topic } = input
    const accountId = auth.account.id
    const model = await requireModel(runtime, topic.model)
    await requireAllowance(auth)
    const budget = model.contextLength - answerReserve(model)
    const history = topic.contextEnabled === 1 ? await loadHistory(db, topic.id, budget, input.beforeSeq) : []
    const context = await buildContext({ model, systemPrompt: topic.systemPrompt, history, message: input.question })
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
          model: model.id,
          held: hold.held,
          nodeId: runtime.nodeId,
          createdAt: at,
          updatedAt: at
        })
        await tx.update(chatTopics).set({ updatedAt: at }).where(eq(chatTopics.id, topic.id))
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

  defineRoute(
    api,
    path('topic/message/send'),
    {
      tag,
      summary: 'Send a message; the reply is generated on the server and streamed at sse/subscribe/{requestId}',
      body: z.object({ topicId: idField('topicId'), content: contentField, requestId: requestIdField.optional() }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: sendResultSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      const topic = await requireTopic(db, accountId, body.topicId)
      if (body.requestId) {
        const existing = await findReplyByRequest(db, accountId, body.requestId)
        if (existing) return previous(existing, topic.id)
      }
      // Checked before anything is held, stored or sent upstream.
      await assertTexts(moderator, accountId, [{ kind: 'chat', text: body.content, source: 'chat.message', what: '消息' }])
      const messageId = randomUUID()
      const contentTokens = await countTokens(body.content)
      return startReply({
        auth,
        topic,
        question: body.content,
        requestId: body.requestId,
        parentId: messageId,
        async write(tx, reply) {
          await tx.insert(chatMessages).values({
            id: messageId,
            accountId,
            topicId: topic.id,
            role: 'user',
            content: body.content,
            status: 'complete',
            contentTokens,
            createdAt: reply.createdAt,
            updatedAt: reply.createdAt
          })
          await tx.insert(chatMessages).values(reply)
        }
      })
    }
  )

  defineRoute(
    api,
    path('topic/message/regenerate'),
    {
      tag,
      summary: "Replace the topic's last assistant reply with a new one for the same user message",
      body: z.object({ replyId: idField('replyId'), requestId: requestIdField.optional() }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: sendResultSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      if (body.requestId) {
        const existing = await findReplyByRequest(db, accountId, body.requestId)
        if (existing) return previous(existing, existing.topicId)
      }
      const reply = await requireMessage(db, accountId, body.replyId)
      if (reply.role !== 'assistant') throw new ApiError(40000001, 'replyId 不是助手的回复')
      const [last] = await db
        .select({ id: chatMessages.id })
        .from(chatMessages)
        .where(and(eq(chatMessages.topicId, reply.topicId), eq(chatMessages.role, 'assistant')))
        .orderBy(desc(chatMessages.seq))
        .limit(1)
      if (last?.id !== reply.id) throw new ApiError(40000001, '只能重新生成最后一条回复')
      const [parent] = reply.parentId
        ? await db
            .select()
            .from(chatMessages)
            .where(and(eq(chatMessages.id, reply.parentId), eq(chatMessages.accountId, accountId)))
        : []
      if (!parent) throw new ApiError(40000001, '这条回复没有对应的提问，不能重新生成')
      const topic = await requireTopic(db, accountId, reply.topicId)
      await requireModel(runtime, topic.model)
      await requireAllowance(auth)
      if (reply.status === 'streaming' && reply.requestId) await runtime.stop(accountId, reply.requestId)
      return startReply({
        auth,
        topic,
        question: parent.content,
        beforeSeq: parent.seq,
        requestId: body.requestId,
        parentId: parent.id,
        async write(tx, next) {
          // Stopped above; should it still be streaming (its node did not answer), its hold goes back.
          await endStreaming(tx, eq(chatMessages.id, reply.id), next.createdAt as Date)
          await tx.delete(chatMessages).where(eq(chatMessages.id, reply.id))
          await tx.insert(chatMessages).values(next)
        }
      })
    }
  )

  defineRoute(
    api,
    path('topic/messages'),
    {
      tag,
      summary: "A topic's messages, newest first",
      body: z.object({ topicId: idField('topicId'), ...pageFields }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: paged(messageSchema)
    },
    async ({ body, auth }) => {
      const topic = await requireTopic(db, auth.account.id, body.topicId)
      const where = eq(chatMessages.topicId, topic.id)
      return readPage(
        body,
        db.select({ n: count() }).from(chatMessages).where(where),
        (limit, offset) => db.select().from(chatMessages).where(where).orderBy(desc(chatMessages.seq)).limit(limit).offset(offset),
        (rows) => rows.map(toMessage)
      )
    }
  )

  defineRoute(
    api,
    path('topic/message/get'),
    { tag, summary: 'One message', body: z.object({ messageId: idField('messageId') }), auth: true, permission: CHAT_PERMISSION, response: messageSchema },
    async ({ body, auth }) => toMessage(await requireMessage(db, auth.account.id, body.messageId))
  )

  defineRoute(
    api,
    path('topic/message/del'),
    {
      tag,
      summary: 'Delete one message (a streaming reply is stopped first)',
      body: z.object({ messageId: idField('messageId') }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: z.null()
    },
    async ({ body, auth }) => {
      const message = await requireMessage(db, auth.account.id, body.messageId)
      if (message.status === 'streaming' && message.requestId) await runtime.stop(auth.account.id, message.requestId)
      const mine = and(eq(chatMessages.id, message.id), eq(chatMessages.accountId, auth.account.id))!
      await db.transaction(async (tx) => {
        await endStreaming(tx, mine, new Date(now()))
        await tx.delete(chatMessages).where(mine)
      })
      return null
    }
  )

  defineRoute(
    api,
    path('topic/message/clear'),
    {
      tag,
      summary: "Delete all of a topic's messages (streaming replies are stopped first)",
      body: z.object({ topicId: idField('topicId') }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: z.null()
    },
    async ({ body, auth }) => {
      const topic = await requireTopic(db, auth.account.id, body.topicId)
      await stopTopicReplies(api, runtime, auth.account.id, topic.id)
      // A reply sent meanwhile is deleted too; its hold goes back first.
      await db.transaction(async (tx) => {
        await endStreaming(tx, eq(chatMessages.topicId, topic.id), new Date(now()))
        await tx.delete(chatMessages).where(eq(chatMessages.topicId, topic.id))
      })
      return null
    }
  )

  defineRoute(
    api,
    path('topic/message/stop'),
    {
      tag,
      summary: 'Stop a reply: it ends as interrput (or keeps the final status it already had)',
      body: z.object({ requestId: requiredRequestId }),
      // Any tool whose replies stream here may stop its own (hot news' AI 解读, order drafts).
      auth: true,
      permission: replyCodes,
      response: messageSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      const reply = await findReplyByRequest(db, accountId, body.requestId)
      if (!reply) throw new ApiError(40400001, REQUEST_NOT_FOUND)
      if (reply.status !== 'streaming') return toMessage(reply)
      await runtime.stop(accountId, body.requestId)
      return toMessage(await requireMessage(db, accountId, reply.id))
    }
  )
}
