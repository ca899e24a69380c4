import { z } from 'zod'

/**
 * The wire spellings of a message's status (API.md), here and nowhere else.
 * - `streaming`: the reply is being generated; its events can be followed by requestId.
 * - `complete`: the model finished its answer.
 * - `error`: the upstream refused, failed, or cut the stream; `content` keeps what arrived.
 * - `interrput` (sic, the spec's spelling): stopped by the user, or by a server restart.
 * - `timeout`: the upstream sent nothing for too long.
 */
export const MESSAGE_STATUSES = ['streaming', 'complete', 'error', 'interrput', 'timeout'] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]
export const STOPPED = 'interrput' satisfies MessageStatus
export type FinalStatus = Exclude<MessageStatus, 'streaming'>

export const MESSAGE_ROLES = ['user', 'assistant', 'system'] as const
export type MessageRole = (typeof MESSAGE_ROLES)[number]

/** The chatType of every topic of this product (the spec's text chat). */
export const CHAT_TYPE = 30

const zeroOne = z.union([z.literal(0), z.literal(1)])

export const topicSchema = z.object({
  topicId: z.string(),
  name: z.string(),
  topFlag: zeroOne,
  updateTime: z.number(),
  createTime: z.number(),
  chatType: z.literal(CHAT_TYPE),
  oldChatType: z.number().nullable(),
  oldTopicIndex: z.number().nullable(),
  roleId: z.string().nullable(),
  roleName: z.string().nullable(),
  roleAvatar: z.string().nullable(),
  model: z.string(),
  temperature: z.number(),
  contextEnabled: zeroOne
})
export type Topic = z.infer<typeof topicSchema>

export const usageSchema = z.object({ promptTokens: z.number(), completionTokens: z.number(), charged: z.number() })
export type Usage = z.infer<typeof usageSchema>

export const messageSchema = z.object({
  messageId: z.string(),
  topicId: z.string(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  thinking: z.string().nullable(),
  status: z.enum(MESSAGE_STATUSES),
  requestId: z.string().nullable(),
  errorCode: z.number().nullable(),
  errorMessage: z.string().nullable(),
  model: z.string().nullable(),
  createTime: z.number(),
  usage: usageSchema.nullable()
})
export type Message = z.infer<typeof messageSchema>

export const tagSchema = z.object({ tagId: z.string(), name: z.string(), count: z.number() })

export const roleSchema = z.object({
  roleId: z.string(),
  name: z.string(),
  avatar: z.string(),
  description: z.string(),
  systemPrompt: z.string(),
  welcomeMessage: z.string().nullable(),
  tags: z.array(z.object({ tagId: z.string(), name: z.string() })),
  isPublic: z.boolean(),
  mine: z.boolean(),
  createTime: z.number(),
  updateTime: z.number()
})
export type Role = z.infer<typeof roleSchema>

export const sendResultSchema = z.object({ requestId: z.string(), messageId: z.string(), replyId: z.string() })

export { paged } from '../http/fields.js'

/** The final event of a stream, as `event` name and `data` object (chat-wire.md). */
export interface TerminalEvent {
  event: 'done' | 'error' | 'stopped'
  data: Record<string, unknown>
}

/** Built from the saved reply, so the live stream and a replay from the database agree byte for byte. */
export function terminalEvent(reply: {
  id: string
  status: FinalStatus
  promptTokens: number | null
  completionTokens: number | null
  charged: number | null
  errorCode: number | null
  errorMessage: string | null
}): TerminalEvent {
  if (reply.status === 'complete') {
    return {
      event: 'done',
      data: { status: 'complete', usage: usageOf(reply) ?? { promptTokens: 0, completionTokens: 0, charged: 0 }, messageId: reply.id }
    }
  }
  if (reply.status === 'interrput') return { event: 'stopped', data: { status: 'interrput', messageId: reply.id } }
  return {
    event: 'error',
    data: { status: reply.status, code: reply.errorCode ?? 50200001, message: reply.errorMessage ?? '', messageId: reply.id }
  }
}

export function usageOf(row: { promptTokens: number | null; completionTokens: number | null; charged: number | null }): Usage | null {
  if (row.promptTokens === null && row.completionTokens === null && row.charged === null) return null
  return { promptTokens: row.promptTokens ?? 0, completionTokens: row.completionTokens ?? 0, charged: row.charged ?? 0 }
}
