import { useEffect, useState } from 'react'
import { api, notifyError, type PermissionNode } from '../../core/api'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { button, dangerSubmit, Field, FormError, input, Modal, primary, useSubmit } from './parts'
import { type AdminUserDetail, adminCall, KINDS } from './state'

// The account dialogs of 用户: adjust an allowance, disable / enable, permissions (user-detail.tsx).

export function AdjustDialog({ open, user, onClose, onDone }: { open: boolean; user: AdminUserDetail; onClose: () => void; onDone: () => void }) {
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

export function StateDialog({ open, user, onClose, onDone }: { open: boolean; user: AdminUserDetail; onClose: () => void; onDone: (message: string) => void }) {
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

export function PermissionsDialog({ open, user, onClose, onDone }: { open: boolean; user: AdminUserDetail; onClose: () => void; onDone: () => void }) {
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
