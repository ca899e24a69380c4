import { ApiError } from '../../core/api'
import { $config } from '../../core/config'
import {
  ACTIVITY_STATUS_TEXT,
  ORDER_STATUS_TEXT,
  PAY_STATE_TEXT,
  SESSION_STATUS_TEXT,
  type ActivityStatus,
  type OrderStatus,
  type PayState,
  type SessionStatus
} from './state'

/** A stored file's address usable from any page: Lingxi paths (`/files/…`) go to the API origin. */
export const fileSrc = (url: string) => (/^\/(?!\/)/.test(url) ? `${$config.get().apiBase}${url}` : url)

/** The detail page of one session. */
export const detailHref = (base: string, activityId: string, sessionId: string) =>
  `${base}/ordersDetail/${encodeURIComponent(activityId)}/${encodeURIComponent(sessionId)}`

const TONE = {
  good: 'border-ok/50 text-ok bg-ok/10',
  accent: 'border-primary/50 text-primary bg-primary/10',
  muted: 'border-line text-muted',
  bad: 'border-danger/50 text-danger bg-danger/10'
}

function Badge({ tone, children, testId }: { tone: keyof typeof TONE; children: string; testId?: string }) {
  return (
    <span data-testid={testId} className={`inline-flex items-center h-5 px-1.5 rounded border text-[11px] whitespace-nowrap ${TONE[tone]}`}>
      {children}
    </span>
  )
}

export function ActivityStatusBadge({ status }: { status: ActivityStatus }) {
  return <Badge tone={status === 'open' ? 'good' : status === 'upcoming' ? 'accent' : 'muted'}>{ACTIVITY_STATUS_TEXT[status] ?? status}</Badge>
}

export function SessionStatusBadge({ status }: { status: SessionStatus }) {
  return (
    <Badge testId="session-status" tone={status === 'open' ? 'good' : status === 'upcoming' ? 'accent' : 'muted'}>
      {SESSION_STATUS_TEXT[status] ?? status}
    </Badge>
  )
}

export function OrderStatusBadge({ status }: { status: OrderStatus }) {
  const tone = status === 'approved' ? 'good' : status === 'rejected' ? 'bad' : status === 'submitted' || status === 'taken' ? 'accent' : 'muted'
  return (
    <Badge testId="order-status" tone={tone}>
      {ORDER_STATUS_TEXT[status] ?? status}
    </Badge>
  )
}

export function PayStateBadge({ state }: { state: PayState }) {
  const tone =
    state === 'RECEIVED' || state === 'SENT'
      ? 'good'
      : state === 'FAILED' || state === 'REFUND' || state === 'RFUND_ING'
        ? 'bad'
        : state === 'SENDING'
          ? 'accent'
          : 'muted'
  return (
    <Badge testId="pay-state" tone={tone}>
      {`红包${PAY_STATE_TEXT[state] ?? state}`}
    </Badge>
  )
}

/** An approved order whose red packet can be (re)claimed. */
export const canClaim = (order: { status: OrderStatus; payState: PayState }) =>
  order.status === 'approved' && (order.payState === 'none' || order.payState === 'FAILED' || order.payState === 'SENDING')

/** Accepted by WeChat and not settled yet: the server's checks will move it (SENT → RECEIVED…). */
export const PAY_MOVING: readonly PayState[] = ['SENDING', 'SENT', 'RFUND_ING']

/** Why a list's first page could not be loaded (no permission…), shown in place of the list; null when it was. */
export const refusal = (error: unknown): string | null => (error ? (error instanceof ApiError ? error.message : '加载失败，请稍后重试') : null)
