import { eq } from 'drizzle-orm'
import { z } from 'zod'
import { payOrders } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { clientAddress } from '../../http/client-address.js'
import type { Kv } from '../../kv/kv.js'
import { paged } from '../../http/fields.js'
import { DEMO_PAGE_CSP, demoPage } from './demo.js'
import { listPackages } from './packages.js'
import type { NotifyAnswer, PayProvider } from './provider.js'
import type { PaymentService } from './service.js'
import { createOrderBody, listOrdersBody, orderIdBody, PAY_BASE, PROVIDERS, type ProviderName, packageSchema, payOrderSchema, providerSchema } from './wire.js'

/** The largest notify body read (WeChat's are about 1 KB, Alipay's a few). */
const MAX_NOTIFY_BYTES = 64 * 1024

/** order/create calls an account may make in a minute (each may reach a provider's API). */
export const CREATES_PER_MINUTE = 10
const MINUTE_MS = 60_000

/** The demo's confirm: signs a notify and sends it down the notify path, as the provider's server would. */
export type DemoSigner = PayProvider & {
  signNotify(n: { orderId: string; amountFen: number; tradeNo: string }): { headers: Record<string, string>; body: string }
}

export function registerPaymentRoutes(
  api: Api,
  service: PaymentService,
  o: { trustProxy: number; demo: DemoSigner | undefined; kv: Kv; providers: ReadonlyMap<ProviderName, PayProvider> }
): void {
  const { db } = api
  const tag = 'payments'
  const path = (p: string) => `${PAY_BASE}/${p}`

  defineRoute(
    api,
    path('packages'),
    { tag, summary: 'Recharge packages on sale, in the operator’s order', body: z.object({}), response: z.array(packageSchema) },
    async () =>
      (await listPackages(db)).map((p) => ({
        id: p.id,
        name: p.name,
        priceFen: p.priceFen,
        grants: p.grants,
        validityDays: p.validityDays,
        badge: p.badge,
        sort: p.sort
      }))
  )

  defineRoute(
    api,
    path('providers'),
    {
      tag,
      summary: 'The ways to pay this server offers, each with its scenes (演示支付 is `demo: true`)',
      body: z.object({}),
      response: z.array(providerSchema)
    },
    async () => [...o.providers.values()].map((p) => ({ provider: p.name, scenes: [...p.scenes], demo: p.demo }))
  )

  defineRoute(
    api,
    path('order/create'),
    {
      tag,
      summary: 'Order a package: the amount is the package’s; the same idempotencyKey answers the same order',
      auth: true,
      body: createOrderBody,
      response: payOrderSchema
    },
    async ({ c, auth, body }) => {
      // Per account, a fixed window: a script cannot make a provider's API (or the table) its toy.
      const key = `pay:create:${auth.account.id}`
      if ((await o.kv.incr(key, MINUTE_MS)) > CREATES_PER_MINUTE) {
        const seconds = Math.max(1, Math.ceil((await o.kv.ttl(key)) / 1000))
        throw new ApiError(42900001, `下单过于频繁，请 ${seconds} 秒后再试`)
      }
      return service.toWire(await service.createOrder(auth.account.id, body, clientAddress(c, o.trustProxy)))
    }
  )

  defineRoute(
    api,
    path('order/get'),
    { tag, summary: 'One of my orders (a pending one is asked about at its provider)', auth: true, body: orderIdBody, response: payOrderSchema },
    async ({ auth, body }) => {
      const order = await service.ownOrder(auth.account.id, body.orderId)
      if (order.status !== 'pending') return service.toWire(order)
      const synced = await service.sync(order.id).catch(() => order)
      return service.toWire(synced ?? order)
    }
  )

  defineRoute(
    api,
    path('order/list'),
    { tag, summary: 'My orders, newest first', auth: true, body: listOrdersBody, response: paged(payOrderSchema) },
    async ({ auth, body }) => service.listOrders(auth.account.id, body)
  )

  // ---- provider callbacks (not JSON calls: each answers as its protocol wants) ----------------

  const send = (a: NotifyAnswer) =>
    new Response(a.status === 204 ? null : a.body, { status: a.status, headers: a.contentType ? { 'Content-Type': a.contentType } : {} })

  api.docs.push({
    method: 'post',
    path: `${PAY_BASE}/notify/{provider}`,
    tag,
    summary: 'Payment notify of a provider (wechat, alipay, demo): verified, then applied once; answered as the provider’s protocol requires',
    auth: false,
    operationId: 'payNotify',
    parameters: [{ name: 'provider', in: 'path', description: PROVIDERS.join(' | ') }],
    bodyContentType: 'application/json',
    responses: {
      200: { description: 'Applied (Alipay: `success`)', contentType: 'text/plain' },
      204: { description: 'Applied (WeChat Pay)' }
    }
  })
  api.app.post(`${PAY_BASE}/notify/:provider`, async (c) => {
    const name = c.req.param('provider') as ProviderName
    if (!PROVIDERS.includes(name)) throw new ApiError(40400001, '支付方式不存在')
    const length = Number(c.req.header('content-length') ?? 0)
    if (length > MAX_NOTIFY_BYTES) throw new ApiError(40000003, '通知内容过大')
    const body = await c.req.text()
    if (body.length > MAX_NOTIFY_BYTES) throw new ApiError(40000003, '通知内容过大')
    const answer = await service.notify(name, { header: (h) => c.req.header(h), body }, clientAddress(c, o.trustProxy))
    if (answer.status === 404) throw new ApiError(40400001, '支付方式未开通')
    return send(answer)
  })

  // ---- the demo's pay page ------------------------------------------------------------------

  api.docs.push({
    method: 'get',
    path: `${PAY_BASE}/demo/{orderId}`,
    tag,
    summary: '演示支付: the pay page of a demo order (a form that confirms it)',
    auth: false,
    operationId: 'payDemoPage',
    parameters: [{ name: 'orderId', in: 'path' }],
    contentType: 'text/html'
  })
  api.app.get(`${PAY_BASE}/demo/:orderId`, async (c) => {
    const order = await demoOrder(c.req.param('orderId'))
    return c.html(demoPage({ orderId: order.id, name: order.packageName, amountFen: order.amountFen, status: order.status }), 200, {
      'Content-Security-Policy': DEMO_PAGE_CSP,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer'
    })
  })

  api.docs.push({
    method: 'post',
    path: `${PAY_BASE}/demo/{orderId}/confirm`,
    tag,
    summary: '演示支付: 确认支付 — sends the demo’s signed notify through the notify path, then shows the page again',
    auth: false,
    operationId: 'payDemoConfirm',
    parameters: [{ name: 'orderId', in: 'path' }],
    bodyContentType: 'application/x-www-form-urlencoded',
    responses: { 303: { description: 'Back to the pay page', headers: { Location: 'The pay page' } } }
  })
  api.app.post(`${PAY_BASE}/demo/:orderId/confirm`, async (c) => {
    const order = await demoOrder(c.req.param('orderId'))
    const demo = o.demo
    if (demo && order.status === 'pending' && order.expiresAt.getTime() > api.now()) {
      const signed = demo.signNotify({ orderId: order.id, amountFen: order.amountFen, tradeNo: `DEMO${order.id}` })
      const lower = Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k.toLowerCase(), v]))
      await service.notify('demo', { header: (h) => lower[h.toLowerCase()], body: signed.body }, 'demo-page')
    }
    return c.redirect(`${PAY_BASE}/demo/${encodeURIComponent(order.id)}`, 303)
  })

  async function demoOrder(orderId: string) {
    if (!o.demo) throw new ApiError(40400001, '演示支付未开启')
    const [order] = await db.select().from(payOrders).where(eq(payOrders.id, orderId))
    if (order?.provider !== 'demo') throw new ApiError(40400001, '订单不存在')
    return order
  }
}
