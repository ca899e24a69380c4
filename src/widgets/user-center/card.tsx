import { useRef, useState } from 'react'
import { ApiError, notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import { formatCount } from '../../core/format'
import { formatTime } from '../../core/time'
import { UNAUTHORIZED_CODES } from '../../core/wire'
import type * as On from '../../ui/events'
import { Log } from './log'
import { loadRechargeLog, redeemCard, validateCardCode, type RechargeLogEntry } from './state'

// 卡密兑换: redeem a recharge card, and the recharge log.

export function Card() {
  const [code, setCode] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [version, setVersion] = useState(0)
  const inputRef = useRef<HTMLInputElement>(null)

  async function submit(event: On.Submit) {
    event.preventDefault()
    if (busy) return
    // The field itself: a submit right after typing must not see the state of the render before.
    const code = inputRef.current?.value ?? ''
    const problem = validateCardCode(code)
    setError(problem)
    if (problem) return
    setBusy(true)
    try {
      const b = await redeemCard(code)
      setCode('')
      toast(`兑换成功！当前对话额度 ${formatCount(b.tokens)}，绘画 ${formatCount(b.mjCount)} 次，音乐 ${formatCount(b.sunoCount)} 次`, 'success')
      setVersion((v) => v + 1)
    } catch (e) {
      // A refused card is said next to the field; no answer or a lost session goes the usual way.
      if (e instanceof ApiError && !UNAUTHORIZED_CODES.includes(e.code)) setError(e.message)
      else notifyError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <>
      <form onSubmit={submit} noValidate className="rounded-card border border-line bg-surface p-4 cq-md:p-5">
        <label htmlFor="lx-card-code" className="block font-semibold">
          兑换卡密
        </label>
        <p className="mt-1 text-sm text-muted">输入购买或获赠的充值卡密，额度立即到账。每张卡密只能使用一次。</p>
        <div className="mt-3 flex flex-col cq-md:flex-row gap-2">
          <input
            id="lx-card-code"
            ref={inputRef}
            value={code}
            onInput={(e) => {
              setCode((e.target as HTMLInputElement).value)
              setError(null)
            }}
            autoComplete="off"
            spellCheck={false}
            maxLength={64}
            placeholder="请输入卡密"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'lx-card-error' : undefined}
            className="w-full cq-md:flex-1 min-w-0 h-11 px-3 rounded-lg border border-line bg-raised text-ink placeholder:text-muted outline-none focus:border-primary font-mono"
          />
          <button type="submit" aria-disabled={busy} className="h-11 px-6 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
            {busy ? '兑换中…' : '立即兑换'}
          </button>
        </div>
        {error && (
          <p id="lx-card-error" role="alert" className="mt-2 text-sm text-danger">
            {error}
          </p>
        )}
      </form>
      <h3 className="mt-8 mb-3 font-semibold">兑换记录</h3>
      <Log<RechargeLogEntry>
        label="兑换记录"
        load={loadRechargeLog}
        deps={[version]}
        empty="暂无兑换记录"
        row={(e) => (
          <>
            <div className="min-w-0 flex-1">
              <p className="text-sm font-mono truncate">{e.cardCode}</p>
              <p className="text-xs text-muted">{formatTime(e.createTime)}</p>
            </div>
            <p className="text-sm text-ok text-right">
              {[
                e.tokens ? `对话 +${formatCount(e.tokens)}` : '',
                e.mjCount ? `绘画 +${formatCount(e.mjCount)}` : '',
                e.sunoCount ? `音乐 +${formatCount(e.sunoCount)}` : ''
              ]
                .filter(Boolean)
                .join('，') || '—'}
            </p>
          </>
        )}
      />
    </>
  )
}
