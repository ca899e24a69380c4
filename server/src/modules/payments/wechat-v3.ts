import { createPrivateKey, randomBytes } from 'node:crypto'
import type { PaymentSettings } from '../../config.js'
import type { Logger } from '../../logger.js'
import { NOTIFY_WINDOW_S } from './demo.js'
import { type NotifyResult, type PayProvider, ProviderError, type QueryResult, type RawNotify } from './provider.js'
import { createCertificateStore, type PlatformKeys, type RawAnswer, staticPlatformKey } from './wechat-certificates.js'
import { chinaTime, decryptResource, signV3, verifyV3 } from './wechat-crypto.js'

type Settings = NonNullable<PaymentSettings['wechat']>

/** The decrypted resource of a REFUND.* notify (it has no appid). */
interface RefundResource {
  mchid?: string
  out_trade_no?: string
  transaction_id?: string
  out_refund_no?: string
  refund_status?: string
  amount?: { total?: number; refund?: number }
}

interface Transaction {
  mchid?: string
  appid?: string
  out_trade_no?: string
  transaction_id?: string
  trade_state?: string
  amount?: { total?: number }
}

const SCENE_PATHS = { native: 'native', h5: 'h5', jsapi: 'jsapi' } as const

/**
 * WeChat Pay API v3 (direct merchant): Native, H5 and JSAPI orders; requests signed
 * WECHATPAY2-SHA256-RSA2048 with the merchant key, answers and notifies verified with the WeChat
 * Pay public key, notify resources decrypted with the APIv3 key.
 */
export function createWechatV3Provider(settings: Settings, o: { now: () => number; fetch?: typeof fetch; logger?: Logger }): PayProvider {
  const merchantKey = createPrivateKey(settings.privateKey)
  const doFetch = o.fetch ?? fetch
  const nonce = () => randomBytes(16).toString('hex')
  const seconds = () => String(Math.floor(o.now() / 1000))

  /** One call signed with the merchant key; the raw answer, not verified yet. */
  async function send(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<RawAnswer> {
    const body = payload === undefined ? '' : JSON.stringify(payload)
    const ts = seconds()
    const n = nonce()
    const signature = signV3(merchantKey, [method, path, ts, n, body])
    const authorization = `WECHATPAY2-SHA256-RSA2048 mchid="${settings.mchId}",nonce_str="${n}",signature="${signature}",timestamp="${ts}",serial_no="${settings.serialNo}"`
    let res: Response
    try {
      res = await doFetch(`${settings.baseUrl}${path}`, {
        method,
        headers: { Authorization: authorization, Accept: 'application/json', 'User-Agent': 'lingxi', ...(body ? { 'Content-Type': 'application/json' } : {}) },
        ...(body ? { body } : {}),
        signal: AbortSignal.timeout(settings.timeoutMs)
      })
    } catch (error) {
      throw new ProviderError('wechat', 'NETWORK', `WeChat Pay unreachable: ${(error as Error).name}`)
    }
    const text = await res.text()
    return { status: res.status, header: (name) => res.headers.get(name) ?? undefined, text }
  }

  // The WeChat Pay public key when configured, else the platform certificates it serves (wechat-certificates.ts).
  const platform: PlatformKeys =
    settings.platformKey && settings.platformSerial
      ? staticPlatformKey(settings.platformSerial, settings.platformKey)
      : createCertificateStore({
          apiV3Key: settings.apiV3Key,
          now: o.now,
          download: () => send('GET', '/v3/certificates'),
          ...(o.logger ? { logger: o.logger } : {})
        })

  /** One signed call; answers the status and the parsed body, after checking the answer's signature. */
  async function call(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await send(method, path, payload)
    const { text } = res
    if (res.status >= 200 && res.status < 300) {
      // A success answer without a valid signature is treated as forged.
      const key = await platform.keyFor(res.header('wechatpay-serial') ?? '')
      const ok =
        key !== undefined &&
        verifyV3(key, [res.header('wechatpay-timestamp') ?? '', res.header('wechatpay-nonce') ?? '', text], res.header('wechatpay-signature') ?? '')
      if (!ok) throw new ProviderError('wechat', 'BAD_SIGNATURE', 'WeChat Pay answer signature is not valid')
    }
    let parsed: Record<string, unknown> = {}
    if (text) {
      try {
        parsed = JSON.parse(text) as Record<string, unknown>
      } catch {
        throw new ProviderError('wechat', 'BAD_ANSWER', `WeChat Pay answered ${res.status} with no JSON`)
      }
    }
    return { status: res.status, body: parsed }
  }

  const fail = (r: { status: number; body: Record<string, unknown> }, what: string) =>
    new ProviderError('wechat', String(r.body.code ?? r.status), `${what}: ${String(r.body.code ?? r.status)} ${String(r.body.message ?? '').slice(0, 200)}`)

  async function verifyNotify(n: RawNotify): Promise<NotifyResult> {
    const refuse = (reason: string): NotifyResult => ({ ok: false, reason })
    const ts = n.header('wechatpay-timestamp') ?? ''
    const nonceText = n.header('wechatpay-nonce') ?? ''
    const serial = n.header('wechatpay-serial') ?? ''
    const signature = n.header('wechatpay-signature') ?? ''
    if (!/^\d{1,12}$/.test(ts) || !nonceText || !signature) return refuse('missing Wechatpay headers')
    if (Math.abs(o.now() / 1000 - Number(ts)) > NOTIFY_WINDOW_S) return refuse('Wechatpay-Timestamp outside the window')
    const key = await platform.keyFor(serial)
    if (!key) return refuse(`unknown Wechatpay-Serial ${serial.slice(0, 64)}`)
    if (!verifyV3(key, [ts, nonceText, n.body], signature)) return refuse('bad Wechatpay-Signature')
    let event: { event_type?: string; resource?: { algorithm?: string; ciphertext?: string; nonce?: string; associated_data?: string } }
    let tx: Transaction
    try {
      event = JSON.parse(n.body) as typeof event
      const r = event.resource
      if (r?.algorithm !== 'AEAD_AES_256_GCM' || typeof r.ciphertext !== 'string' || typeof r.nonce !== 'string') return refuse('no encrypted resource')
      tx = JSON.parse(decryptResource(settings.apiV3Key, { ciphertext: r.ciphertext, nonce: r.nonce, associated_data: r.associated_data ?? '' })) as Transaction
    } catch {
      return refuse('resource cannot be decrypted or read')
    }
    if (tx.mchid !== settings.mchId) return refuse(`mchid ${String(tx.mchid).slice(0, 32)} is not ours`)
    if (event.event_type?.startsWith('REFUND.')) return readRefund(tx as RefundResource, event.event_type)
    if (tx.appid !== settings.appId) return refuse(`appid ${String(tx.appid).slice(0, 32)} is not ours`)
    if (typeof tx.out_trade_no !== 'string' || !Number.isSafeInteger(tx.amount?.total)) return refuse('transaction without out_trade_no or amount')
    return {
      ok: true,
      orderId: tx.out_trade_no,
      amountFen: tx.amount?.total as number,
      paid: event.event_type === 'TRANSACTION.SUCCESS' && tx.trade_state === 'SUCCESS',
      providerTradeNo: String(tx.transaction_id ?? '')
    }
  }

  /** REFUND.SUCCESS / REFUND.ABNORMAL / REFUND.CLOSED: the refund's order, number and amount. */
  function readRefund(r: RefundResource, eventType: string): NotifyResult {
    const total = r.amount?.total
    const refund = r.amount?.refund
    if (typeof r.out_trade_no !== 'string' || typeof r.out_refund_no !== 'string' || !Number.isSafeInteger(total) || !Number.isSafeInteger(refund))
      return { ok: false, reason: 'refund without out_trade_no, out_refund_no or amount' }
    return {
      ok: true,
      orderId: r.out_trade_no,
      amountFen: total as number,
      paid: false,
      providerTradeNo: String(r.transaction_id ?? ''),
      refund: { refundNo: r.out_refund_no, amountFen: refund as number, ok: eventType === 'REFUND.SUCCESS' && r.refund_status === 'SUCCESS' }
    }
  }

  return {
    name: 'wechat',
    scenes: ['native', 'h5', 'jsapi'],
    demo: false,
    appId: settings.appId,
    async create(request): Promise<Record<string, string>> {
      if (request.scene !== 'native' && request.scene !== 'h5' && request.scene !== 'jsapi')
        throw new ProviderError('wechat', 'SCENE', `no ${request.scene} scene`)
      const payload: Record<string, unknown> = {
        appid: settings.appId,
        mchid: settings.mchId,
        description: request.description.slice(0, 127),
        out_trade_no: request.orderId,
        time_expire: chinaTime(request.expiresAt),
        notify_url: settings.notifyUrl,
        amount: { total: request.amountFen, currency: 'CNY' }
      }
      if (request.scene === 'h5') payload.scene_info = { payer_client_ip: request.clientIp, h5_info: { type: 'Wap' } }
      if (request.scene === 'jsapi') payload.payer = { openid: request.openid ?? '' }
      const r = await call('POST', `/v3/pay/transactions/${SCENE_PATHS[request.scene]}`, payload)
      if (r.status !== 200) throw fail(r, 'create')
      if (request.scene === 'native' && typeof r.body.code_url === 'string') return { codeUrl: r.body.code_url }
      if (request.scene === 'h5' && typeof r.body.h5_url === 'string') return { h5Url: r.body.h5_url }
      if (request.scene === 'jsapi' && typeof r.body.prepay_id === 'string') {
        // The parameters of WeixinJSBridge getBrandWCPayRequest, signed with the merchant key.
        const timeStamp = seconds()
        const nonceStr = nonce()
        const pkg = `prepay_id=${r.body.prepay_id}`
        const paySign = signV3(merchantKey, [settings.appId, timeStamp, nonceStr, pkg])
        return { appId: settings.appId, timeStamp, nonceStr, package: pkg, signType: 'RSA', paySign }
      }
      throw new ProviderError('wechat', 'BAD_ANSWER', 'create answered without what the browser needs')
    },
    verifyNotify,
    async query(orderId): Promise<QueryResult> {
      const r = await call('GET', `/v3/pay/transactions/out-trade-no/${encodeURIComponent(orderId)}?mchid=${encodeURIComponent(settings.mchId)}`)
      if (r.status === 404) return { state: 'unknown' }
      if (r.status !== 200) throw fail(r, 'query')
      const tx = r.body as Transaction
      if (tx.mchid !== settings.mchId || tx.appid !== settings.appId || tx.out_trade_no !== orderId)
        throw new ProviderError('wechat', 'MISMATCH', 'query answered another order')
      switch (tx.trade_state) {
        case 'SUCCESS':
          return { state: 'paid', amountFen: Number(tx.amount?.total), providerTradeNo: String(tx.transaction_id ?? '') }
        case 'REFUND':
          return { state: 'refunded' }
        case 'CLOSED':
        case 'REVOKED':
        case 'PAYERROR':
          return { state: 'closed' }
        default:
          return { state: 'pending' }
      }
    },
    async close(orderId) {
      const r = await call('POST', `/v3/pay/transactions/out-trade-no/${encodeURIComponent(orderId)}/close`, { mchid: settings.mchId })
      if (r.status === 204 || r.status === 200) return 'closed'
      if (r.body.code === 'ORDERPAID') return 'paid'
      if (r.body.code === 'ORDERNOTEXIST' || r.body.code === 'ORDER_NOT_EXIST' || r.body.code === 'ORDER_CLOSED') return 'closed'
      throw fail(r, 'close')
    },
    async refund(request) {
      const r = await call('POST', '/v3/refund/domestic/refunds', {
        out_trade_no: request.orderId,
        out_refund_no: request.refundId,
        reason: request.reason.slice(0, 80),
        // Its REFUND.* notify comes to the same URL as the payments' (refund.ts applies it once).
        notify_url: settings.notifyUrl,
        amount: { refund: request.amountFen, total: request.totalFen, currency: 'CNY' }
      })
      if (r.status !== 200 || (r.body.status !== 'SUCCESS' && r.body.status !== 'PROCESSING')) throw fail(r, 'refund')
      return { providerRefundNo: String(r.body.refund_id ?? '') }
    },
    answer: (ok) =>
      ok ? { status: 204, body: '' } : { status: 400, body: JSON.stringify({ code: 'FAIL', message: '失败' }), contentType: 'application/json; charset=utf-8' }
  }
}
