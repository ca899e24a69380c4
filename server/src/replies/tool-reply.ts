import { randomUUID } from 'node:crypto'
import { and, desc, eq } from 'drizzle-orm'
import type { AuthInfo } from '../auth/sessions.js'
import type { Db } from '../db/database.js'
import { chatMessages, chatTopics } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { type Hold, holdTokens, requireTokens } from './accounting.js'
import { buildContext, countTokens } from './context.js'
import type { ChatRuntime } from './runtime.js'

/** What a tool's reply answers: the reply streams at /ai-chat/sse/subscribe/{requestId}. */
export interface ToolReply {
  requestId: string
  messageId: string
  replyId: string
  topicId: string
}

/**
 * Starts a chat reply for another tool (hot news' AI 解读, an order's AI 起草) in the account's
 * topic of that tool, made on first use with context off: the same rows, stream and token charge
 * as a message sent in chat. Each question stands alone; earlier ones are not sent along.
 */
export async function startToolReply(input: {
  db: Db
  runtime: ChatRuntime
  now: () => number
  auth: AuthInfo
  /** The tool's topic, e.g. 热点解读; found by name, newest first. */
  topicName: string
  /** The system prompt of a new topic (an existing one keeps its own). */
  systemPrompt: string
  question: string
  /** Refusal when the question does not fit the model, e.g. 这条热点太长. */
  tooLong: string
}): Promise<ToolReply> {
  const { db, runtime, auth, question } = input
  const accountId = auth.account.id
  await requireTokens(db, accountId)
  const site = await runtime.models.read()
  const [existing] = await db
    .select()
    .from(chatTopics)
    .where(and(eq(chatTopics.accountId, accountId), eq(chatTopics.name, input.topicName)))
    .orderBy(desc(chatTopics.seq))
    .limit(1)
  const model = (existing ? await runtime.models.find(existing.model) : undefined) ?? (await runtime.models.find(site.defaultModel))
  if (!model) throw new ApiError(50200001, '没有可用的对话模型，请联系管理员')
  const systemPrompt = existing ? existing.systemPrompt : input.systemPrompt
  const context = await buildContext({ model, systemPrompt, history: [], message: question })
  if (!context) throw new ApiError(40000001, `${input.tooLong}，超出了模型「${model.name}」的上下文长度`)
  const contentTokens = await countTokens(question)

  const at = new Date(input.now())
  const topicId = existing?.id ?? randomUUID()
  const messageId = randomUUID()
  const replyId = randomUUID()
  const requestId = randomUUID()
  let hold!: Hold
  await db.transaction(async (tx) => {
    // Reserved like a chat send: refused before anything goes upstream when the balance cannot pay.
    hold = await holdTokens(tx, accountId, model, context.promptTokens)
    if (!existing) {
      await tx.insert(chatTopics).values({
        id: topicId,
        accountId,
        name: input.topicName,
        topFlag: 0,
        systemPrompt: input.systemPrompt,
        model: model.id,
        temperature: site.defaultTemperature,
        contextEnabled: 0,
        createdAt: at,
        updatedAt: at
      })
    } else {
      await tx.update(chatTopics).set({ updatedAt: at }).where(eq(chatTopics.id, topicId))
    }
    await tx
      .insert(chatMessages)
      .values({ id: messageId, accountId, topicId, role: 'user', content: question, status: 'complete', contentTokens, createdAt: at, updatedAt: at })
    await tx.insert(chatMessages).values({
      id: replyId,
      accountId,
      topicId,
      role: 'assistant',
      content: '',
      status: 'streaming',
      requestId,
      parentId: messageId,
      model: model.id,
      held: hold.held,
      nodeId: runtime.nodeId,
      createdAt: at,
      updatedAt: at
    })
  })
  runtime.start({
    accountId,
    topicId,
    replyId,
    requestId,
    model,
    messages: context.messages,
    promptTokens: context.promptTokens,
    temperature: existing?.temperature ?? site.defaultTemperature,
    hold
  })
  return { requestId, messageId, replyId, topicId }
}
