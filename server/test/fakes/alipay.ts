import { createSign, createVerify, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { PaymentSettings } from '../../src/config.js'

/**
 * A fake Alipay open-platform gateway on loopback. Keys are made here: the app's (our requests are
 * verified with its public half: RSA2 over the sorted `k=v&…` of every parameter but `sign`) and
 * Alipay's (it signs each `<method>_response` object's exact JSON text, and every notify over the
 * sorted parameters but `sign` and `sign_type`). Methods: trade.query, trade.close, trade.refund;
 * page.pay / wap.pay are GET redirects the browser follows, checked with checkPayUrl().
 */
export interface FakeTrade {
  outTradeNo: string
  totalAmount: string
  status: 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED'
  tradeNo: string
  refunded: number
}

const APP_ID = '2021000000000001'
const SELLER = '2088102177846880'

const content = (p: Record<string, string>, exclude: string[]) =>
  Object.keys(p)
    .filter((k) => !exclude.includes(k) && p[k] !== '')
    .sort()
    .map((k) => `${k}=${p[k]}`)
    .join('&')
const sign = (key: KeyObject, text: string) => createSign('RSA-SHA256').update(text, 'utf8').sign(key, 'base64')

export async function startFakeAlipay(options: { now?: () => number } = {}) {
  const now = options.now ?? Date.now
  const app = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const alipay = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const trades = new Map<string, FakeTrade>()
  const requests: { method: string; signOk: boolean; biz: Record<string, string> }[] = []
  let seq = 0

  const verifyApp = (p: Record<string, string>) => {
    try {
      return createVerify('RSA-SHA256')
        .update(content(p, ['sign']), 'utf8')
        .verify(app.publicKey, p.sign ?? '', 'base64')
    } catch {
      return false
    }
  }
  /** The trade a page.pay / wap.pay URL asks for (made on first sight, as the cashier does); throws when its signature is wrong. */
  function checkPayUrl(url: string): FakeTrade {
    const p = Object.fromEntries(new URL(url).searchParams)
    if (!verifyApp(p) || p.app_id !== APP_ID || p.sign_type !== 'RSA2') throw new Error('invalid-signature')
    const biz = JSON.parse(p.biz_content ?? '{}') as Record<string, string>
    const t = trades.get(biz.out_trade_no ?? '') ?? {
      outTradeNo: biz.out_trade_no ?? '',
      totalAmount: biz.total_amount ?? '',
      status: 'WAIT_BUYER_PAY' as const,
      tradeNo: `2026010122001${String(++seq).padStart(15, '0')}`,
      refunded: 0
    }
    trades.set(t.outTradeNo, t)
    return t
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const p = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')))
      const method = p.method ?? ''
      const key = `${method.replaceAll('.', '_')}_response`
      const biz = JSON.parse(p.biz_content ?? '{}') as Record<string, string>
      const signOk = verifyApp(p) && p.app_id === APP_ID
      requests.push({ method, signOk, biz })
      const reply = (inner: Record<string, unknown>, signed = true) => {
        const text = JSON.stringify(inner)
        res.writeHead(200, { 'Content-Type': 'text/html;charset=utf-8' })
        res.end(`{"${key}":${text}${signed ? `,"sign":"${sign(alipay.privateKey, text)}"` : ''}}`)
      }
      if (!signOk) return reply({ code: '40002', msg: 'Invalid Arguments', sub_code: 'isv.invalid-signature', sub_msg: '验签出错' }, false)
      const t = trades.get(biz.out_trade_no ?? '')
      const missing = { code: '40004', msg: 'Business Failed', sub_code: 'ACQ.TRADE_NOT_EXIST', sub_msg: '交易不存在' }
      if (method === 'alipay.trade.query') {
        if (!t) return reply(missing)
        return reply({ code: '10000', msg: 'Success', out_trade_no: t.outTradeNo, trade_no: t.tradeNo, trade_status: t.status, total_amount: t.totalAmount })
      }
      if (method === 'alipay.trade.close') {
        if (!t) return reply(missing)
        if (t.status === 'TRADE_SUCCESS') return reply({ code: '40004', msg: 'Business Failed', sub_code: 'ACQ.TRADE_STATUS_ERROR', sub_msg: '交易状态不合法' })
        t.status = 'TRADE_CLOSED'
        return reply({ code: '10000', msg: 'Success', out_trade_no: t.outTradeNo, trade_no: t.tradeNo })
      }
      if (method === 'alipay.trade.refund') {
        if (t?.status !== 'TRADE_SUCCESS') return reply(missing)
        const fen = Math.round(Number(biz.refund_amount) * 100)
        const total = Math.round(Number(t.totalAmount) * 100)
        if (!(fen > 0) || t.refunded + fen > total)
          return reply({ code: '40004', msg: 'Business Failed', sub_code: 'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL', sub_msg: '退款金额超限' })
        t.refunded += fen
        return reply({
          code: '10000',
          msg: 'Success',
          out_trade_no: t.outTradeNo,
          trade_no: t.tradeNo,
          refund_fee: (t.refunded / 100).toFixed(2),
          fund_change: 'Y'
        })
      }
      reply({ code: '40004', msg: 'Business Failed', sub_code: 'isv.invalid-method' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const gateway = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gateway.do`

  return {
    gateway,
    appId: APP_ID,
    sellerId: SELLER,
    app,
    alipay,
    trades,
    requests,
    checkPayUrl,
    settings(): NonNullable<PaymentSettings['alipay']> {
      return {
        gateway,
        appId: APP_ID,
        privateKey: app.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        alipayPublicKey: alipay.publicKey.export({ type: 'spki', format: 'pem' }) as string,
        sellerId: SELLER,
        notifyUrl: 'https://lingxi.example.com/api/v1/pay/notify/alipay',
        returnUrl: 'https://lingxi.example.com/',
        timeoutMs: 5000
      }
    },
    pay(outTradeNo: string) {
      const t = trades.get(outTradeNo)
      if (!t) throw new Error(`no trade ${outTradeNo}`)
      t.status = 'TRADE_SUCCESS'
      return t
    },
    /** The async notify of a trade (form body), signed as Alipay signs it, or bent by `o`. */
    notify(
      outTradeNo: string,
      o: { signWith?: KeyObject; totalAmount?: string; appId?: string; sellerId?: string; tamper?: (b: string) => string; extra?: Record<string, string> } = {}
    ) {
      const t = trades.get(outTradeNo)
      if (!t) throw new Error(`no trade ${outTradeNo}`)
      const at = new Date(now() + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ')
      const p: Record<string, string> = {
        gmt_create: at,
        charset: 'utf-8',
        gmt_payment: at,
        notify_time: at,
        subject: '灵犀充值',
        buyer_id: '2088102177846875',
        invoice_amount: o.totalAmount ?? t.totalAmount,
        version: '1.0',
        notify_id: `ac05099524730693a8b330c5ecf72da${++seq}`,
        fund_bill_list: '[{"amount":"9.90","fundChannel":"ALIPAYACCOUNT"}]',
        notify_type: 'trade_status_sync',
        out_trade_no: t.outTradeNo,
        total_amount: o.totalAmount ?? t.totalAmount,
        trade_status: 'TRADE_SUCCESS',
        trade_no: t.tradeNo,
        auth_app_id: o.appId ?? APP_ID,
        receipt_amount: o.totalAmount ?? t.totalAmount,
        app_id: o.appId ?? APP_ID,
        seller_id: o.sellerId ?? SELLER,
        sign_type: 'RSA2',
        // A refund's notify adds refund_fee, out_biz_no, gmt_refund (and TRADE_CLOSED when all is refunded).
        ...o.extra
      }
      p.sign = sign(o.signWith ?? alipay.privateKey, content(p, ['sign', 'sign_type']))
      const body = new URLSearchParams(p).toString()
      return { headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' }, body: o.tamper ? o.tamper(body) : body }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

export type FakeAlipay = Awaited<ReturnType<typeof startFakeAlipay>>
