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

/** A file sent with a user message (modules/chat/attachments.ts); `url`s are this API's, owner only. */
export const attachmentSchema = z
  .object({
    attachmentId: z.string(),
    kind: z.enum(['image', 'document']),
    name: z.string(),
    contentType: z.string(),
    size: z.number(),
    width: z.number().nullable(),
    height: z.number().nullable(),
    /** PDF: the pages in the file. */
    pages: z.number().nullable(),
    /** Documents: characters of the extracted text the model is given; clipped: the limits cut it. */
    chars: z.number().nullable(),
    clipped: z.boolean(),
    /** `GET` with the login (bearer or session cookie); relative to the API origin. */
    url: z.string(),
    /** Images: a small WebP; documents: null. */
    thumbUrl: z.string().nullable(),
    createTime: z.number()
  })
  .meta({ id: 'ChatAttachment' })
export type Attachment = z.infer<typeof attachmentSchema>

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
    usage: usageSchema.nullable(),
    /** topic/messages: this message is version `version` (1-based) of `versions`; absent when it has no other. */
    version: z.number().optional(),
    versions: z.number().optional(),
    /** User messages sent with files; absent when there are none. */
    attachments: z.array(attachmentSchema).optional()
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

/** topic/message/switch: the version now shown, and the new end of the branch shown. */
export const switchResultSchema = z.object({ topicId: z.string(), messageId: z.string(), leafId: z.string() }).meta({ id: 'SwitchResult' })

/** A share link as its owner sees it (`path` is on the site's origin: /share/{shareId}). */
export const shareSchema = z
  .object({ shareId: z.string(), topicId: z.string(), title: z.string(), path: z.string(), messageCount: z.number(), createTime: z.number() })
  .meta({ id: 'ChatShare' })
export type ChatShare = z.infer<typeof shareSchema>

/** A shared topic as anyone with the link sees it: no ids, nothing of the owner. */
export const publicShareSchema = z
  .object({
    shareId: z.string(),
    title: z.string(),
    roleName: z.string().nullable(),
    roleAvatar: z.string().nullable(),
    createTime: z.number(),
    messages: z.array(
      z.object({
        role: z.enum(['user', 'assistant']),
        content: z.string(),
        thinking: z.string().nullable(),
        status: z.string(),
        createTime: z.number()
      })
    )
  })
  .meta({ id: 'PublicChatShare' })
export type PublicChatShare = z.infer<typeof publicShareSchema>

export { paged } from '../../http/fields.js'
