import { lazy, Suspense, useCallback, useEffect, useState } from 'react'
import { formatTime } from '../../core/time'
import { usePagedList } from '../../ui/use-paged-list'
import { canClaim, detailHref, OrderStatusBadge, PAY_MOVING, PayStateBadge, refusal } from './parts'
import { formatYuan, loadMyOrders, onRedPackState, ORDER_STATUS_TEXT, type Order, type OrderStatus, type PayState } from './state'

const RedPacket = lazy(() => import('./red-packet').then((m) => ({ default: m.RedPacket })))

const FILTERS: (OrderStatus | '')[] = ['', 'taken', 'submitted', 'approved', 'rejected']

/** 我的订单: my orders on this platform, newest first, with 领取红包 on approved ones. */
export function MyOrders({ quality, base }: { quality: boolean; base: string }) {
  const [status, setStatus] = useState<OrderStatus | ''>('')
  const [state, orders] = usePagedList({
    load: (pageNum, query: { status: OrderStatus | '' }) => loadMyOrders({ quality, status: query.status || undefined, pageNum }),
    key: (o: Order) => o.orderId
  })
  // null until the first page answered (or failed: then empty, with why in place of the list)
  const items = state.loaded || state.error ? state.list : null
  const { total, loading } = state
  const refused = refusal(state.error)
  const [claiming, setClaiming] = useState<Order | null>(null)

  useEffect(() => {
    void orders.reload({ status })
  }, [status])

  const paid = useCallback((orderId: string, payState: PayState) => {
    orders.update((list) => list.map((o) => (o.orderId === orderId && o.payState !== payState ? { ...o, payState } : o)))
  }, [])

  // Packets move on the server (sent, received, refunded) without anyone asking: follow them on the
  // account channel while one of them is on its way.
  const moving = items?.some((o) => o.status === 'approved' && PAY_MOVING.includes(o.payState)) ?? false
  useEffect(() => (moving ? onRedPackState((s) => paid(s.orderId, s.payState)) : undefined), [moving, paid])

  return (
    <div>
      <fieldset aria-label="按状态筛选" className="min-w-0 flex flex-wrap gap-2">
        {FILTERS.map((s) => (
          <button
            key={s || 'all'}
            type="button"
            aria-pressed={status === s}
            onClick={() => setStatus(s)}
            className={`h-8 px-3 rounded-full border text-sm ${status === s ? 'border-primary bg-primary/15 text-primary' : 'border-line text-muted hover:text-ink'}`}
          >
            {s ? ORDER_STATUS_TEXT[s] : '全部'}
          </button>
        ))}
      </fieldset>
      <div aria-live="polite" aria-busy={loading || undefined} className="mt-4">
        {items === null ? (
          <div role="status" className="py-16 grid place-items-center gap-3 text-muted text-sm">
            <span className="lx-spinner" />
            加载订单…
          </div>
        ) : items.length === 0 && refused ? (
          <p role="alert" data-testid="list-refused" className="py-16 text-center text-danger">
            {refused}
          </p>
        ) : items.length === 0 ? (
          <p className="py-16 text-center text-muted">{status ? '没有这个状态的订单' : '还没有接过单，去任务大厅看看吧'}</p>
        ) : (
          <>
            <ul aria-label="我的订单" className="flex flex-col divide-y divide-line rounded-card border border-line bg-surface">
              {items.map((o) => (
                <li key={o.orderId} data-testid="my-order" className="flex flex-wrap items-center gap-x-3 gap-y-2 px-4 py-3">
                  <div className="min-w-0 flex-1 basis-56">
                    <a href={detailHref(base, o.activityId, o.activitySessionId)} className="font-medium hover:text-primary break-words">
                      {o.activity?.title ?? '任务'}
                    </a>
                    <div className="mt-1 flex flex-wrap items-center gap-1.5 text-xs text-muted">
                      <OrderStatusBadge status={o.status} />
                      {o.status === 'approved' && <PayStateBadge state={o.payState} />}
                      {o.activity?.platformName && <span>{o.activity.platformName}</span>}
                      <span>接单于 {formatTime(o.takeTime)}</span>
                    </div>
                    {o.status === 'rejected' && o.rejectReason && <p className="mt-1 text-xs text-danger">未通过原因：{o.rejectReason}</p>}
                  </div>
                  <p className="text-primary font-semibold tabular-nums">
                    <span className="sr-only">奖励</span>¥{formatYuan(o.rewardFen)}
                  </p>
                  {canClaim(o) ? (
                    <button
                      type="button"
                      onClick={() => setClaiming(o)}
                      className="h-9 px-4 rounded-lg bg-[#e8473b] text-white font-semibold hover:brightness-110"
                    >
                      领取红包
                    </button>
                  ) : (
                    <a
                      href={detailHref(base, o.activityId, o.activitySessionId)}
                      className="h-9 px-4 inline-flex items-center rounded-lg border border-line text-sm text-muted hover:text-ink hover:border-primary"
                    >
                      {o.status === 'taken' || o.status === 'rejected' ? '去提交' : '查看'}
                    </a>
                  )}
                </li>
              ))}
            </ul>
            {items.length < total && (
              <div className="mt-4 text-center">
                <button
                  type="button"
                  onClick={() => orders.more()}
                  aria-disabled={loading || undefined}
                  className="h-9 px-6 rounded-lg border border-line text-sm text-muted hover:text-ink hover:border-primary"
                >
                  {loading ? '加载中…' : '加载更多'}
                </button>
              </div>
            )}
          </>
        )}
      </div>
      {claiming && (
        <Suspense fallback={null}>
          <RedPacket order={claiming} onClose={() => setClaiming(null)} onState={(s) => paid(claiming.orderId, s)} />
        </Suspense>
      )}
    </div>
  )
}
