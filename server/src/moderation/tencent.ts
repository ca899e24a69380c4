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

/** IMS takes an image of at most 5 MB as FileContent (base64 in the body). */
const IMS_MAX_BYTES = 5 * 1024 * 1024

/**
 * The IMS endpoint beside a TMS one: ims.tencentcloudapi.com for tms.tencentcloudapi.com, or a
 * path ending in /ims for one ending in /tms (a proxy, the tests' fake).
 */
export function imsEndpoint(tms: string): URL {
  const url = new URL(tms)
  if (url.hostname.startsWith('tms.')) url.hostname = `ims.${url.hostname.slice(4)}`
  else url.pathname = url.pathname.replace(/tms\/?$/, 'ims')
  return url
}

type TencentAnswer = { Response?: { Error?: { Code?: unknown; Message?: unknown }; Suggestion?: unknown; Label?: unknown; Keywords?: unknown } }

/**
 * Tencent Cloud TMS `TextModeration` and IMS `ImageModeration`, both of API version 2020-12-29: a
 * JSON POST with the text or image in base64, signed TC3-HMAC-SHA256 (sms/tencent.ts) for the
 * service `tms` or `ims`. `Response.Suggestion` is Block, Review or Pass; a request-level failure
 * comes as `Response.Error`.
 */
export function createTencentModeration(options: TencentModerationOptions): TextProvider {
  const now = options.now ?? (() => Math.floor(Date.now() / 1000))

  async function call(endpoint: URL, service: 'tms' | 'ims', action: string, fields: Record<string, string>) {
    const payload = JSON.stringify({ ...fields, ...(options.bizType ? { BizType: options.bizType } : {}) })
    const timestamp = now()
    const signedHeaders = { 'Content-Type': 'application/json; charset=utf-8', Host: endpoint.host, 'X-TC-Action': action }
    const signed = tc3Sign({ method: 'POST', path: endpoint.pathname, query: '', headers: signedHeaders, payload, service, timestamp }, options.secretKey)
    const { status, body } = await postJson(
      'tencent',
      `${endpoint.origin}${endpoint.pathname}`,
      {
        headers: {
          'Content-Type': signedHeaders['Content-Type'],
          'X-TC-Action': action,
          'X-TC-Version': '2020-12-29',
          'X-TC-Region': options.region,
          'X-TC-Timestamp': String(timestamp),
          Authorization: tc3Authorization(options.secretId, signed)
        },
        body: payload
      },
      options.timeoutMs
    )
    const response = (body as TencentAnswer).Response
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

  const tms = new URL(options.endpoint)
  const ims = imsEndpoint(options.endpoint)
  return {
    name: 'tencent',
    checkText: (text) => call(tms, 'tms', 'TextModeration', { Content: Buffer.from(text, 'utf8').toString('base64') }),
    async checkImage(image) {
      if (image.bytes.length > IMS_MAX_BYTES) throw new ModerationUnavailable('tencent', `image of ${image.bytes.length} bytes is over IMS's 5 MB`)
      return call(ims, 'ims', 'ImageModeration', { FileContent: Buffer.from(image.bytes).toString('base64') })
    }
  }
}
