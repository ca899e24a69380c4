import { createCipheriv, createSign, createVerify, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { PaymentSettings } from '../../src/config.js'
import { chinaTime } from '../../src/modules/payments/wechat-crypto.js'
import { makeCertificate } from './x509.js'

/**
 * A fake WeChat Pay API v3 (direct merchant) on loopback. Keys are made here: the merchant's
 * (our requests are verified with its public half, exactly as WeChat Pay does: the Authorization
 * header `WECHATPAY2-SHA256-RSA2048 mchid=…,nonce_str=…,signature=…,timestamp=…,serial_no=…`
 * over `METHOD\nURL\nTIMESTAMP\nNONCE\nBODY\n`) and the platform's (it signs every 2xx answer and
 * every notify over `TIMESTAMP\nNONCE\nBODY\n`; notify resources are AES-256-GCM with the APIv3 key).
 *
 * With `platform: 'certificates'` (a merchant that configured no WeChat Pay public key) it signs with
 * a platform certificate instead and serves `GET /v3/certificates` as WeChat Pay does: each
 * certificate encrypted AEAD_AES_256_GCM with the APIv3 key (associated data `certificate`), the
 * answer signed by the current one; `rotate()` issues a new certificate that signs from then on.
 *
 * Orders: Native/H5/JSAPI create, query by out_trade_no, close, refund. `pay()` marks one paid and
 * `notify()` builds its notify (headers + body) for the test to deliver — in order, twice, late,
 * forged, tampered, with a wrong amount — through the app.
 */
export interface FakeTransaction {
  outTradeNo: string
  appid: string
  mchid: string
  total: number
  scene: 'native' | 'h5' | 'jsapi'
  state: 'NOTPAY' | 'SUCCESS' | 'CLOSED' | 'REFUND'
  transactionId: string
  refunded: number
  body: Record<string, unknown>
}

export interface NotifyOptions {
  /** Sign with this key instead of the platform's. */
  signWith?: KeyObject
  serial?: string
  /** Seconds since the epoch (default: the fake's now). */
  timestamp?: number
  amount?: number
  mchid?: string
  appid?: string
  apiV3Key?: string
  eventType?: string
  tradeState?: string
  /** Changes the body after it was signed. */
  tamper?: (body: string) => string
  /** Encrypts this resource instead of the transaction's (a REFUND.* notify's refund). */
  resource?: Record<string, unknown>
}

export interface FakeNotify {
  headers: Record<string, string>
  body: string
}

const MCHID = '1900009191'
const APPID = 'wxd678efh567hg6787'

/** What goes wrong with the next `GET /v3/certificates` answers (tests of the download's checks). */
export type CertificateTrouble = 'none' | 'wrong-apiv3-key' | 'bad-signature' | 'serial-mismatch' | 'expired' | 'error'

export async function startFakeWechatPayV3(options: { now?: () => number; platform?: 'public-key' | 'certificates' } = {}) {
  const now = options.now ?? Date.now
  const mode = options.platform ?? 'public-key'
  const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const platform = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const apiV3Key = randomBytes(16).toString('hex')
  const serialNo = '5157F09EFDC096DE15EBE81A47057A7232F1B8E1'
  const root = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const DAY = 86_400_000
  /** The platform certificates WeChat Pay lists (certificates mode); the last one signs. */
  const certificates: { serial: string; pem: string; key: KeyObject; notBefore: Date; notAfter: Date }[] = []
  const issue = (key: { publicKey: KeyObject; privateKey: KeyObject }, at: number) => {
    const serial = `${(certificates.length + 0x30).toString(16)}${randomBytes(19).toString('hex')}`.toUpperCase()
    const notBefore = new Date(at - DAY)
    const notAfter = new Date(at + 5 * 365 * DAY)
    const pem = makeCertificate({ serial, subject: 'Tenpay.com', publicKey: key.publicKey, issuerKey: root.privateKey, notBefore, notAfter })
    certificates.push({ serial, pem, key: key.privateKey, notBefore, notAfter })
  }
  // At start the test's clock may not run yet (a harness made per test): real time, as the harness's clock starts.
  if (mode === 'certificates') issue(platform, Date.now())
  let platformSerial = mode === 'certificates' ? (certificates[0]?.serial ?? '') : 'PUB_KEY_ID_0114232134912410000000000000'
  let signingKey = platform.privateKey
  let certificateTrouble: CertificateTrouble = 'none'
  const transactions = new Map<string, FakeTransaction>()
  const requests: { method: string; path: string; signOk: boolean; body: string }[] = []
  let seq = 0
  /** Status codes the next requests answer instead (scripted faults). */
  const faults: { status: number; code: string }[] = []

  const sign = (key: KeyObject, parts: string[]) =>
    createSign('RSA-SHA256')
      .update(`${parts.join('\n')}\n`)
      .sign(key, 'base64')

  function answer(res: ServerResponse, status: number, payload?: unknown) {
    const body = payload === undefined ? '' : JSON.stringify(payload)
    const headers: Record<string, string> = { 'Request-ID': randomBytes(8).toString('hex') }
    if (body) headers['Content-Type'] = 'application/json; charset=utf-8'
    if (status < 300) {
      const ts = String(Math.floor(now() / 1000))
      const nonce = randomBytes(16).toString('hex')
      Object.assign(headers, {
        'Wechatpay-Serial': platformSerial,
        'Wechatpay-Timestamp': ts,
        'Wechatpay-Nonce': nonce,
        'Wechatpay-Signature': sign(certificateTrouble === 'bad-signature' && /certificates/.test(res.req.url ?? '') ? root.privateKey : signingKey, [
          ts,
          nonce,
          body
        ]),
        'Wechatpay-Signature-Type': 'WECHATPAY2-SHA256-RSA2048'
      })
    }
    res.writeHead(status, headers)
    res.end(body)
  }

  /** The Authorization header checked as WeChat Pay does; the reason when it is refused. */
  function checkAuth(req: IncomingMessage, path: string, body: string): string | undefined {
    const auth = req.headers.authorization ?? ''
    const m = /^WECHATPAY2-SHA256-RSA2048 (.*)$/.exec(auth)
    if (!m?.[1]) return 'no WECHATPAY2-SHA256-RSA2048 Authorization'
    const fields = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]))
    if (fields.mchid !== MCHID) return 'mchid'
    if (fields.serial_no !== serialNo) return 'serial_no'
    if (!fields.nonce_str || !fields.timestamp || Math.abs(now() / 1000 - Number(fields.timestamp)) > 300) return 'timestamp'
    const ok = createVerify('RSA-SHA256')
      .update(`${req.method}\n${path}\n${fields.timestamp}\n${fields.nonce_str}\n${body}\n`)
      .verify(merchant.publicKey, fields.signature ?? '', 'base64')
    return ok ? undefined : 'signature'
  }

  const txJson = (t: FakeTransaction) => ({
    appid: t.appid,
    mchid: t.mchid,
    out_trade_no: t.outTradeNo,
    transaction_id: t.state === 'NOTPAY' || t.state === 'CLOSED' ? undefined : t.transactionId,
    trade_type: t.scene === 'h5' ? 'MWEB' : t.scene.toUpperCase(),
    trade_state: t.state,
    trade_state_desc: { NOTPAY: '未支付', SUCCESS: '支付成功', CLOSED: '已关闭', REFUND: '转入退款' }[t.state],
    bank_type: 'OTHERS',
    attach: '',
    success_time: t.state === 'SUCCESS' ? new Date(now()).toISOString() : undefined,
    payer: { openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' },
    amount: { total: t.total, payer_total: t.total, currency: 'CNY', payer_currency: 'CNY' }
  })

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const path = req.url ?? ''
      const refused = checkAuth(req, path, body)
      requests.push({ method: req.method ?? '', path, signOk: !refused, body })
      if (refused) return answer(res, 401, { code: 'SIGN_ERROR', message: `签名错误（${refused}）` })
      const fault = faults.shift()
      if (fault) return answer(res, fault.status, { code: fault.code, message: '系统繁忙' })
      const url = new URL(path, 'http://x')
      if (req.method === 'GET' && url.pathname === '/v3/certificates') {
        // Merchants on the WeChat Pay public key have no platform certificates to download.
        if (mode !== 'certificates') return answer(res, 404, { code: 'NOT_FOUND', message: '平台证书已停用，请使用微信支付公钥' })
        if (certificateTrouble === 'error') return answer(res, 500, { code: 'SYSTEM_ERROR', message: '系统繁忙' })
        const expired = certificateTrouble === 'expired'
        return answer(res, 200, {
          data: certificates.map((c) => ({
            serial_no: certificateTrouble === 'serial-mismatch' ? `7${c.serial.slice(1)}` : c.serial,
            effective_time: chinaTime(c.notBefore),
            expire_time: chinaTime(c.notAfter),
            encrypt_certificate: encrypt(
              certificateTrouble === 'wrong-apiv3-key' ? randomBytes(16).toString('hex') : apiV3Key,
              expired
                ? makeCertificate({
                    serial: c.serial,
                    subject: 'Tenpay.com',
                    publicKey: platform.publicKey,
                    issuerKey: root.privateKey,
                    notBefore: new Date(now() - 400 * DAY),
                    notAfter: new Date(now() - DAY)
                  })
                : c.pem,
              'certificate'
            )
          }))
        })
      }
      const create = /^\/v3\/pay\/transactions\/(native|h5|jsapi)$/.exec(url.pathname)
      if (req.method === 'POST' && create) {
        const p = JSON.parse(body) as Record<string, any>
        if (p.mchid !== MCHID || p.appid !== APPID) return answer(res, 400, { code: 'PARAM_ERROR', message: 'appid和mch_id不匹配' })
        if (typeof p.out_trade_no !== 'string' || !Number.isInteger(p.amount?.total) || p.amount.total < 1 || !p.notify_url || !p.description) {
          return answer(res, 400, { code: 'PARAM_ERROR', message: '参数错误' })
        }
        const scene = create[1] as FakeTransaction['scene']
        if (scene === 'h5' && !p.scene_info?.payer_client_ip) return answer(res, 400, { code: 'PARAM_ERROR', message: '缺少scene_info' })
        if (scene === 'jsapi' && !p.payer?.openid) return answer(res, 400, { code: 'PARAM_ERROR', message: '缺少openid' })
        const known = transactions.get(p.out_trade_no)
        if (known && (known.total !== p.amount.total || known.scene !== scene))
          return answer(res, 400, { code: 'INVALID_REQUEST', message: '201 商户订单号重复' })
        const t = known ?? {
          outTradeNo: p.out_trade_no,
          appid: p.appid,
          mchid: p.mchid,
          total: p.amount.total,
          scene,
          state: 'NOTPAY' as const,
          transactionId: `42000000${String(++seq).padStart(20, '0')}`,
          refunded: 0,
          body: p
        }
        transactions.set(t.outTradeNo, t)
        if (scene === 'native') return answer(res, 200, { code_url: `weixin://wxpay/bizpayurl?pr=${t.transactionId.slice(-7)}` })
        if (scene === 'h5') return answer(res, 200, { h5_url: `https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=wx${t.transactionId}` })
        return answer(res, 200, { prepay_id: `wx${t.transactionId}` })
      }
      const query = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)$/.exec(url.pathname)
      if (req.method === 'GET' && query) {
        if (url.searchParams.get('mchid') !== MCHID) return answer(res, 400, { code: 'PARAM_ERROR', message: 'mchid' })
        const t = transactions.get(decodeURIComponent(query[1] ?? ''))
        return t ? answer(res, 200, txJson(t)) : answer(res, 404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' })
      }
      const close = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)\/close$/.exec(url.pathname)
      if (req.method === 'POST' && close) {
        const t = transactions.get(decodeURIComponent(close[1] ?? ''))
        if (!t) return answer(res, 404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' })
        if (t.state === 'SUCCESS' || t.state === 'REFUND') return answer(res, 400, { code: 'ORDERPAID', message: '订单已支付' })
        t.state = 'CLOSED'
        return answer(res, 204)
      }
      if (req.method === 'POST' && url.pathname === '/v3/refund/domestic/refunds') {
        const p = JSON.parse(body) as Record<string, any>
        const t = transactions.get(p.out_trade_no)
        if (!t || (t.state !== 'SUCCESS' && t.state !== 'REFUND')) return answer(res, 400, { code: 'RESOURCE_NOT_EXISTS', message: '订单不存在或未支付' })
        if (p.amount?.total !== t.total || !Number.isInteger(p.amount?.refund) || p.amount.refund + t.refunded > t.total) {
          return answer(res, 400, { code: 'INVALID_REQUEST', message: '退款金额不正确' })
        }
        t.refunded += p.amount.refund
        t.state = 'REFUND'
        return answer(res, 200, {
          refund_id: `50000000${String(++seq).padStart(20, '0')}`,
          out_refund_no: p.out_refund_no,
          transaction_id: t.transactionId,
          out_trade_no: t.outTradeNo,
          status: 'SUCCESS',
          amount: { total: t.total, refund: p.amount.refund, currency: 'CNY' }
        })
      }
      answer(res, 404, { code: 'NOT_FOUND', message: 'no such API' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  /** AEAD_AES_256_GCM as WeChat Pay encrypts resources and certificates: a 12-character nonce, the tag after the ciphertext. */
  function encrypt(key: string, plain: string, associatedData: 'transaction' | 'certificate' = 'transaction') {
    const nonce = randomBytes(6).toString('hex')
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'utf8'), Buffer.from(nonce, 'utf8'))
    cipher.setAAD(Buffer.from(associatedData, 'utf8'))
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
    const encrypted = { algorithm: 'AEAD_AES_256_GCM', ciphertext: data.toString('base64'), associated_data: associatedData, nonce }
    return associatedData === 'transaction' ? { original_type: 'transaction', ...encrypted } : encrypted
  }

  return {
    url,
    mchId: MCHID,
    appId: APPID,
    apiV3Key,
    merchant,
    platform,
    transactions,
    requests,
    /** The platform certificates listed by GET /v3/certificates (certificates mode). */
    certificates,
    /** The serial answers and notifies carry now. */
    get platformSerial() {
      return platformSerial
    },
    /** What goes wrong with the next certificate downloads ('none' to stop). */
    troubleCertificates(trouble: CertificateTrouble) {
      certificateTrouble = trouble
    },
    /** A new platform certificate (and key) that signs every answer and notify from now on; the old one stays listed. */
    rotate() {
      const next = generateKeyPairSync('rsa', { modulusLength: 2048 })
      issue(next, now())
      const current = certificates[certificates.length - 1]
      platformSerial = current?.serial ?? platformSerial
      signingKey = next.privateKey
      return current
    },
    /** The next requests answer `status` with `code` (after the signature check). */
    failNext(status: number, code: string, times = 1) {
      for (let i = 0; i < times; i++) faults.push({ status, code })
    },
    /** What config.ts makes of the PAY_WECHAT_* settings, pointed at this fake. */
    settings(notifyUrl = 'https://lingxi.example.com/api/v1/pay/notify/wechat'): NonNullable<PaymentSettings['wechat']> {
      return {
        baseUrl: url,
        mchId: MCHID,
        appId: APPID,
        serialNo,
        privateKey: merchant.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        // Certificates mode: no key configured, the provider downloads the platform certificates.
        platformKey: mode === 'certificates' ? undefined : (platform.publicKey.export({ type: 'spki', format: 'pem' }) as string),
        platformSerial: mode === 'certificates' ? undefined : platformSerial,
        apiV3Key,
        notifyUrl,
        timeoutMs: 5000
      }
    },
    /** The payer pays: the transaction becomes SUCCESS (no notify is sent; see notify()). */
    pay(outTradeNo: string) {
      const t = transactions.get(outTradeNo)
      if (!t) throw new Error(`no transaction ${outTradeNo}`)
      t.state = 'SUCCESS'
      return t
    },
    /** The TRANSACTION.SUCCESS notify of a transaction, signed as WeChat Pay signs it (or bent by `o`). */
    notify(outTradeNo: string, o: NotifyOptions = {}): FakeNotify {
      const t = transactions.get(outTradeNo)
      if (!t) throw new Error(`no transaction ${outTradeNo}`)
      const tx = { ...txJson({ ...t, state: 'SUCCESS' }), trade_state: o.tradeState ?? 'SUCCESS' }
      if (o.amount !== undefined) tx.amount = { ...tx.amount, total: o.amount, payer_total: o.amount }
      if (o.mchid) tx.mchid = o.mchid
      if (o.appid) tx.appid = o.appid
      const body = JSON.stringify({
        id: `EV-${randomBytes(8).toString('hex')}`,
        create_time: new Date(now()).toISOString(),
        resource_type: 'encrypt-resource',
        event_type: o.eventType ?? 'TRANSACTION.SUCCESS',
        summary: '支付成功',
        resource: encrypt(o.apiV3Key ?? apiV3Key, JSON.stringify(o.resource ?? tx))
      })
      const ts = String(o.timestamp ?? Math.floor(now() / 1000))
      const nonce = randomBytes(16).toString('hex')
      return {
        headers: {
          'Content-Type': 'application/json',
          'Wechatpay-Serial': o.serial ?? platformSerial,
          'Wechatpay-Timestamp': ts,
          'Wechatpay-Nonce': nonce,
          'Wechatpay-Signature': sign(o.signWith ?? signingKey, [ts, nonce, body]),
          'Wechatpay-Signature-Type': 'WECHATPAY2-SHA256-RSA2048'
        },
        body: o.tamper ? o.tamper(body) : body
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

export type FakeWechatPayV3 = Awaited<ReturnType<typeof startFakeWechatPayV3>>
