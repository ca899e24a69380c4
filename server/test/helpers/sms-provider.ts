import { afterAll, beforeAll, beforeEach, expect } from 'vitest'
import { ConfigError, loadConfig, type SmsSettings } from '../../src/config.js'
import { createSmsProvider, type SmsProvider } from '../../src/sms/index.js'
import { useHarness } from './database-hooks.js'

/** What the fakes of a real SMS provider (fakes/aliyun-sms.ts, fakes/tencent-sms.ts) have in common. */
interface FakeSmsProvider {
  sent: unknown[]
  requests: unknown[]
  /** While true, requests are read and never answered. */
  hang: boolean
  close(): Promise<void>
}

/**
 * The hooks of a test file of one real SMS provider (sms-aliyun, sms-tencent): the provider's fake
 * for the file, emptied before each test, and the app configured by `env(fake)` sending through
 * `provider`, which a test may swap with `use` (a wrong secret, a short timeout).
 */
export function useSmsProvider<F extends FakeSmsProvider, K extends 'aliyun' | 'tencent'>(
  kind: K,
  start: () => Promise<F>,
  env: (fake: F) => Record<string, string>
) {
  let fake: F | undefined
  let provider: SmsProvider | undefined
  const theFake = () => {
    if (!fake) throw new Error('the SMS fake is not started (use it inside tests)')
    return fake
  }
  const ctx = useHarness(() => ({ env: env(theFake()), sms: { send: (...args) => provider!.send(...args) } }))

  beforeAll(async () => {
    fake = await start()
  })
  afterAll(async () => {
    await fake?.close()
  })
  beforeEach(() => {
    const f = theFake()
    f.sent.length = 0
    f.requests.length = 0
    f.hang = false
    provider = createSmsProvider(loadConfig(env(f)).sms)
  })

  /** Everything the app logged, as one string (the memory logger keeps raw fields: nothing is scrubbed). */
  const logText = () =>
    JSON.stringify(ctx.h.logger.entries, (_k, v) => (v instanceof Error ? { name: v.name, message: v.message, stack: v.stack, cause: v.cause } : v))

  return {
    ctx,
    logText,
    get fake() {
      return theFake()
    },
    /** The provider's settings the app reads from `env(fake)`, with the send timeout. */
    settings(): NonNullable<SmsSettings[K]> & { timeoutMs: number } {
      const sms = loadConfig(env(theFake())).sms
      const own = sms[kind]
      if (!own) throw new Error(`no ${kind} settings`)
      return { ...own, timeoutMs: sms.timeoutMs }
    },
    /** Sends through `next` from now on in this test. */
    use(next: SmsProvider) {
      provider = next
    },
    /**
     * A send the provider refused (scripted on the fake before) answers `status` and the envelope
     * `{code, message}`; the code that did not go out is void, the resend window is free again,
     * and the provider's code is in the log.
     */
    async expectRefusedSend(phone: string, providerCode: string, status: number, code: number, message: string) {
      const before = await ctx.h.snapshot()
      const res = await ctx.h.sendCode(phone)
      expect(res.status).toBe(status)
      expect(res.body).toEqual({ code, message, data: null })
      expect((await ctx.h.snapshot()).codes).toBe((before.codes ?? 0) + 1)
      expect((await ctx.h.sendCode(phone)).body.code).toBe(2000)
      expect(logText()).toContain(providerCode)
    },
    /** The fake never answers and `slow` (made with a 300 ms timeout) is used: the send ends in 504 well within 3 s. */
    async expectGivesUp(phone: string, slow: SmsProvider) {
      theFake().hang = true
      provider = slow
      const started = Date.now()
      const res = await ctx.h.sendCode(phone)
      expect(Date.now() - started).toBeLessThan(3000)
      expect(res.status).toBe(504)
      expect(res.body).toEqual({ code: 50400001, message: '短信服务响应超时，请稍后重试', data: null })
      expect(logText()).toContain(`${kind} SMS did not answer in time`)
    }
  }
}

/** The problems loadConfig lists for `env` (it must refuse to start). */
export function configProblems(env: Record<string, string>): string[] {
  let error: unknown
  try {
    loadConfig(env)
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(ConfigError)
  return (error as ConfigError).problems
}
