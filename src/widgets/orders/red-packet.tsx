import { useEffect, useRef, useState } from 'react'
import { ApiError } from '../../core/api'
import { EVENT_WX_LOGIN } from '../../core/wire'
import { siteHref } from '../../ui/boot'
import { Dialog } from '../../ui/dialog'
import { claimRedPack, formatYuan, isPayFinal, PAY_STATE_TEXT, type PayState, type RedPackState } from './state'
import { useEffectEvent } from '../../ui/use-effect-event'

/** The two packet images (the host page preloads them). */
export const PACKET_CLOSED = '/red-packet-closed.svg'
export const PACKET_OPEN = '/red-packet-open.svg'

/**
 * - `closed`: the packet, waiting for 開.
 * - `opening`: 開 was tapped: the coin spins while the packet is sent.
 * - `open`: the packet is open (its state says whether it arrived).
 * - `refused`: the server refused (no WeChat bound, not approved…).
 */
type Phase = 'closed' | 'opening' | 'open' | 'refused'

const reduced = () => typeof matchMedia !== 'undefined' && matchMedia('(prefers-reduced-motion: reduce)').matches

const RESULT_TEXT: Partial<Record<PayState, string>> = {
  SENDING: '红包发放中，请稍候…',
  SENT: '红包已发到你的微信，请在微信中领取',
  RECEIVED: '红包已领取，奖励已到账',
  FAILED: '红包发放失败，可稍后重试',
  RFUND_ING: '红包未在 24 小时内领取，正在退回',
  REFUND: '红包未领取，已退回'
}

/**
 * 领取红包: a dialog with the closed packet; 開 sends the reward as a WeChat red packet
 * (`wx-red-pack/v2/send`), spinning until the packet opens on the amount (also while the server is
 * still sending it: `paying`), then follows the account channel and `check-state` until it is sent,
 * received or failed. An order already paid opens at once.
 */
export function RedPacket({
  order,
  onClose,
  onState
}: {
  order: { orderId: string; rewardFen: number; payState: PayState }
  onClose: () => void
  onState?: (s: PayState) => void
}) {
  const alreadyPaid = order.payState !== 'none' && order.payState !== 'FAILED'
  const [phase, setPhase] = useState<Phase>('closed')
  const phaseRef = useRef(phase)
  phaseRef.current = phase
  const [state, setState] = useState<RedPackState | null>(null)
  const [error, setError] = useState('')
  const coin = useRef<HTMLButtonElement>(null)
  const card = useRef<HTMLDivElement>(null)
  const controller = useRef<AbortController | null>(null)
  const spin = useRef<Animation | null>(null)

  useEffect(() => () => controller.current?.abort(), [])
  // Bound WeChat in the popup: try again by itself.
  const retry = useEffectEvent(() => void open())
  useEffect(() => {
    const again = () => {
      if (phaseRef.current === 'refused') setTimeout(retry, 300)
    }
    addEventListener(EVENT_WX_LOGIN, again)
    return () => removeEventListener(EVENT_WX_LOGIN, again)
  }, [])
  // Paid before: open on the amount and follow the state (as the packet was when it mounted).
  const openIfPaid = useEffectEvent(() => {
    if (alreadyPaid) void open()
  })
  useEffect(() => openIfPaid(), [])

  useEffect(() => {
    if (phase !== 'open' || reduced() || !card.current?.animate) return
    card.current.animate(
      [
        { transform: 'scale(0.85) rotateY(90deg)', opacity: 0.4 },
        { transform: 'scale(1.03) rotateY(0deg)', opacity: 1, offset: 0.7 },
        { transform: 'scale(1)', opacity: 1 }
      ],
      { duration: 520, easing: 'ease-out' }
    )
  }, [phase])

  function stopSpin() {
    const a = spin.current
    spin.current = null
    if (!a) return
    a.finished?.catch(() => {}) // cancelling rejects it: nobody waits on it
    a.cancel()
  }

  async function open() {
    if (phase === 'opening') return
    setPhase('opening')
    setError('')
    if (!reduced() && coin.current?.animate) {
      stopSpin()
      spin.current = coin.current.animate([{ transform: 'rotateY(0deg)' }, { transform: 'rotateY(360deg)' }], { duration: 700, iterations: Infinity })
    }
    controller.current?.abort()
    const ctl = new AbortController()
    controller.current = ctl
    const started = Date.now()
    let shown = false
    const show = async (s: RedPackState) => {
      setState(s)
      onState?.(s.payState)
      // Not accepted yet: still being sent (the coin keeps turning), or refused (said below).
      if (s.payState === 'none') return
      if (!shown) {
        shown = true
        // Let the coin turn at least once: the packet opens, it does not blink.
        const left = reduced() ? 0 : 700 - (Date.now() - started)
        if (left > 0) await new Promise((r) => setTimeout(r, left))
        stopSpin()
        if (!ctl.signal.aborted) setPhase('open')
      }
    }
    try {
      const last = await claimRedPack(order.orderId, { signal: ctl.signal, live: true, onState: (s) => void show(s) })
      if (last.payState === 'none' && !ctl.signal.aborted) {
        stopSpin()
        setError(last.paying ? '红包仍在发放中，请稍后在「我的订单」查看' : last.failReason || '红包暂未发出，请稍后重试')
        setPhase('refused')
      }
    } catch (e) {
      if (ctl.signal.aborted) return
      stopSpin()
      setError(e instanceof ApiError ? e.message : '网络异常，红包没有发出，请稍后重试')
      setPhase('refused')
    }
  }

  const pay = state?.payState
  const amount = formatYuan(state?.amountFen ?? order.rewardFen)
  const opened = phase === 'open' && state
  return (
    <Dialog open onClose={onClose} title="领取红包" hideTitle placement="center" width={360}>
      <div data-testid="red-packet" data-phase={phase} data-pay-state={pay ?? ''} className="flex flex-col items-center gap-4 [perspective:900px]">
        {/* The coin of the closed packet's image is the 開 button, laid exactly over it. */}
        <div ref={card} className="relative w-[min(240px,60vw)] aspect-[300/420] select-none">
          {opened ? (
            <>
              <img src={siteHref(PACKET_OPEN)} alt="" className="absolute inset-0 size-full" draggable={false} />
              <div className="absolute inset-x-[9%] top-[17%] h-[48%] flex flex-col items-center justify-center text-center text-[#8a3a10]">
                <p className="text-xs">接单奖励</p>
                <p className="mt-1 font-bold tabular-nums leading-none">
                  <span className="text-lg">¥</span>
                  <span data-testid="red-packet-amount" className="text-4xl">
                    {amount}
                  </span>
                </p>
                <p className="mt-2 text-[11px]">微信红包</p>
              </div>
            </>
          ) : (
            <>
              <img src={siteHref(PACKET_CLOSED)} alt="" className="absolute inset-0 size-full" draggable={false} />
              <button
                ref={coin}
                type="button"
                onClick={() => void open()}
                aria-label={phase === 'opening' ? '正在打开红包' : `开红包，奖励 ${amount} 元`}
                aria-disabled={phase === 'opening' || undefined}
                className="absolute left-[33.5%] top-[36.8%] w-[33%] h-[23.6%] rounded-full bg-[radial-gradient(circle_at_40%_35%,#ffe9a8,#f5c451_60%,#d99a1e)] border-[3px] border-[#b9801a] text-[#8a5a06] text-4xl font-bold shadow-lg hover:brightness-105 focus-visible:outline-white"
              >
                開
              </button>
            </>
          )}
        </div>
        <div aria-live="polite" className="min-h-12 text-center text-sm">
          {phase === 'closed' && <p className="text-muted">点击「開」领取 {amount} 元微信红包</p>}
          {phase === 'opening' && (
            <p role="status" data-testid="red-packet-paying" className="text-muted">
              {state?.paying ? '红包发放中，微信支付处理较慢，请稍候…' : '正在发放红包…'}
            </p>
          )}
          {opened && state?.demo && (
            <p data-testid="red-packet-demo" className="mb-1 inline-block px-2 rounded border border-primary/50 text-primary text-xs">
              演示红包：离线演示，未实际发放
            </p>
          )}
          {opened && (
            <p data-testid="red-packet-state" className={pay === 'FAILED' || pay === 'REFUND' ? 'text-danger' : pay === 'SENDING' ? 'text-muted' : 'text-ok'}>
              {RESULT_TEXT[pay!] ?? PAY_STATE_TEXT[pay!] ?? pay}
            </p>
          )}
          {opened && state?.failReason && (pay === 'FAILED' || pay === 'SENDING') && <p className="mt-1 text-xs text-muted">{state.failReason}</p>}
          {phase === 'refused' && (
            <p role="alert" data-testid="red-packet-error" className={state?.paying ? 'text-muted' : 'text-danger'}>
              {error}
            </p>
          )}
          {opened && pay === 'SENDING' && !isPayFinal(pay) && <span className="mt-2 inline-block lx-spinner !size-4 !border-2" aria-hidden="true" />}
        </div>
        <div className="flex gap-2">
          {phase === 'refused' && /绑定微信/.test(error) && (
            <button
              type="button"
              onClick={() => void import('../../ui/login/login-dialog').then((m) => m.startWechatBind())}
              className="h-10 px-5 rounded-lg bg-[#2aae67] text-white font-semibold hover:brightness-110"
            >
              微信登录绑定
            </button>
          )}
          {(phase === 'refused' || (opened && pay === 'FAILED')) && (
            <button type="button" onClick={() => void open()} className="h-10 px-6 rounded-lg bg-[#e8473b] text-white font-semibold hover:brightness-110">
              重试
            </button>
          )}
          <button type="button" onClick={onClose} className="h-10 px-6 rounded-lg border border-line text-ink hover:border-primary">
            {opened ? '完成' : '关闭'}
          </button>
        </div>
      </div>
    </Dialog>
  )
}
