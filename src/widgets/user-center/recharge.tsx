import { useCallback, useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { Spinner } from '../../ui/icons'
import { Checkout } from './checkout'
import { Orders } from './orders'
import {
  createOrder,
  formatYuan,
  grantsText,
  loadPackages,
  loadPayMethods,
  newIdempotencyKey,
  PROVIDER_LABELS,
  type PayMethod,
  type PayOrder,
  type PayPackage,
  type PayProviderName,
  sceneFor
} from './recharge-state'

// 在线充值: the packages on sale, a way to pay, the order being paid, and my orders.

export function Recharge() {
  const [packages, setPackages] = useState<PayPackage[] | null>(null)
  const [methods, setMethods] = useState<PayMethod[]>([])
  const [chosen, setChosen] = useState<string | null>(null)
  const [provider, setProvider] = useState<PayProviderName | null>(null)
  const [order, setOrder] = useState<PayOrder | null>(null)
  const [busy, setBusy] = useState(false)
  const [version, setVersion] = useState(0)
  // One key per purchase: a second click after a lost answer is the same order, not a second one.
  const key = useRef<{ for: string; key: string } | null>(null)

  useEffect(() => {
    Promise.all([loadPackages(), loadPayMethods()])
      .then(([p, m]) => {
        const usable = m.filter((x) => sceneFor(x))
        const sorted = [...p].sort((a, b) => a.sort - b.sort)
        setPackages(sorted)
        setMethods(usable)
        setChosen((c) => c ?? (sorted.find((x) => x.badge) ?? sorted[0])?.id ?? null)
        // A real provider first; the demo only when it is all there is.
        setProvider((v) => v ?? (usable.find((x) => !x.demo) ?? usable[0])?.provider ?? null)
      })
      .catch((e) => {
        setPackages([])
        notifyError(e)
      })
  }, [])

  async function buy(packageId = chosen, via = provider) {
    const method = methods.find((m) => m.provider === via)
    const scene = method && sceneFor(method)
    if (busy || !packageId || !method || !scene) return
    const purpose = `${packageId}:${method.provider}:${scene}`
    if (key.current?.for !== purpose) key.current = { for: purpose, key: newIdempotencyKey() }
    setBusy(true)
    try {
      const created = await createOrder({ packageId, provider: method.provider, scene, idempotencyKey: key.current.key })
      key.current = null
      setOrder(created)
      setVersion((v) => v + 1)
    } catch (e) {
      notifyError(e)
    } finally {
      setBusy(false)
    }
  }

  const onDone = useCallback((paid: PayOrder) => {
    setOrder(paid)
    setVersion((v) => v + 1)
  }, [])

  if (!packages) return <Spinner label="加载充值套餐" />
  return (
    <>
      {order ? (
        <div className="space-y-3">
          <Checkout initial={order} onDone={onDone} onRetry={(o) => buy(o.packageId, o.provider)} />
          <button type="button" onClick={() => setOrder(null)} className="h-10 px-4 rounded-lg border border-line hover:border-primary text-sm">
            {order.status === 'pending' && order.expireTime > Date.now() ? '返回套餐（订单 15 分钟内仍可支付）' : '返回套餐'}
          </button>
        </div>
      ) : packages.length === 0 ? (
        <p className="py-10 text-center text-sm text-muted">暂无可购买的充值套餐，可使用「卡密兑换」充值。</p>
      ) : (
        <div className="space-y-5">
          <fieldset className="grid gap-3 cq-md:grid-cols-3">
            <legend className="sr-only">充值套餐</legend>
            {packages.map((p) => (
              <label
                key={p.id}
                data-testid="pay-package"
                className={`relative cursor-pointer rounded-card border p-3 cq-md:p-4 bg-surface hover:border-primary has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-primary ${p.id === chosen ? 'border-primary ring-1 ring-primary' : 'border-line'}`}
              >
                <input type="radio" name="lx-pay-package" value={p.id} checked={p.id === chosen} onChange={() => setChosen(p.id)} className="sr-only" />
                {p.badge && <span className="absolute top-3 right-3 px-2 rounded-full text-xs bg-primary text-primary-ink font-medium">{p.badge}</span>}
                <span className="block font-semibold pr-12">{p.name}</span>
                <span className="block mt-1 cq-md:mt-2 text-xl cq-md:text-2xl font-bold text-primary">{formatYuan(p.priceFen)}</span>
                <span className="block mt-1 cq-md:mt-2 text-sm text-muted">{grantsText(p.grants)}</span>
                {p.validityDays && <span className="block mt-1 text-xs text-muted">有效期 {p.validityDays} 天</span>}
              </label>
            ))}
          </fieldset>
          {methods.length === 0 ? (
            <p className="text-sm text-muted">在线支付暂未开通，可使用「卡密兑换」充值。</p>
          ) : (
            <div className="flex flex-col cq-md:flex-row cq-md:items-center gap-3">
              <fieldset className="flex flex-wrap gap-2">
                <legend className="sr-only">支付方式</legend>
                {methods.map((m) => (
                  <label
                    key={m.provider}
                    className={`h-11 px-4 inline-flex items-center cursor-pointer rounded-lg border has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-primary ${m.provider === provider ? 'border-primary text-primary font-medium' : 'border-line hover:border-primary'}`}
                  >
                    <input
                      type="radio"
                      name="lx-pay-method"
                      value={m.provider}
                      checked={m.provider === provider}
                      onChange={() => setProvider(m.provider)}
                      className="sr-only"
                    />
                    {PROVIDER_LABELS[m.provider]}
                    {m.demo && <span className="ml-1 text-xs text-muted">（不会扣款）</span>}
                  </label>
                ))}
              </fieldset>
              <button
                type="button"
                onClick={() => buy()}
                aria-disabled={busy || !chosen || !provider}
                className="cq-md:ml-auto h-11 px-8 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110"
              >
                {busy ? '下单中…' : `立即支付 ${formatYuan(packages.find((p) => p.id === chosen)?.priceFen ?? 0)}`}
              </button>
            </div>
          )}
        </div>
      )}
      <h3 className="mt-8 mb-3 font-semibold">充值订单</h3>
      <Orders deps={[version]} onResume={setOrder} />
    </>
  )
}
