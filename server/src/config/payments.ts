import { createPrivateKey, createPublicKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { ConfigError, type Env } from './env.js'

// The payment providers' settings (WeChat Pay v3, Alipay, the offline demo), checked at start:
// every problem is listed at once, and a key that cannot be read stops the start.

export interface PaymentSettings {
  /** An unpaid order closes after this long (and is closed at its provider). */
  orderTtlMs: number
  /** The offline 演示支付 provider: on by PAY_DEMO=on, or by default when no real provider is configured outside production. */
  demo: boolean
  /** WeChat Pay API v3; undefined without PAY_WECHAT_MCH_ID. Keys are read (and checked) at start. */
  wechat:
    | {
        baseUrl: string
        mchId: string
        appId: string
        /** The serial number of the merchant API certificate (Authorization's serial_no). */
        serialNo: string
        /** apiclient_key.pem, PKCS#8 PEM text. */
        privateKey: string
        /**
         * The WeChat Pay public key (or platform certificate) PEM text that verifies answers and notifies;
         * undefined: the platform certificates are downloaded (GET /v3/certificates) and used instead.
         */
        platformKey: string | undefined
        /** Its id (PUB_KEY_ID_…) or certificate serial: the Wechatpay-Serial a notify must carry; undefined with platformKey. */
        platformSerial: string | undefined
        /** The APIv3 key (32 bytes) that decrypts notify resources. */
        apiV3Key: string
        notifyUrl: string
        timeoutMs: number
      }
    | undefined
  /** Alipay (open platform, RSA2); undefined without ALIPAY_APP_ID. */
  alipay:
    | {
        gateway: string
        appId: string
        /** The app private key (PKCS#8 or PKCS#1 PEM text). */
        privateKey: string
        /** The Alipay public key PEM text that verifies answers and notifies. */
        alipayPublicKey: string
        /** The seller (PID) a notify must name, when given. */
        sellerId: string | undefined
        notifyUrl: string
        /** Where Alipay sends the payer back after paying (the site). */
        returnUrl: string | undefined
        timeoutMs: number
      }
    | undefined
}

/**
 * WeChat Pay v3 is on with PAY_WECHAT_MCH_ID, Alipay with ALIPAY_APP_ID; then every key must be
 * given and readable, or the server does not start. The demo is offered when asked for, or when nothing real is.
 */
export function paymentSettings(e: Env): PaymentSettings {
  const problems: string[] = []
  const need = (name: keyof typeof e, when: string) => {
    const value = String(e[name] ?? '').trim()
    if (!value) problems.push(`${name} is required when ${when} is set`)
    return value
  }
  const pem = (name: keyof typeof e, when: string, kind: 'private' | 'public') => {
    const path = need(name, when)
    if (!path) return ''
    let text: string
    try {
      text = readFileSync(resolve(path), 'utf8')
    } catch (error) {
      problems.push(`${name}: cannot read ${resolve(path)} (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
      return ''
    }
    try {
      if (kind === 'private') createPrivateKey(text)
      else createPublicKey(text)
    } catch {
      problems.push(`${name}: ${resolve(path)} is not a PEM ${kind === 'private' ? 'private key' : 'public key or certificate'}`)
      return ''
    }
    return text
  }
  const publicUrl = (e.PUBLIC_URL ?? '').replace(/\/+$/, '')
  const notifyUrl = (given: string | undefined, provider: string, when: string) => {
    const url = given ?? (publicUrl ? `${publicUrl}/api/v1/pay/notify/${provider}` : '')
    if (!url)
      problems.push(
        `PUBLIC_URL (or ${provider === 'wechat' ? 'PAY_WECHAT_NOTIFY_URL' : 'ALIPAY_NOTIFY_URL'}) is required when ${when} is set: notifies are sent there`
      )
    return url
  }
  let wechat: PaymentSettings['wechat']
  const mchId = e.PAY_WECHAT_MCH_ID?.trim()
  if (mchId) {
    const when = 'PAY_WECHAT_MCH_ID'
    const appId = need('PAY_WECHAT_APP_ID', when)
    const serialNo = need('PAY_WECHAT_SERIAL_NO', when)
    const privateKey = pem('PAY_WECHAT_PRIVATE_KEY', when, 'private')
    // The WeChat Pay public key and its id, both or neither: without them the platform certificates are downloaded.
    const withKey = Boolean(e.PAY_WECHAT_PLATFORM_KEY?.trim() || e.PAY_WECHAT_PLATFORM_SERIAL?.trim())
    const platformKey = withKey ? pem('PAY_WECHAT_PLATFORM_KEY', 'PAY_WECHAT_PLATFORM_SERIAL', 'public') || undefined : undefined
    const platformSerial = withKey ? need('PAY_WECHAT_PLATFORM_SERIAL', 'PAY_WECHAT_PLATFORM_KEY') || undefined : undefined
    const apiV3Key = need('PAY_WECHAT_API_V3_KEY', when)
    if (apiV3Key && Buffer.byteLength(apiV3Key) !== 32) problems.push('PAY_WECHAT_API_V3_KEY must be the 32-character APIv3 key')
    wechat = {
      baseUrl: (e.PAY_WECHAT_URL ?? 'https://api.mch.weixin.qq.com').replace(/\/+$/, ''),
      mchId,
      appId,
      serialNo,
      privateKey,
      platformKey,
      platformSerial,
      apiV3Key,
      notifyUrl: notifyUrl(e.PAY_WECHAT_NOTIFY_URL, 'wechat', when),
      timeoutMs: e.PAY_WECHAT_TIMEOUT_MS
    }
  }
  let alipay: PaymentSettings['alipay']
  const alipayAppId = e.ALIPAY_APP_ID?.trim()
  if (alipayAppId) {
    const when = 'ALIPAY_APP_ID'
    alipay = {
      gateway: e.ALIPAY_GATEWAY ?? 'https://openapi.alipay.com/gateway.do',
      appId: alipayAppId,
      privateKey: pem('ALIPAY_PRIVATE_KEY', when, 'private'),
      alipayPublicKey: pem('ALIPAY_PUBLIC_KEY', when, 'public'),
      sellerId: e.ALIPAY_SELLER_ID?.trim() || undefined,
      notifyUrl: notifyUrl(e.ALIPAY_NOTIFY_URL, 'alipay', when),
      returnUrl: e.ALIPAY_RETURN_URL ?? (publicUrl ? `${publicUrl}/` : undefined),
      timeoutMs: e.PAY_WECHAT_TIMEOUT_MS
    }
  }
  if (problems.length > 0) throw new ConfigError(problems)
  const mode = e.PAY_DEMO ?? 'auto'
  const demo = mode === 'on' || (mode === 'auto' && !wechat && !alipay && e.NODE_ENV !== 'production')
  return { orderTtlMs: e.PAY_ORDER_TTL_MS, demo, wechat, alipay }
}
