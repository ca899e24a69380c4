import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import type * as On from '../../ui/events'
import { Spinner } from '../../ui/icons'
import { Badge, type Column, Heading, input, primary, small, Table, useAdminList } from './parts'
import { type AdminPartner, type AdminUser, adminCall, when } from './state'
import { UserDetail, Who } from './user-detail'

// 用户: search by phone, nickname, id or a partner's user id; filter by partner (user-detail.tsx: one account).

export function UsersTab() {
  const [query, setQuery] = useState('')
  const [partner, setPartner] = useState('')
  const partners = useAdminList<AdminPartner>('partners')
  const [list, setList] = useState<AdminUser[] | null>(null)
  const [busy, setBusy] = useState(false)
  const [open, setOpen] = useState<string | null>(null)

  async function search(q: string, from = partner) {
    setBusy(true)
    try {
      setList((await adminCall<{ list: AdminUser[] }>('users/search', { query: q, limit: 50, ...(from ? { partner: from } : {}) })).list)
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
    { label: '手机号 / 合作方', cell: (u) => <Who user={u} /> },
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
        <button
          type="button"
          className={small}
          onClick={() => setOpen(u.accountId)}
          aria-label={`查看 ${u.partner ? `${u.partner.id} ${u.partner.sub}` : u.phone}`}
        >
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
          placeholder="手机号、昵称、用户 ID 或合作方用户 ID"
        />
        {partners.list && partners.list.length > 0 && (
          <>
            <label htmlFor="lx-admin-user-partner" className="sr-only">
              按合作方筛选
            </label>
            <select
              id="lx-admin-user-partner"
              className={`${input} sm:w-48`}
              value={partner}
              onChange={(e) => {
                const next = (e.target as HTMLSelectElement).value
                setPartner(next)
                search(query.trim(), next)
              }}
            >
              <option value="">全部用户</option>
              {partners.list.map((p) => (
                <option key={p.id} value={p.id}>{`合作方：${p.name}`}</option>
              ))}
            </select>
          </>
        )}
        <button type="submit" className={primary} aria-disabled={busy}>
          搜索
        </button>
      </form>
      <Heading title="用户列表" />
      {list ? <Table label="用户列表" columns={columns} rows={list} rowKey={(u) => u.accountId} empty="没有找到用户" /> : <Spinner label="加载用户" />}
    </>
  )
}
