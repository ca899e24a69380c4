import type { Db } from '../db/database.js'
import type { SmsPurpose } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { Kv } from '../kv/kv.js'
import type { Logger } from '../logger.js'
import { smsFailureAnswer } from '../sms/failure.js'
import type { SmsProvider } from '../sms/provider.js'
import { type Phone, phoneKey } from './phone.js'
import { randomCode, storeCode, voidCode } from './sms-codes.js'

export const RESEND_WINDOW_MS = 60_000
const HOUR_MS = 60 * 60 * 1000

export interface SmsSenderDeps {
  db: Db
  kv: Kv
  sms: SmsProvider
  logger: Logger
  now: () => number
  /** Sends per phone per hour; 0 means no cap. */
  hourlyPerPhone: number
  /** Sends per client address per hour; 0 means no cap. */
  hourlyPerIp: number
}

function retryAfter(ms: number): string {
  const minutes = Math.ceil(ms / 60_000)
  return minutes <= 1 ? '1 分钟' : `${minutes} 分钟`
}

/**
 * Sends a fresh code to a phone, under the resend window and the hourly caps. The window is
 * taken first with an atomic set-if-absent, so of two concurrent requests exactly one sends.
 */
export function createSmsSender(deps: SmsSenderDeps) {
  const { db, kv, sms, logger, now } = deps

  async function overCap(key: string, cap: number): Promise<number> {
    if (cap <= 0) return 0
    const count = await kv.incr(key, HOUR_MS)
    return count > cap ? Math.max(1, await kv.ttl(key)) : 0
  }

  return async function sendCode(phone: Phone, purpose: SmsPurpose, clientAddress: string): Promise<void> {
    const windowKey = `sms:resend:${phoneKey(phone)}`
    if (!(await kv.setIfAbsent(windowKey, RESEND_WINDOW_MS))) {
      const seconds = Math.max(1, Math.ceil((await kv.ttl(windowKey)) / 1000))
      throw new ApiError(50011007, `验证码已发送，请 ${seconds} 秒后再试`)
    }
    let sent = false
    try {
      // The address cap comes first: it is the one a script cycling through phones hits.
      const addressWait = await overCap(`sms:hour:addr:${clientAddress}`, deps.hourlyPerIp)
      if (addressWait) throw new ApiError(42900001, `获取验证码过于频繁，请 ${retryAfter(addressWait)}后再试`)
      const phoneWait = await overCap(`sms:hour:phone:${phoneKey(phone)}`, deps.hourlyPerPhone)
      if (phoneWait) throw new ApiError(42900001, `该手机号获取验证码过于频繁，请 ${retryAfter(phoneWait)}后再试`)

      const code = randomCode()
      const id = await storeCode(db, phone, purpose, code, now())
      try {
        await sms.send(phone.enCode, phone.phone, code, purpose)
      } catch (error) {
        logger.error('sms send failed', { error, enCode: phone.enCode, purpose })
        await voidCode(db, id, now())
        // The provider's verdict on this phone (throttled, invalid, blocked) as it is; else 50200001.
        throw smsFailureAnswer(error)
      }
      sent = true
    } finally {
      // Nothing went out: do not make the user wait out a window for a message they never got.
      if (!sent) await kv.del(windowKey)
    }
  }
}

export type SendCode = ReturnType<typeof createSmsSender>
