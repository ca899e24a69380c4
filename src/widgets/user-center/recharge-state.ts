import { BALANCE_KINDS, balanceKindLabel } from '../../core/allowances'
import { $config } from '../../core/config'
import { request } from '../../core/api'
import { deviceKind, formatCount } from '../../core/format'
import type { Paged } from '../../core/paged-list'

// 在线充值: the calls of server/src/modules/payments (routes.ts, wire.ts), kept in this widget.

export type PayProviderName = 'demo' | 'wechat' | 'alipay'
export type PayScene = 'native' | 'h5' | 'jsapi' | 'page' | 'wap'
export type PayOrderStatus = 'pending' | 'paid' | 'closed' | 'refunded'

/** A package on sale; `grants` by allowance kind id (tokens, mj, suno). */
export interface PayPackage {
  id: string
  name: string
  priceFen: number
  grants: Record<string, number>
  validityDays: number | null
  badge: string | null
  sort: number
}

export interface PayMethod {
  provider: PayProviderName
  scenes: PayScene[]
  demo: boolean
}

export interface PayOrder {
  orderId: string
  packageId: string
  packageName: string
  grants: Record<string, number>
  amountFen: number
  provider: PayProviderName
  scene: PayScene
  status: PayOrderStatus
  /** What the browser needs to pay: codeUrl (QR), payUrl / h5Url (a page), or JSAPI parameters. */
  payment: Record<string, string> | null
  demo: boolean
  refundedFen: number
  createTime: number
  expireTime: number
  payTime: number | null
}

export const ORDER_PAGE_SIZE = 10

export const STATUS_LABELS: Record<PayOrderStatus, string> = { pending: '待支付', paid: '已支付', closed: '已关闭', refunded: '已退款' }

export const PROVIDER_LABELS: Record<PayProviderName, string> = { wechat: '微信支付', alipay: '支付宝', demo: '演示支付' }

/** ¥29.90 from 2990 fen. */
export function formatYuan(fen: number): string {
  return `¥${((Number(fen) || 0) / 100).toFixed(2)}`
}

const UNITS: Record<string, string> = { tokens: ' tokens', mj: ' 次', suno: ' 次' }
/** The kinds in the order the user center shows them (对话, 绘画, 音乐), others after. */
const rank = (kind: string) => {
  const i = BALANCE_KINDS.findIndex((k) => k.kind === kind)
  return i < 0 ? BALANCE_KINDS.length : i
}

/** What a package grants, in Chinese: 对话额度 80.0w+ tokens · 绘画次数 40 次. */
export function grantsText(grants: Record<string, number>): string {
  return (
    Object.entries(grants)
      .filter(([, n]) => n > 0)
      .sort(([a], [b]) => rank(a) - rank(b))
      .map(([kind, n]) => `${balanceKindLabel(kind)} ${formatCount(n)}${UNITS[kind] ?? ''}`)
      .join(' · ') || '—'
  )
}

/** mm:ss left until `at` (00:00 once past). */
export function countdown(at: number, now: number): string {
  const s = Math.max(0, Math.ceil((at - now) / 1000))
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`
}

/** A phone (by its browser or a narrow window): pay on a page, not with a QR code. */
export function isPhone(): boolean {
  if (deviceKind() === 'H5') return true
  return typeof matchMedia === 'function' && matchMedia('(max-width: 639px)').matches
}

const inWechat = () => typeof navigator !== 'undefined' && /MicroMessenger/i.test(navigator.userAgent)

/** The scene to ask a provider for here: a QR code on desktop, its phone page on phones, JSAPI inside WeChat. */
export function sceneFor(m: PayMethod, phone = isPhone()): PayScene | null {
  const order: PayScene[] =
    m.provider === 'alipay'
      ? phone
        ? ['wap', 'page']
        : ['page', 'wap']
      : m.provider === 'wechat'
        ? phone
          ? inWechat()
            ? ['jsapi', 'h5']
            : ['h5']
          : ['native']
        : phone
          ? ['wap', 'h5', 'page']
          : ['native', 'page']
  return order.find((s) => m.scenes.includes(s)) ?? null
}

/** A fresh idempotency key (letters, digits and -). */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto
  if (c && typeof c.randomUUID === 'function') return c.randomUUID()
  return `k${Date.now().toString(36)}${Math.random().toString(36).slice(2, 12)}`
}

export const loadPackages = () => request<PayPackage[]>('/pay/packages')
export const loadPayMethods = () => request<PayMethod[]>('/pay/providers')

export function createOrder(input: { packageId: string; provider: PayProviderName; scene: PayScene; idempotencyKey: string }): Promise<PayOrder> {
  return request<PayOrder>('/pay/order/create', input)
}

export const getOrder = (orderId: string) => request<PayOrder>('/pay/order/get', { orderId })

/** One page of my orders, newest first (`id` is the order id, for the log list). */
export async function loadOrders(pageNum = 1, pageSize = ORDER_PAGE_SIZE): Promise<Paged<PayOrder & { id: string }>> {
  const page = await request<Paged<PayOrder>>('/pay/order/list', { pageNum, pageSize })
  return { ...page, list: page.list.map((o) => ({ ...o, id: o.orderId })) }
}

/**
 * 演示支付: the demo's own confirm (what its pay page's 确认支付 posts). The answer is a redirect
 * to that page, not read (no-cors): the order's status says whether it went through.
 */
export async function confirmDemo(orderId: string): Promise<void> {
  await fetch(`${$config.get().apiBase}/api/v1/pay/demo/${encodeURIComponent(orderId)}/confirm`, { method: 'POST', mode: 'no-cors', credentials: 'omit' })
}
