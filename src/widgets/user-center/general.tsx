import { BALANCE_KINDS, balanceKindLabel, formatAllowance } from '../../core/allowances'
import { formatCount } from '../../core/format'
import { formatTime } from '../../core/time'
import type { LoginUser } from '../../core/types'
import { Log } from './log'
import { formatAmount, loadBalanceLog, type BalanceLogEntry } from './state'

// 账户总览: the allowances and the balance log.

export function General({ user }: { user: LoginUser }) {
  const expired = user.state === 0
  return (
    <>
      <ul aria-label="剩余额度" className="grid gap-3 grid-cols-3">
        {BALANCE_KINDS.map((k) => (
          <li key={k.kind} className="rounded-card border border-line bg-surface p-3 cq-md:p-5">
            <p className="text-xs cq-md:text-sm text-muted">{k.label}</p>
            <p data-testid={`allowance-${k.kind}`} className={`mt-1 cq-md:mt-2 text-xl cq-md:text-3xl font-bold ${expired ? 'text-danger' : 'text-primary'}`}>
              {formatAllowance(user[k.field], user.state)}
            </p>
            {!expired && <p className="mt-0.5 text-xs text-muted">{k.unit}</p>}
          </li>
        ))}
      </ul>
      {expired && <p className="mt-3 text-sm text-danger">账号已过期，工具暂不可用。可在「在线充值」或「卡密兑换」中充值，或联系管理员。</p>}
      <h3 className="mt-8 mb-3 font-semibold">额度明细</h3>
      <Log<BalanceLogEntry>
        label="额度明细"
        load={loadBalanceLog}
        deps={[user.tokens, user.mjCount, user.sunoCount]}
        empty="暂无额度变动记录"
        row={(e) => (
          <>
            <div className="min-w-0 flex-1">
              <p className="text-sm truncate" title={e.reason}>
                {e.reason}
              </p>
              <p className="text-xs text-muted">
                {formatTime(e.createTime)} · {balanceKindLabel(e.kind)}
              </p>
            </div>
            <div className="text-right shrink-0">
              <p className={`text-sm font-semibold ${e.amount < 0 ? 'text-ink' : 'text-ok'}`}>{formatAmount(e.amount)}</p>
              <p className="text-xs text-muted">余 {formatCount(e.balance)}</p>
            </div>
          </>
        )}
      />
    </>
  )
}
