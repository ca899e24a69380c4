import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { NotifyResult, PayProvider, RawNotify } from './provider.js'
import { PAY_BASE } from './wire.js'

/** How far a notify's timestamp may be from now (seconds), for every provider that signs one. */
export const NOTIFY_WINDOW_S = 300

export interface DemoNotify {
  orderId: string
  amountFen: number
  tradeNo: string
}

/**
 * 演示支付: the offline provider. Its pay page is on Lingxi's own origin; confirming there sends a
 * notify signed with a key derived from the server's secret (HMAC-SHA256 over
 * `timestamp\nnonce\nbody\n`, like WeChat Pay's message), through the same notify path as a
 * real provider. No money moves, and every page and order says so.
 */
export function createDemoProvider(o: { key: string; publicUrl: string; now: () => number }): PayProvider & {
  signNotify(n: DemoNotify): { headers: Record<string, string>; body: string }
  pageUrl(orderId: string): string
} {
  const key = createHmac('sha256', o.key).update('lingxi-pay-demo').digest()
  const sign = (ts: string, nonce: string, body: string) => createHmac('sha256', key).update(`${ts}\n${nonce}\n${body}\n`).digest('base64')
  const pageUrl = (orderId: string) => `${o.publicUrl}${PAY_BASE}/demo/${encodeURIComponent(orderId)}`

  function verifyNotify(n: RawNotify): Promise<NotifyResult> {
    const refuse = (reason: string) => Promise.resolve<NotifyResult>({ ok: false, reason })
    const ts = n.header('lingxi-demo-timestamp') ?? ''
    const nonce = n.header('lingxi-demo-nonce') ?? ''
    const given = Buffer.from(n.header('lingxi-demo-signature') ?? '')
    if (!/^\d{1,12}$/.test(ts) || !nonce) return refuse('missing timestamp or nonce')
    if (Math.abs(o.now() / 1000 - Number(ts)) > NOTIFY_WINDOW_S) return refuse('timestamp outside the window')
    const wanted = Buffer.from(sign(ts, nonce, n.body))
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return refuse('bad signature')
    let body: Partial<DemoNotify>
    try {
      body = JSON.parse(n.body) as Partial<DemoNotify>
    } catch {
      return refuse('body is not JSON')
    }
    if (typeof body.orderId !== 'string' || !Number.isSafeInteger(body.amountFen) || typeof body.tradeNo !== 'string')
      return refuse('body is not a demo notify')
    return Promise.resolve({ ok: true, orderId: body.orderId, amountFen: body.amountFen as number, paid: true, providerTradeNo: body.tradeNo })
  }

  return {
    name: 'demo',
    scenes: ['native', 'h5', 'jsapi', 'page', 'wap'],
    demo: true,
    pageUrl,
    async create(request): Promise<Record<string, string>> {
      // Native shows a QR code of the page (scan it with a phone on the same network); the others open it.
      const url = pageUrl(request.orderId)
      return request.scene === 'native' ? { codeUrl: url, payUrl: url } : { payUrl: url }
    },
    verifyNotify,
    // The demo keeps no state of its own: an order is paid only by its notify.
    query: async () => ({ state: 'unknown' }),
    close: async () => 'closed',
    refund: async (request) => ({ providerRefundNo: `DEMO-${request.refundId}` }),
    answer: (ok) => ({ status: ok ? 200 : 400, body: ok ? 'success' : 'fail', contentType: 'text/plain; charset=utf-8' }),
    signNotify(n) {
      const body = JSON.stringify(n)
      const ts = String(Math.floor(o.now() / 1000))
      const nonce = randomBytes(16).toString('hex')
      return { body, headers: { 'Lingxi-Demo-Timestamp': ts, 'Lingxi-Demo-Nonce': nonce, 'Lingxi-Demo-Signature': sign(ts, nonce, body) } }
    }
  }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/**
 * The demo's pay page: the order, a plain form that posts 确认支付 (no script, so the CSP allows
 * none), or the outcome. Served with `default-src 'none'` and `form-action 'self'`.
 */
export function demoPage(o: { orderId: string; name: string; amountFen: number; status: string }): string {
  const yuan = (o.amountFen / 100).toFixed(2)
  const body =
    o.status === 'pending'
      ? `<form method="post" action="${PAY_BASE}/demo/${encodeURIComponent(o.orderId)}/confirm"><button type="submit">确认支付 ¥${yuan}</button></form>`
      : `<p class="done">${o.status === 'paid' || o.status === 'refunded' ? '支付成功，额度已到账。可以关闭此页面。' : '订单已关闭，请返回重新下单。'}</p>`
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>演示支付</title><style>body{margin:0;font:16px/1.6 system-ui,sans-serif;background:#17181c;color:#eee;display:flex;justify-content:center}
main{max-width:420px;width:100%;padding:32px 20px}.tag{display:inline-block;background:#fbab00;color:#17181c;border-radius:4px;padding:0 8px;font-size:13px}
.amount{font-size:36px;font-weight:600;margin:12px 0}button{width:100%;padding:12px;border:0;border-radius:8px;background:#fbab00;color:#17181c;font-size:17px;cursor:pointer}
.note{color:#999;font-size:13px}</style></head>
<body><main><span class="tag">演示支付</span><h1>${escapeHtml(o.name)}</h1><p class="note">订单 ${escapeHtml(o.orderId)}</p>
<div class="amount">¥${yuan}</div>${body}<p class="note">这是演示支付：不会扣款，确认后按套餐发放额度。正式上线请配置微信支付或支付宝。</p></main></body></html>`
}

/** Headers of the demo page: nothing runs, nothing loads, forms only post here, no framing. */
export const DEMO_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
