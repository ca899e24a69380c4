import type { SmsProvider } from './provider.js'

export interface HttpSmsOptions {
  url: string
  token: string | undefined
  timeoutMs?: number
}

/**
 * The adapter point for a real SMS gateway: POSTs `{enCode, phone, code, purpose}` as JSON to
 * SMS_HTTP_URL with `Authorization: Bearer SMS_HTTP_TOKEN`. Any 2xx answer counts as sent.
 * A small relay in front of a vendor (Aliyun, Tencent Cloud, Twilio…) maps this to its API,
 * which keeps vendor keys and templates out of this server.
 */
export function createHttpSmsProvider({ url, token, timeoutMs = 10_000 }: HttpSmsOptions): SmsProvider {
  return {
    async send(enCode, phone, code, purpose) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' }
      if (token) headers.Authorization = `Bearer ${token}`
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ enCode, phone, code, purpose }),
        signal: AbortSignal.timeout(timeoutMs)
      })
      // Drain the body so the connection can be reused.
      const text = await res.text().catch(() => '')
      if (!res.ok) throw new Error(`SMS gateway answered HTTP ${res.status}: ${text.slice(0, 200)}`)
    }
  }
}
