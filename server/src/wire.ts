/**
 * The wire objects of API.md and docs/*-wire.md as TypeScript types, inferred from the zod schemas
 * that validate and document them (GET /api/openapi.json is generated from the same schemas).
 * The browser SDK imports these with `import type` only (`@lingxi/server/wire`): nothing here
 * reaches a bundle. Every import below is a leaf wire file (zod and other wire files, nothing
 * else), so type-checking this file reads a dozen small files, not the server.
 */
import type { z } from 'zod'
import type { loginResponse, sendCodeResponse, wechatLoginPayload } from './auth/wire.js'
import type { paged } from './http/fields.js'
import type { sendResultSchema, switchResultSchema, tagSchema } from './modules/chat/wire.js'
import type { hotItemSchema, hotListSchema, hotSearchHitSchema, hotSourceSchema } from './modules/hot-news/types.js'
import type { albumSchema, hostedImageSchema } from './modules/image-host/wire.js'
import type { sharedSongSchema, songSchema } from './modules/music/wire.js'
import type { activityDetailSchema, activitySchema, checkStateSchema, orderSchema, payResultSchema, sessionSchema } from './modules/orders/wire.js'
import type { buttonSchema, galleryItemSchema, sdOptionsSchema, taskSchema } from './modules/painting/wire.js'
import type { packageSchema, payOrderSchema } from './modules/payments/wire.js'
import type { toolReplySchema } from './replies/wire.js'
import type { permissionMetaSchema, systemConfigSchema } from './site/wire.js'
import type { imageSchema, uploadTicketSchema } from './storage/wire.js'
import type { userInfoBase } from './user/wire.js'

/** `{list, total, pageNum, pageSize}` of every paged answer. */
export type Paged<T> = z.infer<ReturnType<typeof paged<z.ZodType<T>>>>

// ---- login (API.md) ---------------------------------------------------------------------------

/** `auth/login`, `auth/login-without-code` and `auth/modify-phone`. */
export type LoginResult = z.infer<typeof loginResponse>
/** `auth/send-sms-code` and `auth/modify-phone-sms-code`. */
export type SendCodeResult = z.infer<typeof sendCodeResponse>
/** A WeChat login: the JSON of the callback's `?login=` (base64); needPhone: no phone bound yet. */
export type WechatLogin = z.infer<typeof wechatLoginPayload>

// ---- user and permissions (API.md) ----------------------------------------------------------

/**
 * The allowances of `user/info` (and of the user center's answers): a number per allowance kind,
 * by its wire field. These are the kinds of the default module list (chat, painting, music); the
 * generated-client test checks them against the served schema.
 */
export interface Allowances {
  tokens: number
  mjCount: number
  sunoCount: number
}
/** `user/info`: the account, its allowances and permission codes. */
export type UserInfo = z.infer<typeof userInfoBase> & Allowances
/** A node of `userPermission`'s `bodyList`; `childList` is always present. */
export type { PermissionNode } from './permissions/wire.js'

// ---- site config (GET /config/system.json, GET /config/chatConfig.json) ----------------------

/** `GET /config/system.json` as served, `wechatLogin` included. */
export type SystemConfig = z.infer<typeof systemConfigSchema>
export type PermissionMeta = z.infer<typeof permissionMetaSchema>
/** `GET /config/chatConfig.json` as served (resolved with the environment's models; no keys). */
export type { ChatSiteConfig as ChatConfig, ModelEntry as ChatModel } from './replies/wire.js'

// ---- chat (docs/chat-wire.md) -----------------------------------------------------------------

export type { Message, MessageRole, Role, Topic } from './modules/chat/wire.js'
export type { ChatShare, PublicChatShare } from './modules/chat/wire.js'
/** A file sent with a user message (the upload's answer, and `attachments` of a Message). */
export type { Attachment as ChatAttachment } from './modules/chat/wire.js'
export type { MessageStatus, Usage } from './replies/wire.js'
/** How a reply ended: a chat reply, or a tool's (hot-news 解读, order drafts). */
export type { FinalStatus } from './replies/wire.js'
export type RoleTag = z.infer<typeof tagSchema>
/** `topic/message/send` and `regenerate`. */
export type SendResult = z.infer<typeof sendResultSchema>
/** `topic/message/switch`: the version now shown and the new end of the branch shown. */
export type SwitchResult = z.infer<typeof switchResultSchema>
/** A reply a tool started (hot news' 解读, order drafts): streamed at `ai-chat/sse/subscribe/{requestId}`. */
export type ToolReply = z.infer<typeof toolReplySchema>

// ---- painting (docs/painting-wire.md) ---------------------------------------------------------

export type PaintingTask = z.infer<typeof taskSchema>
export type TaskButton = z.infer<typeof buttonSchema>
export type { ActionMode, BlendDimensions, PaintingFeatures, PanDirection, TaskAction, TaskStatus } from './modules/painting/wire.js'
/** `gallery/list`. */
export type GalleryItem = z.infer<typeof galleryItemSchema>
/** `sd/options`. */
export type SdOptions = z.infer<typeof sdOptionsSchema>

// ---- music, hot news, images, uploads (docs/tools-wire.md) ------------------------------------

export type Song = z.infer<typeof songSchema>
export type SongStatus = Song['status']
/** `music/share/get`: a shared song for anyone with the link. */
export type SharedSong = z.infer<typeof sharedSongSchema>
export type HotSource = z.infer<typeof hotSourceSchema>
export type HotItem = z.infer<typeof hotItemSchema>
export type HotList = z.infer<typeof hotListSchema>
export type HotSearchHit = z.infer<typeof hotSearchHitSchema>
export type Image = z.infer<typeof imageSchema>
/** `images/list`: an image with its album. */
export type HostedImage = z.infer<typeof hostedImageSchema>
export type ImageAlbum = z.infer<typeof albumSchema>
/** `oss/upload/getOssSTS`: PUT the bytes to uploadUrl with headers, then `oss/upload/complete`. */
export type UploadTicket = z.infer<typeof uploadTicketSchema>

// ---- orders (docs/orders-wire.md) -------------------------------------------------------------

export type Activity = z.infer<typeof activitySchema>
export type ActivitySession = z.infer<typeof sessionSchema>
export type ActivityStatus = Activity['status']
export type SessionStatus = ActivitySession['status']
/** `orders/activity/detail`. */
export type ActivityDetail = z.infer<typeof activityDetailSchema>
export type Order = z.infer<typeof orderSchema>
/** `wx-red-pack/v2/send`. */
export type RedPackResult = z.infer<typeof payResultSchema>
/** `wx-red-pack/v2/check-state`. */
export type RedPackState = z.infer<typeof checkStateSchema>
export type { OrderStatus, PayState, Platform as ActivityPlatform } from './modules/orders/wire.js'

// ---- online recharge (docs/deployment.md "Online recharge") -----------------------------------

/** `pay/packages`: a package on sale; `grants` by allowance kind id. */
export type PayPackage = z.infer<typeof packageSchema>
/** `pay/order/create`, `pay/order/get`, `pay/order/list`. */
export type PayOrder = z.infer<typeof payOrderSchema>
export type { OrderStatus as PayOrderStatus, ProviderName as PayProvider, Scene as PayScene } from './modules/payments/wire.js'
