import { eq } from 'drizzle-orm'
import { payOrders } from '../../db/schema.js'
import type { Api } from '../../http/api.js'
import { uploadSecret } from '../../storage/secret.js'
import { defineModule, type ModuleDeps, type ModuleInstance } from '../module.js'
import { createAlipayProvider } from './alipay.js'
import { createDemoProvider } from './demo.js'
import { readPackageSeed, seedPackages } from './packages.js'
import type { PayProvider } from './provider.js'
import { type DemoSigner, registerPaymentRoutes } from './routes.js'
import { createPaymentService, type PaymentService } from './service.js'
import { createWechatV3Provider } from './wechat-v3.js'
import type { ProviderName } from './wire.js'

export const EXPIRE_JOB = 'payments:expire'
export const RECONCILE_JOB = 'payments:reconcile'

export interface PaymentsOptions {
  /** Replaces the configured providers (tests inject a WeChat Pay v3 client speaking to a fake). */
  providers?: PayProvider[]
  /** How often pending orders are reconciled with their provider (0: never; default 60 s). */
  reconcileMs?: number
}

/** The payment service of each app (the operator API refunds through the module's own providers). */
const services = new WeakMap<Api, PaymentService>()
export const paymentServiceOf = (api: Api): PaymentService | undefined => services.get(api)

export interface PaymentsInstance extends ModuleInstance {
  service: PaymentService
  providers: ReadonlyMap<ProviderName, PayProvider>
}

function createPayments(deps: ModuleDeps, options: PaymentsOptions = {}): PaymentsInstance {
  const { config } = deps
  const settings = config.payments
  const providers = new Map<ProviderName, PayProvider>()
  let demo: DemoSigner | undefined
  if (options.providers) {
    for (const p of options.providers) providers.set(p.name, p)
    const d = options.providers.find((p) => p.name === 'demo')
    if (d && 'signNotify' in d) demo = d as DemoSigner
  } else {
    if (settings.wechat) providers.set('wechat', createWechatV3Provider(settings.wechat, { now: deps.now, logger: deps.logger }))
    if (settings.alipay) providers.set('alipay', createAlipayProvider(settings.alipay, { now: deps.now }))
    if (settings.demo) {
      demo = createDemoProvider({ key: uploadSecret(config), publicUrl: config.publicUrl, now: deps.now })
      providers.set('demo', demo)
    }
  }
  const service = createPaymentService({
    db: deps.db,
    registry: deps.allowances,
    providers,
    logger: deps.logger,
    now: deps.now,
    bus: deps.bus,
    orderTtlMs: settings.orderTtlMs,
    // Each new order closes at its time, on whichever node runs the job.
    scheduleExpiry: (order) =>
      deps.jobs.add(EXPIRE_JOB, { orderId: order.id }, { id: order.id, delayMs: Math.max(0, order.expiresAt.getTime() - deps.now()) + 1000 })
  })
  const reconcileMs = options.reconcileMs ?? 60_000
  return {
    service,
    providers,
    jobs(queue) {
      queue.define<{ orderId: string }>(EXPIRE_JOB, (data) => service.expire(data.orderId), { concurrency: 4 })
      queue.define(RECONCILE_JOB, async () => {
        await service.reconcile()
      })
    },
    routes: (api) => {
      services.set(api, service)
      registerPaymentRoutes(api, service, { trustProxy: config.trustProxy, demo, kv: deps.kv, providers })
    },
    async start() {
      const seeded = await seedPackages(deps.db, deps.allowances, readPackageSeed(config.dataDir))
      if (seeded > 0) deps.logger.info('recharge packages seeded', { count: seeded })
      if (reconcileMs > 0) {
        deps.jobs
          .every(RECONCILE_JOB, reconcileMs)
          .catch((error: unknown) => deps.logger.error('scheduling payment reconciliation failed', { error: String(error) }))
      }
    },
    // Memory queue: expiry jobs died with the last run; the pending orders get theirs again.
    async resume() {
      if (deps.jobs.engine !== 'memory') return
      const pending = await deps.db.select({ id: payOrders.id, expiresAt: payOrders.expiresAt }).from(payOrders).where(eq(payOrders.status, 'pending'))
      for (const p of pending) await service.scheduleExpiry(p)
    }
  }
}

/** Online recharge: packages, orders, and the providers that take the money (演示支付, WeChat Pay v3, Alipay). */
export const payments = defineModule({
  name: 'payments',
  permissionCodes: [],
  allowanceKinds: 'all',
  create: createPayments
})
