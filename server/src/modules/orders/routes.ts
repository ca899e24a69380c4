import { z } from 'zod'
import type { AuthInfo } from '../../auth/sessions.js'
import type { ChatRuntime } from '../../replies/runtime.js'
import { toolReplySchema } from '../../replies/wire.js'
import { ApiError } from '../../errors.js'
import { type Api, checkPermission, defineRoute } from '../../http/api.js'
import { idField, oneOf, optionalText, pageFields } from '../../http/fields.js'
import { ownFile } from '../../storage/images.js'
import { startDraft } from './draft.js'
import type { PayService } from './pay.js'
import {
  activityDetail,
  cancelOrder,
  expireOrders,
  findActivity,
  findOwnOrder,
  findSession,
  listActivities,
  myOrders,
  saveDraft,
  submitOrder,
  takeOrder
} from './service.js'
import {
  ACTIVITY_STATUSES,
  activityDetailSchema,
  activitySchema,
  checkStateSchema,
  ORDER_PERMISSION,
  ORDER_STATUSES,
  ORDERS_BASE,
  orderSchema,
  paged,
  payResultSchema,
  PLATFORMS,
  QUALITY_PERMISSION,
  REDPACK_BASE
} from './wire.js'

const BOTH = [ORDER_PERMISSION, QUALITY_PERMISSION] as const
const kindCode = (quality: boolean) => (quality ? QUALITY_PERMISSION : ORDER_PERMISSION)
const bool = (label: string) => z.boolean({ error: `${label} 只能是 true 或 false` })

/** Activities, orders, AI drafts (chat replies) and red packets (paid by `pay`, on the job queue). */
export function registerOrderRoutes(api: Api, pay: PayService, replies: ChatRuntime): void {
  const { db, now } = api
  const tag = 'orders'
  const path = (p: string) => `${ORDERS_BASE}/${p}`
  const kind = (auth: AuthInfo, quality: boolean) => checkPermission(api, auth, kindCode(quality))
  /** The caller's order, checked against the permission of its activity's platform. */
  const ownOrder = async (auth: AuthInfo, orderId: string) => {
    const row = await findOwnOrder(db, auth.account.id, orderId)
    await kind(auth, row.activity.quality)
    return row
  }
  const orderId = z.object({ orderId: idField('orderId') })

  defineRoute(
    api,
    path('activity/list'),
    {
      tag,
      summary: 'Activities of one platform (quality: 优质接单平台), newest first',
      body: z.object({
        quality: bool('quality').default(false),
        platform: oneOf('platform', PLATFORMS).optional(),
        status: oneOf('status', ACTIVITY_STATUSES).optional(),
        keyword: optionalText('关键词', { max: 50 }),
        ...pageFields
      }),
      auth: true,
      permission: BOTH,
      response: paged(activitySchema)
    },
    async ({ body, auth }) => {
      await kind(auth, body.quality)
      return listActivities(db, { ...body, keyword: body.keyword || undefined }, now())
    }
  )

  defineRoute(
    api,
    path('activity/detail'),
    {
      tag,
      summary: 'One session of an activity, with my order in it',
      body: z.object({ activityId: idField('activityId'), activitySessionId: idField('activitySessionId') }),
      auth: true,
      permission: BOTH,
      response: activityDetailSchema
    },
    async ({ body, auth }) => {
      await kind(auth, (await findActivity(db, body.activityId)).quality)
      await expireOrders(db, now())
      return activityDetail(db, auth.account.id, body.activityId, body.activitySessionId, now())
    }
  )

  defineRoute(
    api,
    path('take'),
    {
      tag,
      summary: 'Take an order in a session (reserves a place and the reward; one per person and session)',
      body: z.object({ activitySessionId: idField('activitySessionId') }),
      auth: true,
      permission: BOTH,
      response: orderSchema,
      message: '接单成功'
    },
    async ({ body, auth }) => {
      const { activity } = await findSession(db, body.activitySessionId)
      await kind(auth, activity.quality)
      await expireOrders(db, now())
      return takeOrder(db, auth.account.id, body.activitySessionId, now())
    }
  )

  defineRoute(
    api,
    path('cancel'),
    { tag, summary: 'Cancel a taken order; the place comes back', body: orderId, auth: true, permission: BOTH, response: orderSchema, message: '已取消接单' },
    async ({ body, auth }) => {
      await ownOrder(auth, body.orderId)
      return cancelOrder(db, auth.account.id, body.orderId, now())
    }
  )

  defineRoute(
    api,
    path('draft'),
    {
      tag,
      summary:
        "Draft the content through the chat pipeline from the activity's brief (topic 接单文案); streamed at ai-chat/sse/subscribe/{requestId}, charged to tokens",
      body: orderId,
      auth: true,
      permission: BOTH,
      response: toolReplySchema
    },
    async ({ body, auth }) => {
      const { order, activity } = await ownOrder(auth, body.orderId)
      if (order.status !== 'taken' && order.status !== 'rejected') throw new ApiError(40000001, '只有未提交或被驳回的订单可以生成文案')
      return startDraft({ db, runtime: replies, now, auth, activity, current: order.draft })
    }
  )

  defineRoute(
    api,
    path('save'),
    {
      tag,
      summary: 'Save the content written for an order (while taken or rejected)',
      body: z.object({ orderId: idField('orderId'), draft: z.string({ error: '文案格式不正确' }).max(20_000, '文案不能超过 20000 个字符') }),
      auth: true,
      permission: BOTH,
      response: orderSchema,
      message: '已保存'
    },
    async ({ body, auth }) => {
      await ownOrder(auth, body.orderId)
      return saveDraft(db, auth.account.id, body.orderId, body.draft, now())
    }
  )

  const link = z
    .string({ error: (issue) => (issue.input === undefined ? '发布链接不能为空' : '发布链接格式不正确') })
    .trim()
    .min(1, '发布链接不能为空')
    .max(2000, '发布链接不能超过 2000 个字符')
    .refine((value) => {
      try {
        const url = new URL(value)
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
      } catch {
        return false
      }
    }, '发布链接必须是 http:// 或 https:// 开头的网址')

  defineRoute(
    api,
    path('submit'),
    {
      tag,
      summary: 'Submit the published link and 1–6 screenshots (own Lingxi storage URLs) for review',
      body: z.object({
        orderId: idField('orderId'),
        link,
        screenshots: z
          .array(z.string({ error: '截图地址格式不正确' }).trim().max(2000, '截图地址过长'), { error: '截图不能为空' })
          .min(1, '请至少上传 1 张截图')
          .max(6, '截图最多 6 张')
      }),
      auth: true,
      permission: BOTH,
      response: orderSchema,
      message: '已提交，请等待审核'
    },
    async ({ body, auth }) => {
      await ownOrder(auth, body.orderId)
      const screenshots: string[] = []
      for (const [i, url] of body.screenshots.entries()) {
        const file = await ownFile(db, api.storage, url, auth.account.id)
        if (!file?.contentType.startsWith('image/')) throw new ApiError(40000001, `第 ${i + 1} 张截图不是您在灵犀上传的图片`)
        const canonical = api.storage.publicUrl(file.key)
        if (!screenshots.includes(canonical)) screenshots.push(canonical)
      }
      return submitOrder(db, auth.account.id, body.orderId, { link: body.link, screenshots }, now())
    }
  )

  defineRoute(
    api,
    path('mine'),
    {
      tag,
      summary: 'My orders, newest first (quality absent: every platform I may use)',
      body: z.object({ quality: bool('quality').optional(), status: oneOf('status', ORDER_STATUSES).optional(), ...pageFields }),
      auth: true,
      permission: BOTH,
      response: paged(orderSchema)
    },
    async ({ body, auth }) => {
      let kinds: boolean[]
      if (body.quality !== undefined) {
        await kind(auth, body.quality)
        kinds = [body.quality]
      } else {
        kinds = [false, true].filter((q) => auth.account.permissionCodes.includes(kindCode(q)))
      }
      await expireOrders(db, now())
      return myOrders(db, auth.account.id, { kinds, status: body.status, pageNum: body.pageNum, pageSize: body.pageSize })
    }
  )

  const redpack = (p: string) => `${REDPACK_BASE}/${p}`
  defineRoute(
    api,
    redpack('send'),
    {
      tag,
      summary:
        "Pay an approved order of the caller's as a WeChat red packet (idempotent: one mch_billno per order); waits up to 5 s for the pay job, else answers paying: true",
      body: orderId,
      auth: true,
      permission: BOTH,
      response: payResultSchema
    },
    async ({ body, auth }) => {
      await ownOrder(auth, body.orderId)
      return pay.send(auth.account.id, body.orderId)
    }
  )

  defineRoute(
    api,
    redpack('check-state'),
    {
      tag,
      summary: "The order's red packet as WeChat Pay reports it (gethbinfo)",
      body: orderId,
      auth: true,
      permission: BOTH,
      response: checkStateSchema
    },
    async ({ body, auth }) => {
      await ownOrder(auth, body.orderId)
      return pay.checkState(auth.account.id, body.orderId)
    }
  )
}
