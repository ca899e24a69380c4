import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '../../db/database.js'
import { type OrderActivity, orders } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { approveOrder, createActivity, listActivitiesForOperator, listSubmissions, OperatorError, rejectOrder } from '../../modules/orders/operator.js'
import { ORDER_STATUSES, PLATFORMS } from '../../modules/orders/wire.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'

// Order activities and their review (what `lingxi-admin orders …` does), for scripts and the CLI
// while the server holds the database. Every change is audited in its transaction.

const activityWire = z
  .object({
    activityId: z.string(),
    title: z.string(),
    platform: z.string(),
    quality: z.boolean(),
    rewardFen: z.number(),
    budgetFen: z.number(),
    reservedFen: z.number(),
    spentFen: z.number(),
    startTime: z.string(),
    endTime: z.string()
  })
  .meta({ id: 'AdminOrderActivity' })

const submissionWire = z
  .object({
    orderId: z.string(),
    title: z.string(),
    quality: z.boolean(),
    phone: z.string(),
    status: z.string(),
    rewardFen: z.number(),
    link: z.string().nullable(),
    screenshots: z.array(z.string()),
    submitTime: z.string().nullable(),
    rejectReason: z.string().nullable()
  })
  .meta({ id: 'AdminOrderSubmission' })

const activityOf = (a: OrderActivity) => ({
  activityId: a.id,
  title: a.title,
  platform: a.platform,
  quality: a.quality,
  rewardFen: a.rewardFen,
  budgetFen: a.budgetFen,
  reservedFen: a.reservedFen,
  spentFen: a.spentFen,
  startTime: a.startTime.toISOString(),
  endTime: a.endTime.toISOString()
})

const text = (label: string, max: number) =>
  z
    .string({ error: `请填写${label}` })
    .trim()
    .min(1, { error: `请填写${label}` })
    .max(max, { error: `${label}最多 ${max} 个字` })
const whole = (label: string, min: number, max: number, why = `${label}必须在 ${min} 到 ${max} 之间`) =>
  z
    .number({ error: `${label}必须是整数` })
    .int({ error: `${label}必须是整数` })
    .min(min, { error: why })
    .max(max, { error: why })
const time = (label: string) =>
  z
    .number({ error: `${label}必须是毫秒时间戳` })
    .int({ error: `${label}必须是毫秒时间戳` })
    .min(0)
const orderId = z.string({ error: 'orderId 不能为空' }).trim().min(1, { error: 'orderId 不能为空' }).max(64, { error: 'orderId 格式不正确' })

const STATUS_NAMES: Record<string, string> = { taken: '已接单', approved: '已通过', rejected: '已驳回', cancelled: '已取消', expired: '已过期' }

/** Only submitted orders can be reviewed: the reason in Chinese, before the change is tried. */
async function reviewable(api: Api, id: string): Promise<void> {
  const [row] = await api.db.select({ status: orders.status }).from(orders).where(eq(orders.id, id))
  if (!row) throw new ApiError(40400001, '订单不存在')
  if (row.status !== 'submitted') throw new ApiError(40000001, `该订单${STATUS_NAMES[row.status] ?? row.status}，只有待审核的订单可以审核`)
}

/** A review that lost a race with another operator's: the same Chinese answer as the check before. */
async function review<T>(api: Api, id: string, run: () => Promise<T>): Promise<T> {
  await reviewable(api, id)
  try {
    return await run()
  } catch (error) {
    if (error instanceof OperatorError) await reviewable(api, id)
    throw error
  }
}

export function registerOrderAdminRoutes(api: Api): void {
  const base = { tag: TAG, permission: ADMIN_PERMISSION, auth: true as const }

  defineRoute(
    api,
    '/api/admin/orders/activities',
    {
      ...base,
      summary: 'Every order activity with its budget (reserved, spent), oldest first',
      body: z.object({}),
      response: z.object({ list: z.array(activityWire) })
    },
    async () => ({ list: (await listActivitiesForOperator(api.db)).map(activityOf) })
  )

  defineRoute(
    api,
    '/api/admin/orders/activities/create',
    {
      ...base,
      summary: 'Publishes an activity whose sessions split its time window evenly (what `lingxi-admin orders activity create` does)',
      body: z
        .object({
          title: text('标题', 100),
          brief: text('简介', 500),
          requirements: z.string({ error: '要求格式不正确' }).trim().max(2000, { error: '要求最多 2000 个字' }).optional(),
          platform: z.enum(PLATFORMS, { error: `平台只能是 ${PLATFORMS.join('、')}` }),
          quality: z.boolean({ error: 'quality 只能是 true 或 false' }).optional(),
          rewardFen: whole('每单奖励', 100, 20_000, '每单奖励必须在 100 到 20000 分之间（微信红包单个 1–200 元）'),
          budgetFen: whole('预算', 100, 1_000_000_000),
          startTime: time('开始时间'),
          endTime: time('结束时间'),
          sessions: whole('场次', 1, 100).optional(),
          places: whole('每场名额', 1, 100_000).optional(),
          cover: z.string({ error: '封面格式不正确' }).trim().url({ error: '封面必须是网址' }).max(1000).optional()
        })
        .refine((b) => b.endTime > b.startTime, { error: '结束时间必须晚于开始时间' })
        .refine((b) => b.budgetFen >= b.rewardFen, { error: '预算至少要够发一单奖励' }),
      response: activityWire.extend({ sessionIds: z.array(z.string()) })
    },
    async ({ body, auth }) => {
      const at = new Date(api.now())
      return api.db.transaction(async (tx) => {
        const made = await createActivity(
          tx as unknown as Db,
          {
            title: body.title,
            brief: body.brief,
            requirements: body.requirements ?? '',
            platform: body.platform,
            quality: body.quality ?? false,
            rewardFen: body.rewardFen,
            budgetFen: body.budgetFen,
            startTime: body.startTime,
            endTime: body.endTime,
            sessions: body.sessions ?? 1,
            places: body.places ?? 10,
            cover: body.cover ?? null
          },
          at.getTime()
        )
        await audit(tx, auth, { action: 'orders.activity.create', target: made.id, after: activityOf(made) }, at)
        return { ...activityOf(made), sessionIds: made.sessionIds }
      })
    }
  )

  defineRoute(
    api,
    '/api/admin/orders/submissions',
    {
      ...base,
      summary: 'Orders waiting for review (or all orders of `status`), oldest submission first',
      body: z.object({ status: z.enum(ORDER_STATUSES, { error: `status 只能是 ${ORDER_STATUSES.join('、')}` }).optional() }),
      response: z.object({ list: z.array(submissionWire) })
    },
    async ({ body }) => ({
      list: (await listSubmissions(api.db, body.status ?? 'submitted')).map((r) => ({
        orderId: r.order.id,
        title: r.title,
        quality: r.quality,
        phone: `+${r.enCode} ${r.phone}`,
        status: r.order.status,
        rewardFen: r.order.rewardFen,
        link: r.order.link ?? null,
        screenshots: r.order.screenshots,
        submitTime: r.order.submitTime?.toISOString() ?? null,
        rejectReason: r.order.rejectReason ?? null
      }))
    })
  )

  const reviewed = z.object({ orderId: z.string(), status: z.string(), rewardFen: z.number(), rejectReason: z.string().nullable() })

  defineRoute(
    api,
    '/api/admin/orders/approve',
    { ...base, summary: 'Approves a submitted order: its reward can be claimed as a red packet', body: z.object({ orderId }), response: reviewed },
    async ({ body, auth }) => {
      const at = new Date(api.now())
      return review(api, body.orderId, () =>
        api.db.transaction(async (tx) => {
          const row = await approveOrder(tx as unknown as Db, body.orderId, at.getTime())
          await audit(
            tx,
            auth,
            { action: 'orders.approve', target: row.id, before: { status: 'submitted' }, after: { status: row.status, rewardFen: row.rewardFen } },
            at
          )
          return { orderId: row.id, status: row.status, rewardFen: row.rewardFen, rejectReason: row.rejectReason }
        })
      )
    }
  )

  defineRoute(
    api,
    '/api/admin/orders/reject',
    {
      ...base,
      summary: 'Rejects a submitted order with a reason shown to the person (who may fix and resubmit)',
      body: z.object({ orderId, reason: text('驳回原因', 500) }),
      response: reviewed
    },
    async ({ body, auth }) => {
      const at = new Date(api.now())
      return review(api, body.orderId, () =>
        api.db.transaction(async (tx) => {
          const row = await rejectOrder(tx as unknown as Db, body.orderId, body.reason, at.getTime())
          await audit(
            tx,
            auth,
            { action: 'orders.reject', target: row.id, before: { status: 'submitted' }, after: { status: row.status }, reason: body.reason },
            at
          )
          return { orderId: row.id, status: row.status, rewardFen: row.rewardFen, rejectReason: row.rejectReason }
        })
      )
    }
  )
}
