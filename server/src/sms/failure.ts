import { ApiError } from '../errors.js'

/**
 * Why a provider did not send a code, in the terms the user's answer depends on:
 * - `throttled`: this phone got too many codes (the provider's per-phone limits); retry later.
 * - `quota`: the operator's own sending cap (daily, monthly, API rate) was reached; retry later.
 * - `invalidPhone`: the provider says the number cannot be a phone (unallocated segment, bad format).
 * - `blocked`: the phone is on a blocklist (unsubscribed, carrier blocklist) or the message was held.
 * - `unsupportedRegion`: the account cannot send to this country or region.
 * - `config`: credentials, signature, sign name, template, balance: the operator must act.
 * - `timeout`: no answer in time; the message may or may not have gone out.
 * - `upstream`: anything else the provider or the network did.
 */
export type SmsFailureKind = 'throttled' | 'quota' | 'invalidPhone' | 'blocked' | 'unsupportedRegion' | 'config' | 'timeout' | 'upstream'

/**
 * A provider's refusal. The message is for operators (logs): provider, its error code and text,
 * its request id — never a credential. `userError` is what the user is told.
 */
export class SmsSendError extends Error {
  readonly provider: string
  readonly kind: SmsFailureKind
  /** The provider's own code, e.g. `isv.BUSINESS_LIMIT_CONTROL`; undefined for network failures. */
  readonly providerCode: string | undefined
  readonly userError: ApiError

  constructor(
    provider: string,
    kind: SmsFailureKind,
    providerCode: string | undefined,
    detail: string,
    options: { retryAfter?: RetryAfter; cause?: unknown } = {}
  ) {
    super(`${provider} SMS ${kindText[kind]}${providerCode ? `: ${providerCode}` : ''}${detail ? ` — ${detail}` : ''}`, { cause: options.cause })
    this.name = 'SmsSendError'
    this.provider = provider
    this.kind = kind
    this.providerCode = providerCode
    this.userError = userErrorOf(kind, options.retryAfter)
  }
}

const kindText: Record<SmsFailureKind, string> = {
  throttled: 'throttled this phone',
  quota: 'sending cap reached',
  invalidPhone: 'refused the phone number',
  blocked: 'blocked the message',
  unsupportedRegion: 'cannot send to this region',
  config: 'configuration or account problem (operator action needed)',
  timeout: 'did not answer in time',
  upstream: 'failed'
}

/** When a throttled phone may try again, as far as the provider's code says. */
export type RetryAfter = '30s' | 'minute' | 'hour' | 'day' | undefined

const retryText: Record<Exclude<RetryAfter, undefined>, string> = {
  '30s': '请 30 秒后再试',
  minute: '请 1 分钟后再试',
  hour: '请 1 小时后再试',
  day: '请明天再试'
}

export const SMS_FAILED_MESSAGE = '短信发送失败，请稍后重试'

function userErrorOf(kind: SmsFailureKind, retryAfter: RetryAfter): ApiError {
  switch (kind) {
    case 'throttled':
      return new ApiError(
        42900001,
        retryAfter === 'day' ? '该手机号今日获取验证码次数已达上限，请明天再试' : `该手机号获取验证码过于频繁，${retryText[retryAfter ?? 'minute']}`
      )
    case 'quota':
      return new ApiError(42900001, retryAfter === 'day' ? '今日短信发送量已达上限，请明天再试' : '短信发送繁忙，请稍后再试')
    case 'invalidPhone':
      return new ApiError(50011008, '手机号无效，无法接收短信，请检查后重试')
    case 'blocked':
      return new ApiError(40000001, '该手机号暂时无法接收验证码短信（已被拦截或退订），请更换手机号或联系客服')
    case 'unsupportedRegion':
      return new ApiError(40000001, '暂不支持向该国家或地区的手机号发送验证码')
    case 'timeout':
      return new ApiError(50400001, '短信服务响应超时，请稍后重试')
    default:
      return new ApiError(50200001, SMS_FAILED_MESSAGE)
  }
}

/**
 * The answer for a send that failed: a provider's verdict about this phone as it is (never a 5xx
 * for a throttled or blocked phone), anything else the generic upstream failure.
 */
export function smsFailureAnswer(error: unknown): ApiError {
  if (error instanceof SmsSendError) return error.userError
  return new ApiError(50200001, SMS_FAILED_MESSAGE)
}

/** A failure of fetch itself: our own deadline, or the network. */
export function transportFailure(provider: string, error: unknown, timeoutMs: number): SmsSendError {
  const name = (error as { name?: unknown } | undefined)?.name
  if (name === 'TimeoutError' || name === 'AbortError')
    return new SmsSendError(provider, 'timeout', undefined, `no answer within ${timeoutMs} ms`, { cause: error })
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause
  const detail = typeof cause?.code === 'string' ? cause.code : error instanceof Error ? error.message : String(error)
  return new SmsSendError(provider, 'upstream', undefined, `request failed (${detail})`, { cause: error })
}
