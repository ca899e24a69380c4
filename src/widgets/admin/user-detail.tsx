import { useEffect, useRef, useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import { Spinner } from '../../ui/icons'
import { Badge, button, Heading, small, Table } from './parts'
import { type AdminUser, type AdminUserDetail, adminCall, FIELDS, kindLabel, when } from './state'
import { AdjustDialog, PermissionsDialog, StateDialog } from './user-dialogs'

// One account of 用户: allowances, balance and recharge logs, sessions; the dialogs that change it.

/** Who the account is: its phone, or (a partner's user has none) the partner and the partner's user id. */
export function Who({ user }: { user: AdminUser }) {
  if (!user.partner) return <span className="font-mono">{user.phone}</span>
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <Badge tone="primary">{`合作方 ${user.partner.id}`}</Badge>
      <span className="font-mono break-all">{user.partner.sub}</span>
    </span>
  )
}

export function UserDetail({ accountId, onBack, onChanged }: { accountId: string; onBack: () => void; onChanged: () => void }) {
  const [user, setUser] = useState<AdminUserDetail | null>(null)
  const [dialog, setDialog] = useState<'adjust' | 'disable' | 'enable' | 'permissions' | null>(null)
  const back = useRef<HTMLButtonElement>(null)

  async function load() {
    try {
      setUser(await adminCall<AdminUserDetail>('users/detail', { accountId }))
    } catch (e) {
      notifyError(e)
    }
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: the account shown changes with accountId alone
  useEffect(() => {
    load()
    back.current?.focus()
  }, [accountId])

  function done(message: string) {
    setDialog(null)
    toast(message, 'success')
    load()
    onChanged()
  }

  return (
    <div>
      <button ref={back} type="button" onClick={onBack} className={small}>
        ← 返回列表
      </button>
      {!user ? (
        <Spinner label="加载用户" />
      ) : (
        <>
          <div className="mt-4 rounded-card border border-line bg-surface p-4 flex flex-col sm:flex-row sm:items-center gap-3">
            <div className="min-w-0 flex-1">
              <h3 className="text-lg font-semibold flex flex-wrap items-center gap-2">
                <Who user={user} />
                {user.disabled ? <Badge tone="danger">已停用</Badge> : <Badge tone="ok">正常</Badge>}
              </h3>
              <p className="text-sm text-muted break-all">
                {user.nickName || '未设置昵称'} · ID {user.accountId} · 注册于 {when(user.createTime)}
              </p>
              {user.disabledReason && <p className="text-sm text-danger">停用原因：{user.disabledReason}</p>}
            </div>
            <div className="flex flex-wrap gap-2">
              <button type="button" className={button} onClick={() => setDialog('adjust')}>
                调整额度
              </button>
              <button type="button" className={button} onClick={() => setDialog('permissions')}>
                权限
              </button>
              {user.disabled ? (
                <button type="button" className={button} onClick={() => setDialog('enable')}>
                  启用账号
                </button>
              ) : (
                <button type="button" className={`${button} text-danger`} onClick={() => setDialog('disable')}>
                  停用账号
                </button>
              )}
            </div>
          </div>
          <dl className="mt-4 grid grid-cols-3 gap-3">
            {FIELDS.map((f) => (
              <div key={f.field} className="rounded-card border border-line bg-surface p-3">
                <dt className="text-xs text-muted">{f.label}</dt>
                <dd data-testid={`admin-balance-${f.field}`} className="text-lg font-semibold tabular-nums">
                  {(user.balances[f.field] ?? 0).toLocaleString('zh-CN')}
                </dd>
              </div>
            ))}
          </dl>
          <Heading title="余额记录" />
          <Table
            label="余额记录"
            rows={user.balanceLog}
            rowKey={(l) => l.id}
            empty="暂无余额记录"
            columns={[
              { label: '时间', nowrap: true, cell: (l) => when(l.createTime) },
              { label: '种类', cell: (l) => kindLabel(l.kind) },
              {
                label: '变动',
                num: true,
                cell: (l) => (
                  <span className={l.amount >= 0 ? 'text-ok' : 'text-danger'}>{`${l.amount > 0 ? '+' : ''}${l.amount.toLocaleString('zh-CN')}`}</span>
                )
              },
              { label: '余额', num: true, cell: (l) => l.balance.toLocaleString('zh-CN') },
              { label: '原因', cell: (l) => l.reason }
            ]}
          />
          <Heading title="充值卡记录" />
          <Table
            label="充值卡记录"
            rows={user.rechargeLog}
            rowKey={(l) => l.id}
            empty="暂无兑换记录"
            columns={[
              { label: '时间', cell: (l) => when(l.createTime) },
              { label: '卡密', cell: (l) => <span className="font-mono">{l.codeMask}</span> },
              {
                label: '额度',
                cell: (l) =>
                  Object.entries(l.grants)
                    .filter(([, n]) => n > 0)
                    .map(([k, n]) => `${kindLabel(k)} +${n}`)
                    .join('，') || '—'
              }
            ]}
          />
          <Heading title="登录会话" />
          <Table
            label="登录会话"
            rows={user.sessions}
            rowKey={(s) => s.id}
            empty="暂无会话"
            columns={[
              { label: '平台', cell: (s) => s.platform },
              { label: '登录时间', cell: (s) => when(s.createTime) },
              { label: '到期', cell: (s) => when(s.expiresAt) },
              {
                label: '状态',
                cell: (s) =>
                  s.active ? <Badge tone="ok">有效</Badge> : <Badge tone="muted">{s.revokeReason ? `已结束（${s.revokeReason}）` : '已结束'}</Badge>
              }
            ]}
          />
          <AdjustDialog open={dialog === 'adjust'} user={user} onClose={() => setDialog(null)} onDone={() => done('额度已调整')} />
          <StateDialog open={dialog === 'disable' || dialog === 'enable'} user={user} onClose={() => setDialog(null)} onDone={done} />
          <PermissionsDialog open={dialog === 'permissions'} user={user} onClose={() => setDialog(null)} onDone={() => done('权限已更新')} />
        </>
      )}
    </div>
  )
}
