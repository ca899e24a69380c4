import { and, eq } from 'drizzle-orm'
import type { Db, Tx } from '../../db/database.js'
import { type ChatMessage, type ChatTopic, chatMessages, chatTopics } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type MessageStatus, usageOf } from '../../replies/wire.js'
import { CHAT_TYPE, type Message, type MessageRole, type Topic } from './wire.js'

export const TOPIC_NOT_FOUND = '对话不存在或已删除'
export const MESSAGE_NOT_FOUND = '消息不存在或已删除'
export const REQUEST_NOT_FOUND = '请求不存在或已删除'

/** What toTopic reads of a row: the topic list selects these alone (not the role's system prompt). */
export type TopicRow = Pick<
  ChatTopic,
  'id' | 'name' | 'topFlag' | 'updatedAt' | 'createdAt' | 'roleId' | 'roleName' | 'roleAvatar' | 'model' | 'temperature' | 'contextEnabled'
>

export function toTopic(row: TopicRow): Topic {
  return {
    topicId: row.id,
    name: row.name,
    topFlag: row.topFlag === 1 ? 1 : 0,
    updateTime: row.updatedAt.getTime(),
    createTime: row.createdAt.getTime(),
    chatType: CHAT_TYPE,
    oldChatType: null,
    oldTopicIndex: null,
    roleId: row.roleId,
    roleName: row.roleName,
    roleAvatar: row.roleAvatar,
    model: row.model,
    temperature: row.temperature,
    contextEnabled: row.contextEnabled === 1 ? 1 : 0
  }
}

export function toMessage(row: ChatMessage): Message {
  return {
    messageId: row.id,
    topicId: row.topicId,
    role: row.role as MessageRole,
    content: row.content,
    thinking: row.thinking,
    status: row.status as MessageStatus,
    requestId: row.requestId,
    errorCode: row.errorCode,
    errorMessage: row.errorMessage,
    model: row.model,
    createTime: row.createdAt.getTime(),
    usage: row.role === 'assistant' && row.status !== 'streaming' ? usageOf(row) : null
  }
}

/** The account's topic, or 40400001 (also for another account's topic: nothing is revealed). */
export async function requireTopic(db: Db | Tx, accountId: string, topicId: string): Promise<ChatTopic> {
  const [row] = await db
    .select()
    .from(chatTopics)
    .where(and(eq(chatTopics.id, topicId), eq(chatTopics.accountId, accountId)))
  if (!row) throw new ApiError(40400001, TOPIC_NOT_FOUND)
  return row
}

export async function requireMessage(db: Db | Tx, accountId: string, messageId: string): Promise<ChatMessage> {
  const [row] = await db
    .select()
    .from(chatMessages)
    .where(and(eq(chatMessages.id, messageId), eq(chatMessages.accountId, accountId)))
  if (!row) throw new ApiError(40400001, MESSAGE_NOT_FOUND)
  return row
}

export async function findReplyByRequest(db: Db | Tx, accountId: string, requestId: string): Promise<ChatMessage | undefined> {
  const [row] = await db
    .select()
    .from(chatMessages)
    .where(and(eq(chatMessages.accountId, accountId), eq(chatMessages.requestId, requestId)))
  return row
}
