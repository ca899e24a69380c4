import { createPrivateKey, createPublicKey, createSign, createVerify, type KeyObject } from 'node:crypto'
import type { PaymentSettings } from '../../config.js'
import { type NotifyResult, type PayProvider, ProviderError, type QueryResult, type RawNotify } from './provider.js'

type Settings = NonNullable<PaymentSettings['alipay']>

/** The string Alipay signs: the non-empty parameters but `sign` (and, for notifies, `sign_type`), sorted, `k=v` joined by `&`. */
export function alipaySignContent(params: Record<string, string>, exclude: readonly string[] = ['sign']): string {
  return Object.keys(params)
    .filter((k) => !exclude.includes(k) && params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&')
}

export const rsa2Sign = (key: KeyObject | string, content: string) => createSign('RSA-SHA256').update(content, 'utf8').sign(key, 'base64')

export function rsa2Verify(key: KeyObject | string, content: string, signature: string): boolean {
  try {
    return createVerify('RSA-SHA256').update(content, 'utf8').verify(key, signature, 'base64')
  } catch {
    return false
  }
}

/** yyyy-MM-dd HH:mm:ss in China time, as Alipay's `timestamp` and `time_expire` are written. */
export function alipayTime(at: Date): string {
  return new Date(at.getTime() + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ')
}

/** "9.90" → 990; NaN for anything that is not a yuan amount with at most two decimals. */
export function yuanToFen(text: string | undefined): number {
  const m = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text ?? '')
  if (!m) return Number.NaN
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'))
}

export const fenToYuan = (fen: number) => (fen / 100).toFixed(2)

/** The raw JSON text of `"<key>": {…}` in an answer (its signature covers these exact bytes). */
export function rawMember(text: string, key: string): string | undefined {
  const at = text.indexOf(`"${key}"`)
  if (at < 0) return undefined
  const start = text.indexOf('{', at + key.length + 2)
  if (start < 0) return undefined
  let depth = 0
  let quoted = false
  for (let i = start; i < text.length; i++) {
    const ch = text[i]
    if (quoted) {
      if (ch === '\\') i++
      else if (ch === '"') quoted = false
    } else if (ch === '"') quoted = true
    else if (ch === '{') depth++
    else if (ch === '}' && --depth === 0) return text.slice(start, i + 1)
  }
  return undefined
}

/**
 * Alipay (open platform gateway, RSA2 both ways): alipay.trade.page.pay (desktop) and wap.pay
 * (phone) as signed redirect URLs; the async notify verified with the Alipay public key; query,
 * close and refund through the gateway, each answer's signature checked.
 */
export function createAlipayProvider(settings: Settings, o: { now: () => number; fetch?: typeof fetch }): PayProvider {
  const appKey = createPrivateKey(settings.privateKey)
  const alipayKey = createPublicKey(settings.alipayPublicKey)
  const doFetch = o.fetch ?? fetch

  function signed(method: string, biz: Record<string, unknown>, extra: Record<string, string> = {}): Record<string, string> {
    const params: Record<string, string> = {
      app_id: settings.appId,
      method,
      format: 'JSON',
      charset: 'utf-8',
      sign_type: 'RSA2',
      timestamp: alipayTime(new Date(o.now())),
      version: '1.0',
      biz_content: JSON.stringify(biz),
      ...extra
    }
    return { ...params, sign: rsa2Sign(appKey, alipaySignContent(params)) }
  }

  /** One gateway call; answers the `<method>_response` object after checking its signature. */
  async function call(method: string, biz: Record<string, unknown>): Promise<Record<string, string>> {
    let text: string
    try {
      const res = await doFetch(settings.gateway, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=utf-8' },
        body: new URLSearchParams(signed(method, biz)).toString(),
        signal: AbortSignal.timeout(settings.timeoutMs)
      })
      text = await res.text()
    } catch (error) {
      throw new ProviderError('alipay', 'NETWORK', `Alipay unreachable: ${(error as Error).name}`)
    }
    const key = `${method.replaceAll('.', '_')}_response`
    const raw = rawMember(text, key)
    let parsed: { sign?: string } & Record<string, unknown>
    try {
      parsed = JSON.parse(text) as typeof parsed
    } catch {
      throw new ProviderError('alipay', 'BAD_ANSWER', 'Alipay answered no JSON')
    }
    const body = parsed[key] as Record<string, string> | undefined
    if (!raw || !body) throw new ProviderError('alipay', 'BAD_ANSWER', `Alipay answered without ${key}`)
    // Errors of the gateway itself (bad app id, bad signature) come unsigned; anything else must verify.
    if (body.code === '10000' || typeof parsed.sign === 'string') {
      if (!rsa2Verify(alipayKey, raw, String(parsed.sign ?? ''))) throw new ProviderError('alipay', 'BAD_SIGNATURE', 'Alipay answer signature is not valid')
    }
    return body
  }

  const fail = (b: Record<string, string>, what: string) =>
    new ProviderError('alipay', b.sub_code ?? b.code ?? '?', `${what}: ${b.code ?? ''} ${b.sub_code ?? ''} ${String(b.sub_msg ?? b.msg ?? '').slice(0, 200)}`)

  function verifyNotify(n: RawNotify): Promise<NotifyResult> {
    const refuse = (reason: string) => Promise.resolve<NotifyResult>({ ok: false, reason })
    const params = Object.fromEntries(new URLSearchParams(n.body))
    if (!params.sign || params.sign_type !== 'RSA2') return refuse('no RSA2 signature')
    if (!rsa2Verify(alipayKey, alipaySignContent(params, ['sign', 'sign_type']), params.sign)) return refuse('bad signature')
    if (params.app_id !== settings.appId) return refuse(`app_id ${String(params.app_id).slice(0, 32)} is not ours`)
    if (settings.sellerId && params.seller_id !== settings.sellerId) return refuse('seller_id is not ours')
    const amountFen = yuanToFen(params.total_amount)
    if (!params.out_trade_no || !Number.isSafeInteger(amountFen)) return refuse('notify without out_trade_no or total_amount')
    return Promise.resolve({
      ok: true,
      orderId: params.out_trade_no,
      amountFen,
      paid: params.trade_status === 'TRADE_SUCCESS' || params.trade_status === 'TRADE_FINISHED',
      providerTradeNo: params.trade_no ?? '',
      // A refund is announced by the trade's notify carrying refund_fee (what is refunded so far).
      ...(params.refund_fee !== undefined && Number.isSafeInteger(yuanToFen(params.refund_fee))
        ? { refund: { refundNo: params.out_biz_no ?? '', totalRefundedFen: yuanToFen(params.refund_fee), ok: true } }
        : {})
    })
  }

  return {
    name: 'alipay',
    scenes: ['page', 'wap'],
    demo: false,
    async create(request): Promise<Record<string, string>> {
      if (request.scene !== 'page' && request.scene !== 'wap') throw new ProviderError('alipay', 'SCENE', `no ${request.scene} scene`)
      const page = request.scene === 'page'
      const params = signed(
        page ? 'alipay.trade.page.pay' : 'alipay.trade.wap.pay',
        {
          out_trade_no: request.orderId,
          total_amount: fenToYuan(request.amountFen),
          subject: request.description.slice(0, 256),
          product_code: page ? 'FAST_INSTANT_TRADE_PAY' : 'QUICK_WAP_WAY',
          time_expire: alipayTime(request.expiresAt)
        },
        { notify_url: settings.notifyUrl, ...(settings.returnUrl ? { return_url: settings.returnUrl } : {}) }
      )
      // The browser is sent there (GET): Alipay's cashier page.
      return { payUrl: `${settings.gateway}?${new URLSearchParams(params).toString()}` }
    },
    verifyNotify,
    async query(orderId): Promise<QueryResult> {
      const b = await call('alipay.trade.query', { out_trade_no: orderId })
      if (b.code !== '10000') {
        if (b.sub_code === 'ACQ.TRADE_NOT_EXIST') return { state: 'unknown' }
        throw fail(b, 'query')
      }
      if (b.out_trade_no !== orderId) throw new ProviderError('alipay', 'MISMATCH', 'query answered another order')
      if (b.trade_status === 'TRADE_SUCCESS' || b.trade_status === 'TRADE_FINISHED') {
        return { state: 'paid', amountFen: yuanToFen(b.total_amount), providerTradeNo: b.trade_no ?? '' }
      }
      return { state: b.trade_status === 'TRADE_CLOSED' ? 'closed' : 'pending' }
    },
    async close(orderId) {
      const b = await call('alipay.trade.close', { out_trade_no: orderId })
      if (b.code === '10000' || b.sub_code === 'ACQ.TRADE_NOT_EXIST') return 'closed'
      if (b.sub_code === 'ACQ.TRADE_STATUS_ERROR') {
        const q = await this.query(orderId)
        return q.state === 'paid' ? 'paid' : 'closed'
      }
      throw fail(b, 'close')
    },
    async refund(request) {
      const b = await call('alipay.trade.refund', {
        out_trade_no: request.orderId,
        refund_amount: fenToYuan(request.amountFen),
        out_request_no: request.refundId,
        refund_reason: request.reason.slice(0, 256)
      })
      if (b.code !== '10000') throw fail(b, 'refund')
      return { providerRefundNo: b.trade_no ?? request.refundId }
    },
    answer: (ok) => ({ status: ok ? 200 : 400, body: ok ? 'success' : 'failure', contentType: 'text/plain; charset=utf-8' })
  }
}
