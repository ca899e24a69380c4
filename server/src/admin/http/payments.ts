import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { AllowanceRegistry } from '../../allowances/registry.js'
import { type PayPackage, payOrders, payPackages } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute, requirePermission, validate } from '../../http/api.js'
import { oneOf, paged, pageFields } from '../../http/fields.js'
import { paymentServiceOf } from '../../modules/payments/index.js'
import { createPackage, listPackages, updatePackage } from '../../modules/payments/packages.js'
import { ProviderError } from '../../modules/payments/provider.js'
import { ORDER_STATUSES, PROVIDERS } from '../../modules/payments/wire.js'
import { findOrders, type OrderFilter, type OrderRow } from '../payments.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'

// 套餐 and 订单 of the console: the packages the CLI edits (modules/payments/packages.ts), the
// orders it lists (admin/payments.ts, findOrders) and refunds through the payments module's own
// service (refund.ts), each change in the audit log.

const adminPackage = z
  .object({
    id: z.string(),
    name: z.string(),
    priceFen: z.number(),
    grants: z.record(z.string(), z.number()),
    validityDays: z.number().nullable(),
    badge: z.string().nullable(),
    sort: z.number(),
    enabled: z.boolean(),
    createTime: z.string(),
    updateTime: z.string()
  })
  .meta({ id: 'AdminPayPackage' })

const adminOrder = z
  .object({
    orderId: z.string(),
    accountId: z.string(),
    payerPhone: z.string().nullable(),
    packageId: z.string(),
    packageName: z.string(),
    grants: z.record(z.string(), z.number()),
    amountFen: z.number(),
    refundedFen: z.number(),
    provider: z.string(),
    scene: z.string(),
    status: z.string(),
    providerTradeNo: z.string().nullable(),
    createTime: z.string(),
    payTime: z.string().nullable(),
    refundTime: z.string().nullable()
  })
  .meta({ id: 'AdminPayOrder' })

const packageWire = (p: PayPackage) => ({
  id: p.id,
  name: p.name,
  priceFen: p.priceFen,
  grants: p.grants,
  validityDays: p.validityDays,
  badge: p.badge,
  sort: p.sort,
  enabled: p.enabled,
  createTime: p.createdAt.toISOString(),
  updateTime: p.updatedAt.toISOString()
})

const orderWire = (r: OrderRow) => ({
  orderId: r.id,
  accountId: r.accountId,
  payerPhone: r.payerPhone,
  packageId: r.packageId,
  packageName: r.packageName,
  grants: r.grants,
  amountFen: r.amountFen,
  refundedFen: r.refundedFen,
  provider: r.provider,
  scene: r.scene,
  status: r.status,
  providerTradeNo: r.providerTradeNo,
  createTime: r.createdAt.toISOString(),
  payTime: r.paidAt?.toISOString() ?? null,
  refundTime: r.refundedAt?.toISOString() ?? null
})

/** The largest CSV export (rows); a filter narrows a bigger list. */
export const CSV_MAX_ROWS = 10_000

const DAY = /^\d{4}-\d{2}-\d{2}$/
/** A calendar day in China time (`2026-11-26`), as the instant it starts. */
const chinaDay = (label: string) =>
  z
    .string({ error: `${label} 格式不正确，应为 YYYY-MM-DD` })
    .regex(DAY, { error: `${label} 格式不正确，应为 YYYY-MM-DD` })
    .transform((day, ctx) => {
      const at = new Date(`${day}T00:00:00+08:00`)
      if (Number.isNaN(at.getTime()) || new Date(at.getTime() + 8 * 3_600_000).toISOString().slice(0, 10) !== day) {
        ctx.addIssue({ code: 'custom', message: `${label} 不是有效的日期` })
        return z.NEVER
      }
      return at
    })

const filterFields = {
  status: oneOf('status', ORDER_STATUSES).optional(),
  provider: oneOf('provider', PROVIDERS).optional(),
  query: z.string({ error: 'query 格式不正确' }).trim().max(64, { error: 'query 最多 64 个字符' }).optional(),
  from: chinaDay('from').optional(),
  to: chinaDay('to').optional()
}

const filterOf = (b: {
  status?: OrderFilter['status']
  provider?: OrderFilter['provider']
  query?: string | undefined
  from?: Date | undefined
  to?: Date | undefined
}) => {
  if (b.from && b.to && b.from.getTime() > b.to.getTime()) throw new ApiError(40000001, '开始日期不能晚于结束日期')
  // `to` is the last day shown: orders made before the next day starts.
  return { status: b.status, provider: b.provider, query: b.query, from: b.from, to: b.to ? new Date(b.to.getTime() + 86_400_000) : undefined }
}

const csvCell = (value: unknown) => {
  const text = value === null || value === undefined ? '' : String(value)
  // Quoted, and a leading =+-@ defused: the file is opened in spreadsheets.
  return `"${(/^[=+\-@]/.test(text) ? `'${text}` : text).replace(/"/g, '""')}"`
}
const yuan = (fen: number) => (fen / 100).toFixed(2)
/** An instant as China time, `2026-11-26 09:30:00` (what the operator's spreadsheet should show). */
const chinaTime = (at: Date | null) => (at ? new Date(at.getTime() + 8 * 3_600_000).toISOString().replace('T', ' ').slice(0, 19) : '')

/** One refund at a time per order on this node: the second asks after the first is applied (and is then told why not). */
const refunding = new Map<string, Promise<unknown>>()
async function oneAtATime<T>(orderId: string, run: () => Promise<T>): Promise<T> {
  const before = refunding.get(orderId) ?? Promise.resolve()
  const mine = before.catch(() => undefined).then(run)
  refunding.set(orderId, mine)
  try {
    return await mine
  } finally {
    if (refunding.get(orderId) === mine) refunding.delete(orderId)
  }
}

export function registerPaymentAdminRoutes(api: Api, allowances: AllowanceRegistry): void {
  const base = { tag: TAG, permission: ADMIN_PERMISSION, auth: true as const }
  const kinds = () => allowances.kinds.map((k) => k.id).join('、')
  const grants = z
    .record(
      z.string(),
      z
        .number({ error: 'grants 的数量必须是整数' })
        .int({ error: 'grants 的数量必须是整数' })
        .min(0, { error: 'grants 的数量不能小于 0' })
        .max(1_000_000_000_000)
    )
    .refine((g) => Object.keys(g).every((id) => allowances.get(id) !== undefined), { error: () => `grants 的额度种类只能是 ${kinds()}` })
    .refine((g) => Object.values(g).some((n) => n > 0), { error: '套餐至少要给一种额度' })
  // The limits of packageInput (packages.ts), with the console's messages.
  const fields = {
    name: z.string({ error: '请填写套餐名称' }).trim().min(1, { error: '请填写套餐名称' }).max(40, { error: '套餐名称最多 40 个字' }),
    priceFen: z
      .number({ error: 'priceFen 必须是整数（分）' })
      .int({ error: 'priceFen 必须是整数（分）' })
      .min(1, { error: '价格至少 1 分' })
      .max(100_000_000, { error: '价格最多 100 万元' }),
    grants,
    validityDays: z
      .number({ error: '有效天数必须是整数' })
      .int({ error: '有效天数必须是整数' })
      .min(1, { error: '有效天数至少 1 天' })
      .max(36_500)
      .nullable()
      .optional(),
    badge: z.string({ error: '角标格式不正确' }).trim().max(8, { error: '角标最多 8 个字' }).nullable().optional(),
    sort: z.number({ error: '排序必须是整数' }).int({ error: '排序必须是整数' }).min(-1_000_000).max(1_000_000).optional(),
    enabled: z.boolean({ error: 'enabled 只能是 true 或 false' }).optional()
  }
  const packageId = z
    .string({ error: (issue) => (issue.input === undefined ? 'packageId 不能为空' : 'packageId 格式不正确') })
    .trim()
    .min(1, { error: 'packageId 不能为空' })
    .max(64, { error: 'packageId 格式不正确' })

  defineRoute(
    api,
    '/api/admin/pay/packages',
    {
      ...base,
      summary: 'Every recharge package, on sale or not, in the operator’s order',
      body: z.object({}),
      response: z.object({ list: z.array(adminPackage) })
    },
    async () => ({ list: (await listPackages(api.db, { all: true })).map(packageWire) })
  )

  defineRoute(
    api,
    '/api/admin/pay/packages/create',
    { ...base, summary: 'Creates a recharge package (what `lingxi-admin pay packages create` does)', body: z.object(fields), response: adminPackage },
    async ({ body, auth }) => {
      const at = new Date(api.now())
      return api.db.transaction(async (tx) => {
        const row = await createPackage(tx as unknown as Parameters<typeof createPackage>[0], allowances, body, at)
        await audit(tx, auth, { action: 'package.create', target: row.id, after: packageWire(row) }, at)
        return packageWire(row)
      })
    }
  )

  defineRoute(
    api,
    '/api/admin/pay/packages/update',
    {
      ...base,
      summary: 'Changes a package, or puts it on or off sale (`enabled`); orders already made keep what they were made with',
      body: z.object({ packageId, ...z.object(fields).partial().shape }),
      response: adminPackage
    },
    async ({ body, auth }) => {
      const { packageId: id, ...changes } = body
      if (Object.keys(changes).length === 0) throw new ApiError(40000001, '请至少修改一项')
      const at = new Date(api.now())
      return api.db.transaction(async (tx) => {
        const [before] = await tx.select().from(payPackages).where(eq(payPackages.id, id)).for('update')
        if (!before) throw new ApiError(40400001, '套餐不存在')
        const row = await updatePackage(tx as unknown as Parameters<typeof updatePackage>[0], allowances, id, changes, at)
        if (!row) throw new ApiError(40400001, '套餐不存在')
        const action =
          Object.keys(changes).length === 1 && changes.enabled !== undefined ? (changes.enabled ? 'package.enable' : 'package.disable') : 'package.update'
        await audit(tx, auth, { action, target: id, before: packageWire(before), after: packageWire(row) }, at)
        return packageWire(row)
      })
    }
  )

  const listBody = z.object({ ...pageFields, ...filterFields })
  defineRoute(
    api,
    '/api/admin/pay/orders',
    {
      ...base,
      summary: 'Payment orders, newest first: by status, provider, order id / account id / phone, days made (China time, `to` included)',
      body: listBody,
      response: paged(adminOrder)
    },
    async ({ body }) => {
      const { rows, total } = await findOrders(api.db, filterOf(body), { limit: body.pageSize, offset: (body.pageNum - 1) * body.pageSize })
      return { list: rows.map(orderWire), total, pageNum: body.pageNum, pageSize: body.pageSize }
    }
  )

  const csvPath = '/api/admin/pay/orders/csv'
  api.docs.push({
    method: 'get',
    path: csvPath,
    tag: TAG,
    summary: `The filtered orders as CSV (UTF-8 with BOM; query: status, provider, query, from, to; at most ${CSV_MAX_ROWS} rows)`,
    auth: true,
    contentType: 'text/csv'
  })
  api.app.get(csvPath, requirePermission(api, ADMIN_PERMISSION), async (c) => {
    const q = c.req.query()
    const picked = Object.fromEntries(Object.keys(filterFields).flatMap((k) => (q[k] ? [[k, q[k]]] : [])))
    const filter = filterOf(validate(z.object(filterFields), picked))
    const { rows } = await findOrders(api.db, filter, { limit: CSV_MAX_ROWS })
    const ids = allowances.kinds.map((k) => k.id)
    const header = [
      '订单号',
      '状态',
      '支付方式',
      '场景',
      '套餐',
      '金额(元)',
      '已退款(元)',
      ...ids,
      '账号ID',
      '手机号',
      '下单时间',
      '支付时间',
      '退款时间',
      '支付平台单号'
    ]
    const lines = rows.map((r) =>
      [
        r.id,
        r.status,
        r.provider,
        r.scene,
        r.packageName,
        yuan(r.amountFen),
        yuan(r.refundedFen),
        ...ids.map((k) => r.grants[k] ?? 0),
        r.accountId,
        // Without its +: a cell starting with + would be defused (a ' shown in front).
        r.payerPhone?.replace(/^\+/, ''),
        chinaTime(r.createdAt),
        chinaTime(r.paidAt),
        chinaTime(r.refundedAt),
        r.providerTradeNo
      ]
        .map(csvCell)
        .join(',')
    )
    const day = chinaTime(new Date(api.now())).slice(0, 10)
    return c.body(`\ufeff${[header.map(csvCell).join(','), ...lines].join('\r\n')}\r\n`, 200, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="orders-${day}.csv"`
    })
  })

  defineRoute(
    api,
    '/api/admin/pay/refund',
    {
      ...base,
      summary: 'Refunds a paid order at its provider, all that is left or `amountFen`, and takes back that share of the allowance',
      body: z.object({
        orderId: z
          .string({ error: (issue) => (issue.input === undefined ? 'orderId 不能为空' : 'orderId 格式不正确') })
          .trim()
          .min(1, { error: 'orderId 不能为空' })
          .max(64, { error: 'orderId 格式不正确' }),
        amountFen: z
          .number({ error: 'amountFen 必须是整数（分）' })
          .int({ error: 'amountFen 必须是整数（分）' })
          .min(1, { error: '退款金额至少 1 分' })
          .optional(),
        reason: z.string({ error: '请填写退款原因' }).trim().min(1, { error: '请填写退款原因' }).max(80, { error: '退款原因最多 80 个字' })
      }),
      response: adminOrder
    },
    async ({ body, auth }) => {
      const service = paymentServiceOf(api)
      if (!service) throw new ApiError(40400001, '在线支付未启用')
      return oneAtATime(body.orderId, async () => {
        const [before] = await api.db.select().from(payOrders).where(eq(payOrders.id, body.orderId))
        if (!before) throw new ApiError(40400001, '订单不存在')
        let row: Awaited<ReturnType<typeof service.refund>>
        try {
          // The audit entry is written in the transaction that applies the refund: both or neither.
          row = await service.refund(body.orderId, body.amountFen, body.reason, (tx, applied) =>
            audit(
              tx,
              auth,
              {
                action: 'order.refund',
                target: applied.id,
                before: { status: before.status, refundedFen: before.refundedFen },
                after: { status: applied.status, refundedFen: applied.refundedFen, amountFen: applied.refundedFen - before.refundedFen },
                reason: body.reason
              },
              new Date(api.now())
            )
          )
        } catch (error) {
          if (error instanceof ProviderError) throw new ApiError(50200001, '退款失败：支付平台暂时无法受理，请稍后重试')
          throw error
        }
        const { rows } = await findOrders(api.db, { query: row.id }, { limit: 1 })
        return orderWire(rows[0] ?? { ...row, payerPhone: null })
      })
    }
  )
}
