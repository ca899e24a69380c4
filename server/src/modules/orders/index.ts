import type { Config } from '../../config.js'
import { createDemoPayer, createWechatPayer, type RedPackPayer } from '../../wechat/redpack.js'
import { defineModule, type ModuleDeps, type ModuleInstance } from '../module.js'
import { createPayService, type PayService, type PayTuning } from './pay.js'
import { registerOrderRoutes } from './routes.js'
import { ORDER_PERMISSION, QUALITY_PERMISSION } from './wire.js'

export interface OrdersOptions {
  /** Replaces the configured payer (tests inject a WeChat Pay client or the demo). */
  payer?: RedPackPayer
  /** Claim, retry, wait and check timings of red-packet payments (tests shorten them). */
  pay?: Partial<PayTuning>
}

export interface OrdersInstance extends ModuleInstance {
  pay: PayService
}

/** The payer of the configuration: WeChat Pay v2 when WECHAT_PAY_MCH_ID is set, else the offline demo. */
export function configuredPayer(config: Config, now: () => number): RedPackPayer {
  const pay = config.wechat.pay
  return pay ? createWechatPayer({ settings: pay }) : createDemoPayer({ now, delayMs: config.wechat.demoDelayMs })
}

function createOrders(deps: ModuleDeps, options: OrdersOptions = {}): OrdersInstance {
  const { config } = deps
  const pay = createPayService({
    db: deps.db,
    payer: options.payer ?? configuredPayer(config, deps.now),
    now: deps.now,
    logger: deps.logger,
    jobs: deps.jobs,
    bus: deps.bus,
    mchId: config.wechat.pay?.mchId ?? '1900000000',
    demoDelayMs: config.wechat.demoDelayMs,
    ...(options.pay ? { tuning: options.pay } : {})
  })
  return {
    pay,
    jobs: (queue) => pay.defineJobs(queue),
    routes: (api) => registerOrderRoutes(api, pay, deps.replies),
    // Red packets being paid or followed by the last run (memory queue only; BullMQ keeps them in Redis).
    async resume() {
      await pay.resume()
    }
  }
}

/** The order platforms (普通 and 优质): activities, orders, AI drafts, and rewards paid as WeChat red packets. */
export const orders = defineModule({
  name: 'orders',
  permissionCodes: [ORDER_PERMISSION, QUALITY_PERMISSION],
  allowanceKinds: ['tokens'],
  channelCodes: [ORDER_PERMISSION, QUALITY_PERMISSION],
  replyCodes: [ORDER_PERMISSION, QUALITY_PERMISSION],
  create: createOrders
})
