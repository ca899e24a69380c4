import { randomUUID } from 'node:crypto'
import { aliyunSignature, aliyunTimestamp, canonicalQuery, percentEncode } from '../sms/aliyun.js'
import { postJson, str } from './http.js'
import { type ModerationKind, ModerationUnavailable, type TextProvider, type Verdict } from './types.js'

export interface AliyunModerationOptions {
  accessKeyId: string
  accessKeySecret: string
  /** https://green-cip.cn-shanghai.aliyuncs.com (MODERATION_ALIYUN_ENDPOINT; tests: a loopback fake). */
  endpoint: string
  timeoutMs: number
  /** Test seams: the clock and the nonce of the signature. */
  now?: () => Date
  nonce?: () => string
}

/** The TextModerationPlus service per kind: the LLM scenes for prompts and replies, the nickname scene for names. */
export const ALIYUN_SERVICES: Record<ModerationKind, string> = {
  chat: 'llm_query_moderation',
  prompt: 'llm_query_moderation',
  name: 'nickname_detection_pro',
  reply: 'llm_response_moderation',
  image: 'llm_query_moderation'
}

/** RiskLevel of the answer: high is refused, medium goes to review, low and none pass. */
const LEVELS: Record<string, Verdict> = { high: 'block', medium: 'review', low: 'pass', none: 'pass' }

/**
 * Aliyun Content Moderation (green-cip, API version 2022-03-02), `TextModerationPlus`: an RPC-style
 * POST, its parameters form-encoded in the body and signed like every RPC API (HMAC-SHA1, signature
 * version 1.0, the helpers of sms/aliyun.ts). `Code` 200 carries `Data.RiskLevel` and the labels.
 */
export function createAliyunModeration(options: AliyunModerationOptions): TextProvider {
  const endpoint = options.endpoint.replace(/\/+$/, '')
  const now = options.now ?? (() => new Date())
  const nonce = options.nonce ?? randomUUID
  return {
    name: 'aliyun',
    async checkText(text, kind) {
      const params: Record<string, string> = {
        AccessKeyId: options.accessKeyId,
        Action: 'TextModerationPlus',
        Format: 'JSON',
        Service: ALIYUN_SERVICES[kind],
        ServiceParameters: JSON.stringify({ content: text }),
        SignatureMethod: 'HMAC-SHA1',
        SignatureNonce: nonce(),
        SignatureVersion: '1.0',
        Timestamp: aliyunTimestamp(now()),
        Version: '2022-03-02'
      }
      const signature = aliyunSignature('POST', params, options.accessKeySecret)
      const { status, body } = await postJson(
        'aliyun',
        `${endpoint}/`,
        {
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
          body: `Signature=${percentEncode(signature)}&${canonicalQuery(params)}`
        },
        options.timeoutMs
      )
      const answer = body as { Code?: unknown; Message?: unknown; Data?: { RiskLevel?: unknown; Result?: { Label?: unknown; RiskWords?: unknown }[] } }
      if (answer.Code !== 200 || !answer.Data) {
        throw new ModerationUnavailable('aliyun', `HTTP ${status}, ${String(answer.Code)} ${str(answer.Message) ?? ''}`.slice(0, 200))
      }
      const verdict = LEVELS[str(answer.Data.RiskLevel) ?? 'none'] ?? 'review'
      const first = answer.Data.Result?.find((r) => str(r.Label) && r.Label !== 'nonLabel')
      const words = str(first?.RiskWords)
      return verdict === 'pass' ? { verdict } : { verdict, rule: [str(first?.Label), words].filter(Boolean).join(':') || undefined }
    }
  }
}
