import { z } from 'zod'

export const ORDERS_BASE = '/api/v1/orders'
export const REDPACK_BASE = '/api/v1/wx-red-pack/v2'
export const ORDER_PERMISSION = 'AI_TOOLS_ORDER_PLATFORM'
export const QUALITY_PERMISSION = 'AI_TOOLS_ORDER_PLATFORM_QUALITY'

export const PLATFORMS = ['xiaohongshu', 'douyin', 'wechat_mp', 'weibo', 'bilibili', 'other'] as const
export type Platform = (typeof PLATFORMS)[number]
export const PLATFORM_NAMES: Record<Platform, string> = {
  xiaohongshu: '小红书',
  douyin: '抖音',
  wechat_mp: '公众号',
  weibo: '微博',
  bilibili: '哔哩哔哩',
  other: '其他'
}

export const ORDER_STATUSES = ['taken', 'submitted', 'approved', 'rejected', 'cancelled', 'expired'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]
export const ACTIVITY_STATUSES = ['upcoming', 'open', 'ended'] as const
export const PAY_STATES = ['none', 'SENDING', 'SENT', 'FAILED', 'RECEIVED', 'RFUND_ING', 'REFUND'] as const
export type PayState = (typeof PAY_STATES)[number]

export const sessionSchema = z
  .object({
    activitySessionId: z.string(),
    activityId: z.string(),
    name: z.string(),
    startTime: z.number(),
    endTime: z.number(),
    places: z.number().int(),
    placesLeft: z.number().int().min(0),
    status: z.enum(['upcoming', 'open', 'full', 'ended'])
  })
  .meta({ id: 'ActivitySession' })

export const activitySchema = z
  .object({
    activityId: z.string(),
    title: z.string(),
    brief: z.string(),
    requirements: z.string(),
    platform: z.enum(PLATFORMS),
    platformName: z.string(),
    quality: z.boolean(),
    rewardFen: z.number().int(),
    budgetFen: z.number().int(),
    spentFen: z.number().int(),
    startTime: z.number(),
    endTime: z.number(),
    status: z.enum(ACTIVITY_STATUSES),
    cover: z.string().nullable(),
    sessions: z.array(sessionSchema)
  })
  .meta({ id: 'Activity' })

export const orderSchema = z
  .object({
    orderId: z.string(),
    activityId: z.string(),
    activitySessionId: z.string(),
    status: z.enum(ORDER_STATUSES),
    draft: z.string(),
    link: z.string().nullable(),
    screenshots: z.array(z.string()),
    rejectReason: z.string().nullable(),
    rewardFen: z.number().int(),
    payState: z.enum(PAY_STATES),
    takeTime: z.number(),
    submitTime: z.number().nullable(),
    reviewTime: z.number().nullable(),
    activity: z.object({ title: z.string(), platformName: z.string(), quality: z.boolean() })
  })
  .meta({ id: 'Order' })

/** `orders/activity/detail`: one session of an activity, with the caller's order in it (null: none taken). */
export const activityDetailSchema = z
  .object({ activity: activitySchema, session: sessionSchema, myOrder: orderSchema.nullable() })
  .meta({ id: 'ActivityDetail' })

export { paged } from '../../http/fields.js'

export const payResultSchema = z
  .object({
    orderId: z.string(),
    payState: z.enum(PAY_STATES),
    /** A pay job is sending it right now (payState still `none`): 发放中; its outcome follows on the account channel (`redpack`). */
    paying: z.boolean(),
    mchBillno: z.string(),
    amountFen: z.number().int(),
    /** Paid by the offline demo payer: no money moved. */
    demo: z.boolean(),
    /** Why the packet is not (yet) paid, when WeChat said so. */
    failReason: z.string().nullable()
  })
  .meta({ id: 'RedPackResult' })

export const checkStateSchema = payResultSchema.extend({ sendTime: z.number().nullable(), receiveTime: z.number().nullable() }).meta({ id: 'RedPackState' })

export type ActivityWire = z.infer<typeof activitySchema>
export type SessionWire = z.infer<typeof sessionSchema>
export type OrderWire = z.infer<typeof orderSchema>
