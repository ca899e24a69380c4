import { formatTime } from '../../core/time'
import { Log } from './log'
import { formatYuan, loadOrders, PROVIDER_LABELS, type PayOrder, STATUS_LABELS } from './recharge-state'

// 充值订单: my orders, a page at a time; a pending one can be paid from here until it expires.

const TONE: Record<PayOrder['status'], string> = {
  pending: 'bg-primary/15 text-primary',
  paid: 'bg-ok/15 text-ok',
  closed: 'bg-raised text-muted',
  refunded: 'bg-danger/15 text-danger'
}

export function Orders({ deps, onResume }: { deps: unknown[]; onResume(order: PayOrder): void }) {
  return (
    <Log<PayOrder & { id: string }>
      label="充值订单"
      load={loadOrders}
      deps={deps}
      empty="暂无充值订单"
      row={(o) => (
        <>
          <div className="min-w-0 flex-1">
            <p className="text-sm truncate">
              {o.packageName}
              <span className="ml-2 text-xs text-muted">{PROVIDER_LABELS[o.provider]}</span>
            </p>
            <p className="text-xs text-muted truncate">
              {formatTime(o.createTime)} · {o.orderId}
            </p>
          </div>
          <div className="text-right shrink-0">
            <p className="text-sm font-semibold">{formatYuan(o.amountFen)}</p>
            {o.status === 'pending' && o.expireTime > Date.now() ? (
              <button
                type="button"
                data-testid="order-status"
                onClick={() => onResume(o)}
                className={`px-2 rounded-full text-xs ${TONE.pending} hover:brightness-110`}
              >
                待支付 · 去支付
              </button>
            ) : (
              <span data-testid="order-status" className={`px-2 rounded-full text-xs ${TONE[o.status]}`}>
                {STATUS_LABELS[o.status === 'pending' ? 'closed' : o.status]}
                {o.status === 'paid' && o.refundedFen > 0 ? `（已退 ${formatYuan(o.refundedFen)}）` : ''}
              </span>
            )}
          </div>
        </>
      )}
    />
  )
}
