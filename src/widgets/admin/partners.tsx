import { Spinner } from '../../ui/icons'
import { Badge, type Column, Heading, Table, useAdminList } from './parts'
import type { AdminPartner } from './state'

// 合作方: the partners of single sign-on (LINGXI_PARTNERS), read-only: they are configured on the
// server, and their secrets never leave it.

const columns: Column<AdminPartner>[] = [
  {
    label: '合作方',
    cell: (p) => (
      <span className="flex flex-col">
        <span className="font-semibold">{p.name}</span>
        <span className="font-mono text-xs text-muted">{p.id}</span>
      </span>
    )
  },
  {
    label: '允许的来源',
    cell: (p) => (
      <ul className="flex flex-col gap-0.5">
        {p.origins.map((o) => (
          <li key={o} className="font-mono text-sm break-all">
            {o}
          </li>
        ))}
      </ul>
    )
  },
  { label: '受信任', cell: (p) => (p.trusted ? <Badge tone="ok">受信任（可见完整手机号）</Badge> : <Badge tone="muted">否</Badge>) },
  { label: '可用工具', cell: (p) => (p.permissions.length > 0 ? p.permissions.join('、') : '无') },
  { label: '用户数', num: true, cell: (p) => p.users.toLocaleString('zh-CN') }
]

export function PartnersTab() {
  const { list } = useAdminList<AdminPartner>('partners')
  return (
    <>
      <Heading title="合作方">
        <p className="text-sm text-muted">合作方在服务器的 LINGXI_PARTNERS 中配置；这里只读，密钥不会显示。</p>
      </Heading>
      {list ? <Table label="合作方" columns={columns} rows={list} rowKey={(p) => p.id} empty="未配置合作方" /> : <Spinner label="加载合作方" />}
    </>
  )
}
