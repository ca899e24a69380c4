import { useEffect, useRef, useState } from 'react'
import { accountChannelOpen, onAccountEvent } from '../../core/account-events'
import { notifyError } from '../../core/api'
import { refreshUser } from '../../core/auth'
import { QrCode } from './qr'
import { confirmDemo, countdown, formatYuan, getOrder, grantsText, PROVIDER_LABELS, type PayOrder } from './recharge-state'

// One order being paid: how to pay it (a QR code, a page, 演示支付), the time left, its status live.

/** The server's order event on the account channel (server/src/modules/payments/service.ts PAY_EVENT). */
const PAY_EVENT = 'pay'
/** Asking about the order: often while the account channel is down, rarely while it is up (a lost event). */
const POLL_MS = 3000
const POLL_OPEN_MS = 15_000

type Bridge = { invoke(name: string, params: Record<string, string>, done: (r: { err_msg?: string }) => void): void }

export function Checkout({ initial, onRetry, onDone }: { initial: PayOrder; onRetry(order: PayOrder): void; onDone(order: PayOrder): void }) {
  const [order, setOrder] = useState(initial)
  const [now, setNow] = useState(() => Date.now())
  const [busy, setBusy] = useState(false)
  const announced = useRef(false)
  const id = order.orderId
  const pending = order.status === 'pending'
  const expired = order.status === 'closed' || (pending && now >= order.expireTime)

  useEffect(() => setOrder(initial), [initial])

  // Live status: the account channel's pay events, and a poll (order/get also asks the provider).
  useEffect(() => {
    if (!pending) return
    const off = onAccountEvent(PAY_EVENT, (data) => {
      const o = data as PayOrder
      if (o?.orderId === id) setOrder(o)
    })
    let timer: ReturnType<typeof setTimeout> | undefined
    let live = true
    const poll = () => {
      timer = setTimeout(
        () => {
          getOrder(id)
            .then((o) => live && setOrder(o))
            .catch(() => {})
            .finally(() => live && poll())
        },
        accountChannelOpen().get() ? POLL_OPEN_MS : POLL_MS
      )
    }
    poll()
    return () => {
      live = false
      off()
      clearTimeout(timer)
    }
  }, [id, pending])

  // The countdown; at zero the order is asked about once more (its close job may be a moment late).
  useEffect(() => {
    if (!pending) return
    const t = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(t)
  }, [pending])
  const over = pending && now >= order.expireTime
  useEffect(() => {
    if (over) getOrder(id).then(setOrder, () => {})
  }, [over, id])

  // Paid: fresh allowances everywhere on the page, once.
  useEffect(() => {
    if (order.status !== 'paid' || announced.current) return
    announced.current = true
    refreshUser().catch(notifyError)
    onDone(order)
  }, [order, onDone])

  // A provider's own page (Alipay, WeChat H5): go there; the link stays in case the browser stayed.
  const pageUrl = order.payment?.h5Url ?? (order.scene === 'native' ? undefined : order.payment?.payUrl)
  useEffect(() => {
    if (initial.status === 'pending' && !initial.demo && pageUrl && initial.scene !== 'jsapi') window.location.assign(pageUrl)
  }, [initial, pageUrl])

  async function demoPay() {
    if (busy) return
    setBusy(true)
    try {
      await confirmDemo(id)
      setOrder(await getOrder(id))
    } catch (e) {
      notifyError(e)
    } finally {
      setBusy(false)
    }
  }

  function jsapiPay() {
    const bridge = (window as unknown as { WeixinJSBridge?: Bridge }).WeixinJSBridge
    const p = order.payment
    if (!bridge || !p) return notifyError(new Error('请在微信内打开此页面完成支付'))
    bridge.invoke('getBrandWCPayRequest', p, () => getOrder(id).then(setOrder, () => {}))
  }

  const label = PROVIDER_LABELS[order.provider]
  return (
    <section
      aria-labelledby="lx-pay-title"
      data-testid="checkout"
      data-status={expired ? 'expired' : order.status}
      className="rounded-card border border-line bg-surface p-4 cq-md:p-5"
    >
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h3 id="lx-pay-title" className="font-semibold">
          {order.packageName}
        </h3>
        {order.demo ? (
          <span className="px-2 rounded-full text-xs bg-primary text-primary-ink">演示支付 · 不会扣款</span>
        ) : (
          <span className="text-sm text-muted">{label}</span>
        )}
        <span data-testid="pay-amount" className="ml-auto text-2xl font-bold text-primary">
          {formatYuan(order.amountFen)}
        </span>
      </div>
      <p className="mt-1 text-sm text-muted">{grantsText(order.grants)}</p>

      {order.status === 'paid' ? (
        <div role="status" className="mt-4 rounded-lg bg-ok/15 p-4 text-ok">
          <p className="font-semibold">支付成功，额度已到账</p>
          <p className="mt-1 text-sm">订单 {id}</p>
        </div>
      ) : order.status === 'refunded' ? (
        <p role="status" className="mt-4 text-sm text-muted">
          该订单已退款。
        </p>
      ) : expired ? (
        <div role="status" className="mt-4 rounded-lg bg-danger/15 p-4">
          <p className="font-semibold text-danger">{order.status === 'closed' ? '订单已关闭' : '订单已过期'}</p>
          <p className="mt-1 text-sm text-muted">超过 15 分钟未支付，订单已失效，未扣款。可以重新下单。</p>
          <button
            type="button"
            onClick={() => onRetry(order)}
            className="mt-3 h-10 px-5 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110"
          >
            重新下单
          </button>
        </div>
      ) : (
        <div className="mt-4 flex flex-col cq-md:flex-row gap-4 cq-md:items-center">
          {order.scene === 'native' && order.payment?.codeUrl && (
            <QrCode text={order.payment.codeUrl} label={`${label}二维码，金额 ${formatYuan(order.amountFen)}`} className="size-44 shrink-0 self-center" />
          )}
          <div className="min-w-0 flex-1 space-y-2">
            {order.scene === 'native' && (
              <p className="text-sm">
                {order.demo
                  ? '用手机扫码打开演示支付页，或点击下方按钮完成演示支付。'
                  : `请使用${order.provider === 'alipay' ? '支付宝' : '微信'}扫一扫完成支付。`}
              </p>
            )}
            <p className="text-sm text-muted">
              剩余支付时间{' '}
              <span data-testid="pay-countdown" className="font-mono text-ink">
                {countdown(order.expireTime, now)}
              </span>
            </p>
            <p aria-live="polite" className="text-sm text-muted">
              等待支付结果…
            </p>
            <div className="flex flex-wrap gap-2 pt-1">
              {order.demo && (
                <button
                  type="button"
                  onClick={demoPay}
                  aria-disabled={busy}
                  className="h-11 px-5 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110"
                >
                  {busy ? '支付中…' : `演示支付 ${formatYuan(order.amountFen)}`}
                </button>
              )}
              {order.scene === 'jsapi' && !order.demo && (
                <button type="button" onClick={jsapiPay} className="h-11 px-5 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
                  微信支付
                </button>
              )}
              {(pageUrl || (order.demo && order.payment?.payUrl)) && (
                <a
                  href={pageUrl ?? order.payment?.payUrl}
                  target={order.demo ? '_blank' : undefined}
                  rel="noopener"
                  className="h-11 px-5 inline-flex items-center rounded-lg border border-line hover:border-primary"
                >
                  {order.demo ? '打开演示支付页' : `前往${label}`}
                </a>
              )}
            </div>
          </div>
        </div>
      )}
    </section>
  )
}
