import { afterAll, beforeAll } from 'vitest'
import type { ModuleInstance, ToolModule } from '../../src/modules/module.js'
import { MODULES } from '../../src/modules/index.js'
import { payments } from '../../src/modules/payments/index.js'
import { createWechatV3Provider } from '../../src/modules/payments/wechat-v3.js'
import { type FakeWechatPayV3, startFakeWechatPayV3 } from '../fakes/wechat-pay-v3.js'
import { useHarness } from './database-hooks.js'

/**
 * A server whose payments module pays through WeChat Pay v3 only, against the protocol fake
 * (fakes/wechat-pay-v3.ts) started for the file, on the harness's clock; accounts start with no
 * allowance. `fake` stands for the running fake (it starts in beforeAll). With `platform:
 * 'certificates'` the fake signs with platform certificates the provider downloads.
 */
export function useWechatPayHarness(options: { platform?: 'public-key' | 'certificates'; env?: () => Record<string, string> } = {}) {
  const { env, ...fakeOptions } = options
  let running: FakeWechatPayV3 | undefined
  const withFake = {
    ...payments,
    create: (deps: Parameters<typeof payments.create>[0]) =>
      payments.create(deps, { providers: [createWechatV3Provider((running as FakeWechatPayV3).settings(), { now: deps.now })], reconcileMs: 0 })
  } as unknown as ToolModule<unknown, ModuleInstance>
  const ctx = useHarness(() => ({
    env: { START_TOKENS: '0', START_MJ_COUNT: '0', START_SUNO_COUNT: '0', SMS_HOURLY_PER_IP: '1000', ...env?.() },
    modules: MODULES.map((m) => (m.name === 'payments' ? withFake : (m as unknown as ToolModule<unknown, ModuleInstance>)))
  }))
  beforeAll(async () => {
    running = await startFakeWechatPayV3({ now: () => ctx.h.clock.now(), ...fakeOptions })
  })
  afterAll(async () => {
    await running?.close()
  })
  const fake = new Proxy({} as FakeWechatPayV3, {
    get(_, key) {
      const value = Reflect.get(running as FakeWechatPayV3, key)
      return typeof value === 'function' ? value.bind(running) : value
    }
  })
  return { ctx, fake }
}
