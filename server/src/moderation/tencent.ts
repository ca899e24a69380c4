import { tc3Authorization, tc3Sign } from '../sms/tencent.js'
import { postJson, str } from './http.js'
import { ModerationUnavailable, type TextProvider, type Verdict } from './types.js'

export interface TencentModerationOptions {
  secretId: string
  secretKey: string
  region: string
  /** https://tms.tencentcloudapi.com (MODERATION_TENCENT_ENDPOINT; tests: a loopback fake). */
  endpoint: string
  /** The policy (BizType) set up in the console; the default policy when absent. */
  bizType?: string
  timeoutMs: number
  /** Test seam: the clock (seconds are what is signed). */
  now?: () => number
}

const SUGGESTIONS: Record<string, Verdict> = { Block: 'block', Review: 'review', Pass: 'pass' }

/**
 * Tencent Cloud TMS, `TextModeration` of API version 2020-12-29: a JSON POST with the text in
 * base64, signed TC3-HMAC-SHA256 (sms/tencent.ts). `Response.Suggestion` is Block, Review or Pass;
 * a request-level failure comes as `Response.Error`.
 */
export function createTencentModeration(options: TencentModerationOptions): TextProvider {
  const endpoint = new URL(options.endpoint)
  const url = `${endpoint.origin}${endpoint.pathname}`
  const now = options.now ?? (() => Math.floor(Date.now() / 1000))
  return {
    name: 'tencent',
    async checkText(text) {
      const payload = JSON.stringify({ Content: Buffer.from(text, 'utf8').toString('base64'), ...(options.bizType ? { BizType: options.bizType } : {}) })
      const timestamp = now()
      const signedHeaders = { 'Content-Type': 'application/json; charset=utf-8', Host: endpoint.host, 'X-TC-Action': 'TextModeration' }
      const signed = tc3Sign(
        { method: 'POST', path: endpoint.pathname, query: '', headers: signedHeaders, payload, service: 'tms', timestamp },
        options.secretKey
      )
      const { status, body } = await postJson(
        'tencent',
        url,
        {
          headers: {
            'Content-Type': signedHeaders['Content-Type'],
            'X-TC-Action': 'TextModeration',
            'X-TC-Version': '2020-12-29',
            'X-TC-Region': options.region,
            'X-TC-Timestamp': String(timestamp),
            Authorization: tc3Authorization(options.secretId, signed)
          },
          body: payload
        },
        options.timeoutMs
      )
      const response = (body as { Response?: { Error?: { Code?: unknown; Message?: unknown }; Suggestion?: unknown; Label?: unknown; Keywords?: unknown } })
        .Response
      const verdict = SUGGESTIONS[str(response?.Suggestion) ?? '']
      if (!response || response.Error || !verdict) {
        throw new ModerationUnavailable(
          'tencent',
          `HTTP ${status}, ${str(response?.Error?.Code) ?? 'no Suggestion'} ${str(response?.Error?.Message) ?? ''}`.slice(0, 200)
        )
      }
      const keywords = Array.isArray(response.Keywords) ? response.Keywords.filter((k): k is string => typeof k === 'string') : []
      return verdict === 'pass' ? { verdict } : { verdict, rule: [str(response.Label), keywords.join(',')].filter(Boolean).join(':') || undefined }
    }
  }
}
