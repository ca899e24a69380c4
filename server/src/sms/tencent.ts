import { createHash, createHmac } from 'node:crypto'
import type { SmsProvider } from './provider.js'
import { type RetryAfter, type SmsFailureKind, SmsSendError, transportFailure } from './failure.js'

export interface TencentSmsOptions {
  secretId: string
  secretKey: string
  /** 短信 SdkAppId of the application in the SMS console, e.g. 1400006666. */
  sdkAppId: string
  /** 短信签名, as approved, e.g. 腾讯云. */
  signName: string
  /** The approved template's id; its first variable `{1}` receives the code. */
  templateId: string
  /** ap-guangzhou (default), ap-beijing or ap-nanjing. */
  region: string
  /** https://sms.tencentcloudapi.com (TENCENT_SMS_ENDPOINT; tests: a loopback fake). */
  endpoint: string
  timeoutMs: number
  /** Test seam: the clock (seconds are what is signed). */
  now?: () => number
}

export const TC3_ALGORITHM = 'TC3-HMAC-SHA256'

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest()

export interface Tc3Request {
  method: string
  /** The URL path, `/` for the API. */
  path: string
  /** The query string without `?` (empty for POST). */
  query: string
  /** The headers to sign, any case; values as sent. */
  headers: Record<string, string>
  /** The exact body bytes sent. */
  payload: string | Buffer
  service: string
  /** Unix seconds, the same as X-TC-Timestamp. */
  timestamp: number
}

/** The UTC date of a Unix timestamp, yyyy-mm-dd: the credential scope's date. */
export function tc3Date(timestamp: number): string {
  return new Date(timestamp * 1000).toISOString().slice(0, 10)
}

/**
 * TencentCloud API 3.0 signature, TC3-HMAC-SHA256: a canonical request (method, path, query,
 * lower-cased `name:value` headers sorted by name, the signed header names, the payload's SHA-256),
 * a string to sign (algorithm, timestamp, scope `date/service/tc3_request`, the canonical request's
 * SHA-256), and a key derived as HMAC("TC3"+SecretKey, date) → service → "tc3_request".
 */
export function tc3Sign(request: Tc3Request, secretKey: string) {
  const headers = Object.entries(request.headers)
    .map(([name, value]) => [name.toLowerCase().trim(), value.toLowerCase().trim()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const canonicalHeaders = headers.map(([name, value]) => `${name}:${value}\n`).join('')
  const signedHeaders = headers.map(([name]) => name).join(';')
  const canonicalRequest = [request.method, request.path, request.query, canonicalHeaders, signedHeaders, sha256Hex(request.payload)].join('\n')
  const date = tc3Date(request.timestamp)
  const scope = `${date}/${request.service}/tc3_request`
  const stringToSign = [TC3_ALGORITHM, String(request.timestamp), scope, sha256Hex(canonicalRequest)].join('\n')
  const signingKey = hmac(hmac(hmac(`TC3${secretKey}`, date), request.service), 'tc3_request')
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex')
  return { canonicalRequest, stringToSign, signedHeaders, scope, signature }
}

/** The Authorization header: `TC3-HMAC-SHA256 Credential=id/scope, SignedHeaders=…, Signature=…`. */
export function tc3Authorization(secretId: string, signed: { scope: string; signedHeaders: string; signature: string }): string {
  return `${TC3_ALGORITHM} Credential=${secretId}/${signed.scope}, SignedHeaders=${signed.signedHeaders}, Signature=${signed.signature}`
}

/**
 * Tencent Cloud SMS's documented codes (cloud.tencent.com/document/api/382/55981 and /59177),
 * by what they mean for the user. Codes not listed go by family (below), else count as an upstream failure.
 */
const CODES: Record<string, [SmsFailureKind, RetryAfter?]> = {
  'LimitExceeded.PhoneNumberThirtySecondLimit': ['throttled', '30s'],
  'LimitExceeded.PhoneNumberOneHourLimit': ['throttled', 'hour'],
  'LimitExceeded.PhoneNumberDailyLimit': ['throttled', 'day'],
  'LimitExceeded.PhoneNumberSameContentDailyLimit': ['throttled', 'day'],
  'LimitExceeded.DeliveryFrequencyLimit': ['throttled', 'minute'],
  'LimitExceeded.AppDailyLimit': ['quota', 'day'],
  'LimitExceeded.DailyLimit': ['quota', 'day'],
  'LimitExceeded.AppGlobalDailyLimit': ['quota', 'day'],
  'LimitExceeded.AppMainlandChinaDailyLimit': ['quota', 'day'],
  'LimitExceeded.AppCountryOrRegionDailyLimit': ['quota', 'day'],
  'InvalidParameterValue.IncorrectPhoneNumber': ['invalidPhone'],
  'FailedOperation.PhoneNumberParseFail': ['invalidPhone'],
  'FailedOperation.PhoneNumberInBlacklist': ['blocked'],
  'UnsupportedOperation.UnsupportedRegion': ['unsupportedRegion'],
  'UnsupportedOperation.ChineseMainlandTemplateToGlobalPhone': ['unsupportedRegion'],
  'UnsupportedOperation.GlobalTemplateToChineseMainlandPhone': ['unsupportedRegion'],
  'FailedOperation.InsufficientBalanceInSmsPackage': ['config'],
  'FailedOperation.SignatureIncorrectOrUnapproved': ['config'],
  'FailedOperation.TemplateIncorrectOrUnapproved': ['config'],
  'FailedOperation.MissingSignatureList': ['config'],
  'FailedOperation.MissingTemplateList': ['config'],
  'FailedOperation.ContainSensitiveWord': ['config'],
  'InvalidParameterValue.SdkAppIdNotExist': ['config'],
  'InvalidParameterValue.TemplateParameterFormatError': ['config'],
  'InvalidParameterValue.TemplateParameterLengthLimit': ['config']
}

const PREFIXES: [string, SmsFailureKind][] = [
  ['AuthFailure', 'config'],
  ['UnauthorizedOperation', 'config'],
  ['MissingParameter', 'config'],
  ['InvalidParameter', 'config'],
  ['InvalidAction', 'config'],
  ['NoSuchVersion', 'config'],
  ['RequestLimitExceeded', 'quota'],
  ['LimitExceeded', 'quota']
]

export function classifyTencentCode(code: string): [SmsFailureKind, RetryAfter] {
  const known = CODES[code]
  if (known) return [known[0], known[1]]
  const family = PREFIXES.find(([prefix]) => code.startsWith(prefix))
  return [family ? family[1] : 'upstream', undefined]
}

interface TencentAnswer {
  Response?: {
    Error?: { Code?: unknown; Message?: unknown }
    SendStatusSet?: { Code?: unknown; Message?: unknown }[]
    RequestId?: unknown
  }
}

/**
 * Tencent Cloud SMS, `SendSms` of API version 2021-01-11 at sms.tencentcloudapi.com: a JSON POST
 * signed with TC3-HMAC-SHA256 (signed headers content-type, host, x-tc-action). The code is the
 * template's one parameter. A request-level failure comes as `Response.Error`; the phone's own
 * outcome is `Response.SendStatusSet[0].Code`, "Ok" on success.
 */
export function createTencentSmsProvider(options: TencentSmsOptions): SmsProvider {
  const endpoint = new URL(options.endpoint)
  const url = `${endpoint.origin}${endpoint.pathname}`
  const now = options.now ?? (() => Math.floor(Date.now() / 1000))
  return {
    async send(enCode, phone, code) {
      const payload = JSON.stringify({
        PhoneNumberSet: [`+${enCode}${phone}`],
        SmsSdkAppId: options.sdkAppId,
        SignName: options.signName,
        TemplateId: options.templateId,
        TemplateParamSet: [code]
      })
      const timestamp = now()
      const signedHeaders = { 'Content-Type': 'application/json; charset=utf-8', Host: endpoint.host, 'X-TC-Action': 'SendSms' }
      const signed = tc3Sign(
        { method: 'POST', path: endpoint.pathname, query: '', headers: signedHeaders, payload, service: 'sms', timestamp },
        options.secretKey
      )
      const headers = {
        'Content-Type': signedHeaders['Content-Type'],
        'X-TC-Action': 'SendSms',
        'X-TC-Version': '2021-01-11',
        'X-TC-Region': options.region,
        'X-TC-Timestamp': String(timestamp),
        Authorization: tc3Authorization(options.secretId, signed)
      }
      let status: number
      let text: string
      try {
        const res = await fetch(url, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(options.timeoutMs) })
        status = res.status
        text = await res.text()
      } catch (error) {
        throw transportFailure('tencent', error, options.timeoutMs)
      }
      let body: TencentAnswer | undefined
      try {
        body = JSON.parse(text)
      } catch {}
      const response = body?.Response
      if (!response) throw new SmsSendError('tencent', 'upstream', undefined, `HTTP ${status}, not an API answer: ${text.slice(0, 120)}`)
      const requestId = typeof response.RequestId === 'string' ? ` (RequestId ${response.RequestId})` : ''
      const outcome = response.Error ?? response.SendStatusSet?.[0]
      const answer = typeof outcome?.Code === 'string' ? outcome.Code : undefined
      if (answer === 'Ok' && !response.Error) return
      if (!answer) throw new SmsSendError('tencent', 'upstream', undefined, `HTTP ${status}, no send status${requestId}`)
      const message = typeof outcome?.Message === 'string' ? outcome.Message.slice(0, 200) : ''
      const [kind, retryAfter] = classifyTencentCode(answer)
      throw new SmsSendError('tencent', kind, answer, `${message}${requestId}`, { retryAfter })
    }
  }
}
