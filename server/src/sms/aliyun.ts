import { createHmac, randomUUID } from 'node:crypto'
import type { SmsProvider } from './provider.js'
import { type RetryAfter, type SmsFailureKind, SmsSendError, transportFailure } from './failure.js'

export interface AliyunSmsOptions {
  accessKeyId: string
  accessKeySecret: string
  /** 短信签名, as approved in the console, e.g. 阿里云短信测试. */
  signName: string
  /** The approved template's code, e.g. SMS_154950909; its variable must be `${code}`. */
  templateCode: string
  /** https://dysmsapi.aliyuncs.com (ALIYUN_SMS_ENDPOINT; tests: a loopback fake). */
  endpoint: string
  timeoutMs: number
  /** Test seams: the clock and the nonce of the signature. */
  now?: () => Date
  nonce?: () => string
}

/**
 * RFC 3986 percent-encoding as Aliyun's POP signature wants it: everything but A–Z a–z 0–9 - _ . ~
 * is encoded, a space is %20 (never +). encodeURIComponent leaves ! ' ( ) * alone, so those are added.
 */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

/** The parameters sorted by name, each `name=value` percent-encoded, joined with `&` (Signature itself excluded). */
export function canonicalQuery(params: Record<string, string>): string {
  return Object.keys(params)
    .filter((name) => name !== 'Signature')
    .sort()
    .map((name) => `${percentEncode(name)}=${percentEncode(params[name] ?? '')}`)
    .join('&')
}

/** `GET&%2F&` + the percent-encoded canonical query (signature version 1.0 of the RPC-style APIs). */
export function aliyunStringToSign(method: string, params: Record<string, string>): string {
  return `${method}&${percentEncode('/')}&${percentEncode(canonicalQuery(params))}`
}

/** Base64 of HMAC-SHA1 over the string to sign, keyed with `AccessKeySecret&`. */
export function aliyunSignature(method: string, params: Record<string, string>, accessKeySecret: string): string {
  return createHmac('sha1', `${accessKeySecret}&`).update(aliyunStringToSign(method, params), 'utf8').digest('base64')
}

/** ISO 8601 in UTC to the second, as the API wants it: 2017-07-12T02:42:19Z. */
export function aliyunTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`
}

/**
 * Aliyun's documented codes (help.aliyun.com/document_detail/101346), by what they mean for the
 * user. Codes not listed go by prefix (below), else count as an upstream failure.
 */
const CODES: Record<string, [SmsFailureKind, RetryAfter?]> = {
  'isv.BUSINESS_LIMIT_CONTROL': ['throttled'], // per-phone minute / hour / day limits; which one is in Message
  'isv.DAY_LIMIT_CONTROL': ['quota', 'day'], // the account's daily total set in the console
  'isv.MONTH_LIMIT_CONTROL': ['quota'],
  'isv.MOBILE_NUMBER_ILLEGAL': ['invalidPhone'],
  'isv.MOBILE_COUNT_OVER_LIMIT': ['invalidPhone'],
  'isv.BLACK_KEY_CONTROL_LIMIT': ['blocked'],
  'isv.DOMESTIC_NUMBER_NOT_SUPPORTED': ['unsupportedRegion'],
  'isv.AMOUNT_NOT_ENOUGH': ['config'],
  'isv.OUT_OF_SERVICE': ['config'],
  'isv.SMS_SIGNATURE_ILLEGAL': ['config'],
  'isv.SMS_SIGN_ILLEGAL': ['config'],
  'isv.SIGN_STATE_ILLEGAL': ['config'],
  'isv.SMS_TEMPLATE_ILLEGAL': ['config'],
  'isv.SMS_SIGNATURE_SCENE_ILLEGAL': ['config'],
  'isv.TEMPLATE_MISSING_PARAMETERS': ['config'],
  'isv.TEMPLATE_PARAMS_ILLEGAL': ['config'],
  'isv.INVALID_PARAMETERS': ['config'],
  'isv.INVALID_JSON_PARAM': ['config'],
  'isv.PARAM_LENGTH_LIMIT': ['config'],
  'isv.PRODUCT_UN_SUBSCRIPT': ['config'],
  'isv.PRODUCT_UNSUBSCRIBE': ['config'],
  'isv.ACCOUNT_NOT_EXISTS': ['config'],
  'isv.ACCOUNT_ABNORMAL': ['config'],
  'isv.DENY_IP_RANGE': ['config'],
  'isp.RAM_PERMISSION_DENY': ['config']
}

/** Gateway-level codes (signature, key, time, parameters) come in families. */
const PREFIXES: [string, SmsFailureKind][] = [
  ['SignatureDoesNotMatch', 'config'],
  ['SignatureNonceUsed', 'config'],
  ['IncompleteSignature', 'config'],
  ['InvalidAccessKeyId', 'config'],
  ['InvalidTimeStamp', 'config'],
  ['Forbidden', 'config'],
  ['MissingParameter', 'config'],
  ['InvalidParameter', 'config'],
  ['InvalidVersion', 'config'],
  ['InvalidAction', 'config'],
  ['Throttling', 'quota']
]

export function classifyAliyunCode(code: string, message: string): [SmsFailureKind, RetryAfter] {
  const known = CODES[code]
  if (known) {
    if (code === 'isv.BUSINESS_LIMIT_CONTROL') {
      // "触发分钟级流控Permits:1", "触发小时级流控Permits:5", "触发天级流控Permits:10"
      const retry: RetryAfter = /天|日|day/i.test(message) ? 'day' : /小时|hour/i.test(message) ? 'hour' : 'minute'
      return ['throttled', retry]
    }
    return [known[0], known[1]]
  }
  const family = PREFIXES.find(([prefix]) => code.startsWith(prefix))
  return [family ? family[1] : 'upstream', undefined]
}

/** The provider's text, short, without what a log line has no need for (a string to sign lists the phone). */
function detailOf(message: string, requestId: string | undefined): string {
  const text = message.replace(/\s*server string to sign is:.*$/s, '').slice(0, 200)
  return requestId ? `${text} (RequestId ${requestId})` : text
}

/**
 * Aliyun SMS (dysmsapi, API version 2017-05-25): `SendSms` as an RPC-style GET signed with
 * HMAC-SHA1, signature version 1.0. The code goes in TemplateParam as `{"code":"1234"}`.
 * Answers are JSON: `Code` "OK" is success; any other code is mapped to what the user is told.
 */
export function createAliyunSmsProvider(options: AliyunSmsOptions): SmsProvider {
  const endpoint = options.endpoint.replace(/\/+$/, '')
  const now = options.now ?? (() => new Date())
  const nonce = options.nonce ?? randomUUID
  return {
    async send(enCode, phone, code) {
      const params: Record<string, string> = {
        AccessKeyId: options.accessKeyId,
        Action: 'SendSms',
        Format: 'JSON',
        // Mainland numbers are sent bare; others with their calling code (Aliyun's international format).
        PhoneNumbers: enCode === '86' ? phone : `${enCode}${phone}`,
        RegionId: 'cn-hangzhou',
        SignName: options.signName,
        SignatureMethod: 'HMAC-SHA1',
        SignatureNonce: nonce(),
        SignatureVersion: '1.0',
        TemplateCode: options.templateCode,
        TemplateParam: JSON.stringify({ code }),
        Timestamp: aliyunTimestamp(now()),
        Version: '2017-05-25'
      }
      const signature = aliyunSignature('GET', params, options.accessKeySecret)
      const url = `${endpoint}/?Signature=${percentEncode(signature)}&${canonicalQuery(params)}`
      let status: number
      let text: string
      try {
        const res = await fetch(url, { method: 'GET', headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(options.timeoutMs) })
        status = res.status
        text = await res.text()
      } catch (error) {
        throw transportFailure('aliyun', error, options.timeoutMs)
      }
      let body: { Code?: unknown; Message?: unknown; RequestId?: unknown } | undefined
      try {
        body = JSON.parse(text)
      } catch {}
      const answer = typeof body?.Code === 'string' ? body.Code : undefined
      if (answer === 'OK' && status < 300) return
      const requestId = typeof body?.RequestId === 'string' ? body.RequestId : undefined
      if (!answer) throw new SmsSendError('aliyun', 'upstream', undefined, `HTTP ${status}, not an API answer: ${text.slice(0, 120)}`)
      const message = typeof body?.Message === 'string' ? body.Message : ''
      const [kind, retryAfter] = classifyAliyunCode(answer, message)
      throw new SmsSendError('aliyun', kind, answer, detailOf(message, requestId), { retryAfter })
    }
  }
}
