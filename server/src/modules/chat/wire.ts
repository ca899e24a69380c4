import { z } from 'zod'
import { MESSAGE_STATUSES, usageSchema } from '../../replies/wire.js'

export const MESSAGE_ROLES = ['user', 'assistant', 'system'] as const
export type MessageRole = (typeof MESSAGE_ROLES)[number]

/** The chatType of every topic of this product (the spec's text chat). */
export const CHAT_TYPE = 30

const zeroOne = z.union([z.literal(0), z.literal(1)])

export const topicSchema = z
  .object({
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
  .meta({ id: 'Topic' })
export type Topic = z.infer<typeof topicSchema>

export const messageSchema = z
  .object({
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
  .meta({ id: 'Message' })
export type Message = z.infer<typeof messageSchema>

export const tagSchema = z.object({ tagId: z.string(), name: z.string(), count: z.number() }).meta({ id: 'RoleTag' })

export const roleSchema = z
  .object({
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
  .meta({ id: 'Role' })
export type Role = z.infer<typeof roleSchema>

export const sendResultSchema = z.object({ requestId: z.string(), messageId: z.string(), replyId: z.string() }).meta({ id: 'SendResult' })

export { paged } from '../../http/fields.js'
