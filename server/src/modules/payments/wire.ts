import { z } from 'zod'
import { idField, oneOf, pageFields, requiredText } from '../../http/fields.js'

export const PAY_BASE = '/api/v1/pay'
export const PROVIDERS = ['demo', 'wechat', 'alipay'] as const
export const SCENES = ['native', 'h5', 'jsapi', 'page', 'wap'] as const
export const ORDER_STATUSES = ['pending', 'paid', 'closed', 'refunded'] as const

export type ProviderName = (typeof PROVIDERS)[number]
export type Scene = (typeof SCENES)[number]
export type OrderStatus = (typeof ORDER_STATUSES)[number]

/** A package as the user center shows it; `grants` by allowance kind id (tokens, mj, suno, …). */
export const packageSchema = z.object({
  id: z.string(),
  name: z.string(),
  priceFen: z.number(),
  grants: z.record(z.string(), z.number()),
  validityDays: z.number().nullable(),
  badge: z.string().nullable(),
  sort: z.number()
})

/** A way to pay this server offers (`pay/providers`). */
export const providerSchema = z.object({ provider: z.enum(PROVIDERS), scenes: z.array(z.enum(SCENES)), demo: z.boolean() })

/**
 * What the browser needs to pay, as the provider answered: `payUrl` (the demo page, or Alipay's
 * form URL), `codeUrl` (WeChat Native: draw it as a QR code), `h5Url` (WeChat H5), or the JSAPI
 * parameters for WeixinJSBridge (`appId`, `timeStamp`, `nonceStr`, `package`, `signType`, `paySign`).
 */
export const paymentSchema = z.record(z.string(), z.string())

export const payOrderSchema = z.object({
  orderId: z.string(),
  packageId: z.string(),
  packageName: z.string(),
  grants: z.record(z.string(), z.number()),
  amountFen: z.number(),
  provider: z.enum(PROVIDERS),
  scene: z.enum(SCENES),
  status: z.enum(ORDER_STATUSES),
  /** Null once the order is no longer pending (nothing left to pay). */
  payment: paymentSchema.nullable(),
  /** 演示支付: no money moves. */
  demo: z.boolean(),
  refundedFen: z.number(),
  createTime: z.number(),
  expireTime: z.number(),
  payTime: z.number().nullable()
})

export const createOrderBody = z.object({
  packageId: idField('packageId'),
  provider: oneOf('provider', PROVIDERS),
  scene: oneOf('scene', SCENES),
  /** The client's key for this purchase: the same key answers the same order. */
  idempotencyKey: requiredText('idempotencyKey', { max: 64 }).regex(/^[A-Za-z0-9_-]+$/, 'idempotencyKey 只能包含字母、数字、- 和 _')
})

export const orderIdBody = z.object({ orderId: idField('orderId') })
export const listOrdersBody = z.object({ ...pageFields, status: oneOf('status', ORDER_STATUSES).optional() })
