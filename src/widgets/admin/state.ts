import { ApiError, NetworkError } from '../../core/api'
import { BALANCE_KINDS } from '../../core/allowances'
import { $config } from '../../core/config'
import { MSG_SYSTEM_ERROR } from '../../core/messages'
import { $token } from '../../core/stores'

// The operator API (/api/admin/*, docs/deployment.md "Operating Lingxi"): its calls, and the
// shapes it answers. The console keeps no store of its own: each tab loads what it shows.

/**
 * The headers of a call: the CSRF guard of the session cookie, and a bearer only when one is set
 * (a script, a test) — not the marker of a cookie session (`session:…`, core/stores.ts).
 */
function headers(): Record<string, string> {
  const h: Record<string, string> = { 'X-Lingxi-Request': '1' }
  const token = $token.get()
  if (token && !token.startsWith('session:')) h.Authorization = `Bearer ${token}`
  return h
}

const url = (path: string) => `${$config.get().apiBase}/api/admin/${path}`

/** POSTs to `/api/admin/<path>` and unwraps the envelope (errors as core/api's `request`). */
export async function adminCall<T>(path: string, body: object = {}): Promise<T> {
  let answer: { code?: unknown; message?: unknown; data?: unknown }
  try {
    const res = await fetch(url(path), {
      method: 'POST',
      headers: { ...headers(), 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'include'
    })
    answer = JSON.parse(await res.text())
  } catch (cause) {
    throw new NetworkError(MSG_SYSTEM_ERROR, { cause })
  }
  if (typeof answer?.code !== 'number') throw new NetworkError()
  if (answer.code !== 2000) throw new ApiError(answer.code, String(answer.message ?? ''))
  return answer.data as T
}

/** GETs a CSV of the operator API and saves it under the server's file name. */
export async function downloadCsv(path: string, fallback: string): Promise<void> {
  let res: Response
  try {
    res = await fetch(url(path), { headers: headers(), credentials: 'include' })
  } catch (cause) {
    throw new NetworkError(MSG_SYSTEM_ERROR, { cause })
  }
  if (!res.ok || !res.headers.get('content-type')?.includes('text/csv')) {
    const body = (await res.json().catch(() => null)) as { code?: number; message?: string } | null
    if (body && typeof body.code === 'number') throw new ApiError(body.code, String(body.message ?? ''))
    throw new NetworkError()
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallback
  const href = URL.createObjectURL(await res.blob())
  const a = document.createElement('a')
  a.href = href
  a.download = name
  a.rel = 'noopener'
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(href), 10_000)
}

export interface AdminUser {
  accountId: string
  /** '' for a partner's user: see `partner`. */
  phone: string
  /** The partner (single sign-on) that identified the account, and the partner's own user id. */
  partner: { id: string; sub: string } | null
  nickName: string
  state: number
  disabled: boolean
  permissionCodes: string[]
  createTime: string
}

/** A configured partner (LINGXI_PARTNERS), as /api/admin/partners lists it: never its secret. */
export interface AdminPartner {
  id: string
  name: string
  origins: string[]
  permissions: string[]
  start: Record<string, number>
  trusted: boolean
  users: number
}

export interface AdminUserDetail extends AdminUser {
  disabledReason: string | null
  balances: Record<string, number>
  balanceLog: { id: number; kind: string; amount: number; balance: number; reason: string; createTime: string }[]
  rechargeLog: { id: number; cardId: string; codeMask: string; grants: Record<string, number>; createTime: string }[]
  sessions: { id: number; platform: string; createTime: string; expiresAt: string; active: boolean; revokeReason: string | null }[]
}

export interface CardBatch {
  batchId: string
  note: string
  grants: Record<string, number>
  count: number
  redeemed: number
  voided: number
  expiresAt: string | null
  createTime: string
}

export interface PayPackage {
  id: string
  name: string
  priceFen: number
  grants: Record<string, number>
  validityDays: number | null
  badge: string | null
  sort: number
  enabled: boolean
  createTime: string
  updateTime: string
}

export interface PayOrder {
  orderId: string
  accountId: string
  payerPhone: string | null
  packageId: string
  packageName: string
  grants: Record<string, number>
  amountFen: number
  refundedFen: number
  provider: string
  scene: string
  status: string
  providerTradeNo: string | null
  createTime: string
  payTime: string | null
  refundTime: string | null
}

export interface AuditLine {
  id: number
  actorId: string
  actorPhone: string
  action: string
  target: string
  before: unknown
  after: unknown
  reason: string | null
  requestId: string | null
  createdAt: string
}

/** The allowance kinds by the ids the operator API uses (tokens, mj, suno), with their labels. */
export const KINDS = BALANCE_KINDS.map((k) => ({ id: k.kind, label: k.label }))
/** `user/detail`'s balances are by wire field (tokens, mjCount, sunoCount). */
export const FIELDS = BALANCE_KINDS.map((k) => ({ field: k.field, label: k.label }))

export const kindLabel = (id: string) => KINDS.find((k) => k.id === id)?.label ?? id

/** `{tokens: 1000, mj: 5}` → `对话额度 1,000 · 绘画次数 5`. */
export function grantsText(grants: Record<string, number>): string {
  return (
    Object.entries(grants)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${kindLabel(k)} ${n.toLocaleString('zh-CN')}`)
      .join(' · ') || '—'
  )
}

export const yuan = (fen: number) => `¥${(fen / 100).toFixed(2)}`

const pad = (n: number) => String(n).padStart(2, '0')
/** An ISO time as local `YYYY-MM-DD HH:mm`. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—'
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return '—'
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

export const ORDER_STATUS: Record<string, string> = { pending: '待支付', paid: '已支付', closed: '已关闭', refunded: '已退款' }
export const PROVIDER: Record<string, string> = { demo: '演示支付', wechat: '微信支付', alipay: '支付宝' }

export const ACTIONS: Record<string, string> = {
  'permission.change': '修改权限',
  'allowance.adjust': '调整额度',
  'account.disable': '停用账号',
  'account.enable': '启用账号',
  'cards.create': '创建充值卡',
  'cards.void': '作废充值卡',
  'package.create': '新建套餐',
  'package.update': '修改套餐',
  'package.enable': '上架套餐',
  'package.disable': '下架套餐',
  'order.refund': '订单退款',
  'content.takedown': '下架内容',
  'content.restore': '恢复内容',
  'report.confirm': '确认举报',
  'report.dismiss': '驳回举报',
  'moderation.export': '导出审核日志',
  'words.add': '添加敏感词',
  'words.remove': '删除敏感词',
  'words.reload': '重新加载词库',
  'stats.export': '导出统计',
  'announcement.create': '发布公告',
  'announcement.update': '修改公告',
  'announcement.withdraw': '撤回公告'
}
