import { useEffect, useRef, useState } from 'react'
import { api, notifyError, type PermissionNode } from '../../core/api'
import { toast } from '../../core/emit'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { Badge, button, type Column, Field, FormError, Heading, input, Modal, primary, small, Table, useSubmit, dangerSubmit } from './parts'
import { type AdminUser, type AdminUserDetail, adminCall, FIELDS, KINDS, kindLabel, when } from './state'

// 用户: search, one account's allowances, logs and sessions; adjust, disable/enable, permissions.

export function UsersTab() {
  const [query, setQuery] = useState('')
  const [list, setList] = useState<AdminUser[] | null>(null)
  const [busy, setBusy] = useState(false)
  const [open, setOpen] = useState<string | null>(null)

  async function search(q: string) {
    setBusy(true)
    try {
      setList((await adminCall<{ list: AdminUser[] }>('users/search', { query: q, limit: 50 })).list)
    } catch (e) {
      notifyError(e)
    } finally {
      setBusy(false)
    }
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: loaded once, when the tab opens
  useEffect(() => {
    search('')
  }, [])

  function submit(event: On.Submit) {
    event.preventDefault()
    search(query.trim())
  }

  if (open) return <UserDetail accountId={open} onBack={() => setOpen(null)} onChanged={() => search(query.trim())} />

  const columns: Column<AdminUser>[] = [
    { label: '手机号', nowrap: true, cell: (u) => <span className="font-mono">{u.phone}</span> },
    { label: '昵称', cell: (u) => u.nickName || '—' },
    {
      label: '状态',
      cell: (u) => (u.disabled ? <Badge tone="danger">已停用</Badge> : u.state === 1 ? <Badge tone="ok">正常</Badge> : <Badge tone="muted">已过期</Badge>)
    },
    { label: '权限', cell: (u) => (u.permissionCodes.includes('ADMIN') ? <Badge tone="primary">运营</Badge> : `${u.permissionCodes.length} 项`) },
    { label: '注册时间', nowrap: true, cell: (u) => when(u.createTime) },
    {
      label: '操作',
      cell: (u) => (
        <button type="button" className={small} onClick={() => setOpen(u.accountId)} aria-label={`查看 ${u.phone}`}>
          查看
        </button>
      )
    }
  ]

  return (
    <>
      <form aria-label="查找用户" onSubmit={submit} className="flex flex-col sm:flex-row gap-2">
        <label htmlFor="lx-admin-user-q" className="sr-only">
          搜索用户
        </label>
        <input
          id="lx-admin-user-q"
          className={`${input} sm:flex-1`}
          value={query}
          maxLength={64}
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          placeholder="手机号、昵称或用户 ID"
        />
        <button type="submit" className={primary} aria-disabled={busy}>
          搜索
        </button>
      </form>
      <Heading title="用户列表" />
      {list ? <Table label="用户列表" columns={columns} rows={list} rowKey={(u) => u.accountId} empty="没有找到用户" /> : <Spinner label="加载用户" />}
    </>
  )
}

function UserDetail({ accountId, onBack, onChanged }: { accountId: string; onBack: () => void; onChanged: () => void }) {
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
                <span className="font-mono">{user.phone}</span>
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

function AdjustDialog({ open, user, onClose, onDone }: { open: boolean; user: AdminUserDetail; onClose: () => void; onDone: () => void }) {
  const [kind, setKind] = useState(KINDS[0]!.id as string)
  const [amount, setAmount] = useState('')
  const [reason, setReason] = useState('')
  const { error, setError, busy, run } = useSubmit()
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    if (open) {
      setAmount('')
      setReason('')
      setError(null)
    }
  }, [open])

  function submit(event: On.Submit) {
    event.preventDefault()
    const n = Number(amount)
    if (!/^-?\d+$/.test(amount.trim()) || n === 0) return setError('请输入非 0 的整数，负数表示扣减')
    if (!reason.trim()) return setError('请填写调整原因')
    run(async () => {
      await adminCall('users/adjust', { accountId: user.accountId, kind, amount: n, reason: reason.trim() })
      onDone()
    })
  }

  return (
    <Modal open={open} title="调整额度" onClose={onClose}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <p className="text-sm text-muted">{user.phone} 的额度；原因会写入用户的余额记录与审计日志。</p>
        <Field id="lx-adjust-kind" label="额度种类">
          <select id="lx-adjust-kind" className={input} value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)} data-autofocus>
            {KINDS.map((k) => (
              <option key={k.id} value={k.id}>
                {k.label}
              </option>
            ))}
          </select>
        </Field>
        <Field id="lx-adjust-amount" label="数量" hint="正数增加，负数扣减（不会扣到 0 以下）">
          <input id="lx-adjust-amount" className={input} inputMode="numeric" value={amount} onInput={(e) => setAmount((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="lx-adjust-reason" label="原因（必填）">
          <textarea
            id="lx-adjust-reason"
            className={`${input} h-20 py-2`}
            maxLength={200}
            value={reason}
            onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)}
          />
        </Field>
        <FormError id="lx-adjust-error" error={error} />
        <div className="flex justify-end gap-2">
          <button type="button" className={button} onClick={onClose}>
            取消
          </button>
          <button type="submit" className={primary} aria-disabled={busy}>
            确认调整
          </button>
        </div>
      </form>
    </Modal>
  )
}

function StateDialog({ open, user, onClose, onDone }: { open: boolean; user: AdminUserDetail; onClose: () => void; onDone: (message: string) => void }) {
  const disabling = !user.disabled
  const [reason, setReason] = useState('')
  const { error, setError, busy, run } = useSubmit()
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    if (open) {
      setReason('')
      setError(null)
    }
  }, [open])

  function submit(event: On.Submit) {
    event.preventDefault()
    if (disabling && !reason.trim()) return setError('请填写停用原因')
    run(async () => {
      await adminCall(disabling ? 'users/disable' : 'users/enable', { accountId: user.accountId, ...(reason.trim() ? { reason: reason.trim() } : {}) })
      onDone(disabling ? '账号已停用' : '账号已启用')
    })
  }

  return (
    <Modal open={open} title={disabling ? '停用账号' : '启用账号'} onClose={onClose}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <p className="text-sm">
          {disabling
            ? `停用 ${user.phone} 后，该账号的所有登录会话立即失效、进行中的对话被中断，且无法再登录。`
            : `启用 ${user.phone} 后，该账号可以重新登录。`}
        </p>
        <Field id="lx-state-reason" label={disabling ? '停用原因（必填）' : '原因（选填）'}>
          <textarea
            id="lx-state-reason"
            className={`${input} h-20 py-2`}
            maxLength={200}
            value={reason}
            onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)}
            data-autofocus
          />
        </Field>
        <FormError id="lx-state-error" error={error} />
        <div className="flex justify-end gap-2">
          <button type="button" className={button} onClick={onClose}>
            取消
          </button>
          <button type="submit" className={disabling ? dangerSubmit : primary} aria-disabled={busy}>
            {disabling ? '确认停用' : '确认启用'}
          </button>
        </div>
      </form>
    </Modal>
  )
}

const flatten = (nodes: PermissionNode[]): string[] => nodes.flatMap((n) => [n.permissionCode, ...flatten(n.childList ?? [])])

function PermissionsDialog({ open, user, onClose, onDone }: { open: boolean; user: AdminUserDetail; onClose: () => void; onDone: () => void }) {
  const [codes, setCodes] = useState<string[] | null>(null)
  const [held, setHeld] = useState<Set<string>>(new Set())
  const { error, setError, busy, run } = useSubmit()
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is filled anew when the dialog opens, only then
  useEffect(() => {
    if (!open) return
    setHeld(new Set(user.permissionCodes))
    setError(null)
    api
      .userPermission()
      .then(({ bodyList }) => setCodes(flatten(bodyList[0]?.childList ?? bodyList)))
      .catch(notifyError)
  }, [open])

  function toggle(code: string) {
    setHeld((h) => {
      const next = new Set(h)
      if (next.has(code)) next.delete(code)
      else next.add(code)
      return next
    })
  }

  function submit(event: On.Submit) {
    event.preventDefault()
    const grant = [...held].filter((c) => !user.permissionCodes.includes(c))
    const revoke = user.permissionCodes.filter((c) => !held.has(c))
    if (grant.length === 0 && revoke.length === 0) return setError('没有改动')
    run(async () => {
      await adminCall('users/permissions', { accountId: user.accountId, grant, revoke })
      onDone()
    })
  }

  return (
    <Modal open={open} title="授予与收回权限" onClose={onClose}>
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        {!codes ? (
          <Spinner label="加载权限" />
        ) : (
          <fieldset className="grid grid-cols-1 sm:grid-cols-2 gap-2">
            <legend className="sr-only">{user.phone} 的权限</legend>
            {codes.map((code) => (
              <label key={code} className="flex items-center gap-2 text-sm font-mono break-all">
                <input type="checkbox" className="size-4 accent-[var(--color-primary)]" checked={held.has(code)} onChange={() => toggle(code)} />
                {code}
              </label>
            ))}
          </fieldset>
        )}
        <FormError id="lx-perm-error" error={error} />
        <div className="flex justify-end gap-2">
          <button type="button" className={button} onClick={onClose}>
            取消
          </button>
          <button type="submit" className={primary} aria-disabled={busy}>
            保存
          </button>
        </div>
      </form>
    </Modal>
  )
}
