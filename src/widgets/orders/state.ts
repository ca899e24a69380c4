import type {
  Activity,
  ActivityDetail,
  ActivityPlatform,
  ActivityStatus,
  Order,
  OrderStatus,
  PayState,
  SessionStatus,
  RedPackResult,
  RedPackState as WireRedPackState
} from '@lingxi/server/wire'
import { onAccountEvent } from '../../core/account-events'
import { ApiError, request } from '../../core/api'
import type { Paged } from '../../core/paged-list'
import { followToolReply, stopToolReply, type ToolReplyResult, type ToolReplyStart } from '../../core/tool-reply'

// Shapes and calls: docs/orders-wire.md (order platforms, red packets, WeChat login); the wire
// objects are the server's (`@lingxi/server/wire`, type-only). PayState is `none` until paid, then
// WeChat Pay v2 `gethbinfo`'s states (wire spelling `RFUND_ING`).

export type { Activity, ActivityDetail, ActivityPlatform, ActivityStatus, Order, OrderStatus, PayState, SessionStatus }

export interface ActivityQuery {
  quality: boolean
  platform?: ActivityPlatform
  status?: ActivityStatus
  keyword?: string
  pageNum?: number
  pageSize?: number
}

export interface OrderQuery {
  quality?: boolean
  status?: OrderStatus
  pageNum?: number
  pageSize?: number
}

/**
 * A red packet's state: what `wx-red-pack/v2/send` answers, and what `check-state` and the account
 * channel's `redpack` event carry (with its send and receive times). paying: the server is sending
 * it right now (payState still `none`); demo: paid by the offline demo payer, no money moved.
 */
export type RedPackState = RedPackResult & Partial<Pick<WireRedPackState, 'sendTime' | 'receiveTime'>>

export const ORDER_PAGE_SIZE = 12
/** How often a red packet's state is checked while it is on its way. */
export const REDPACK_POLL_MS = 2000
/** The account-channel event carrying a red packet's new state. */
export const REDPACK_EVENT = 'redpack'
/** Screenshots of a submission: at least one, at most six. */
export const SCREENSHOTS_MIN = 1
export const SCREENSHOTS_MAX = 6
export const DRAFT_MAX = 5000
export const LINK_MAX = 500
export const KEYWORD_MAX = 50

export const PLATFORMS: { value: ActivityPlatform; label: string }[] = [
  { value: 'xiaohongshu', label: '小红书' },
  { value: 'douyin', label: '抖音' },
  { value: 'wechat_mp', label: '公众号' },
  { value: 'weibo', label: '微博' },
  { value: 'bilibili', label: '哔哩哔哩' },
  { value: 'other', label: '其他' }
]

export const ACTIVITY_STATUS_TEXT: Record<ActivityStatus, string> = { upcoming: '未开始', open: '进行中', ended: '已结束' }
export const SESSION_STATUS_TEXT: Record<SessionStatus, string> = { upcoming: '未开始', open: '可接单', full: '已满', ended: '已结束' }
export const ORDER_STATUS_TEXT: Record<OrderStatus, string> = {
  taken: '待提交',
  submitted: '审核中',
  approved: '已通过',
  rejected: '未通过',
  cancelled: '已取消',
  expired: '已过期'
}
export const PAY_STATE_TEXT: Record<PayState, string> = {
  none: '未领取',
  SENDING: '发放中',
  SENT: '已发放，待领取',
  FAILED: '发放失败',
  RECEIVED: '已领取',
  RFUND_ING: '退款中',
  REFUND: '已退款'
}

/** A red packet is done moving: nothing more to wait for. */
export function isPayFinal(state: PayState): boolean {
  return state === 'SENT' || state === 'RECEIVED' || state === 'FAILED' || state === 'REFUND' || state === 'RFUND_ING'
}

/** 分 → 元 for display: 1200 → '12', 1250 → '12.50', 5 → '0.05'. */
export function formatYuan(fen: number): string {
  const n = Math.max(0, Math.round(Number(fen) || 0))
  const yuan = Math.floor(n / 100)
  const cents = n % 100
  return cents ? `${yuan}.${String(cents).padStart(2, '0')}` : String(yuan)
}

const pad = (n: number) => String(n).padStart(2, '0')

/** A time window: 'M月D日 HH:mm – M月D日 HH:mm' (the year when it is not this year; the end's date only when it differs). */
export function formatWindow(start: number, end: number, now = Date.now()): string {
  const a = new Date(start)
  const b = new Date(end)
  if (Number.isNaN(a.getTime()) || Number.isNaN(b.getTime())) return ''
  const year = new Date(now).getFullYear()
  const day = (d: Date) => `${d.getFullYear() !== year ? `${d.getFullYear()}年` : ''}${d.getMonth() + 1}月${d.getDate()}日`
  const hm = (d: Date) => `${pad(d.getHours())}:${pad(d.getMinutes())}`
  const sameDay = a.toDateString() === b.toDateString()
  return `${day(a)} ${hm(a)} – ${sameDay ? '' : `${day(b)} `}${hm(b)}`
}

/** What is wrong with a submission, in Chinese, or null. */
export function validateSubmission(link: string, screenshots: string[]): string | null {
  const l = link.trim()
  if (!l) return '请填写发布链接'
  if (l.length > LINK_MAX) return `链接不能超过 ${LINK_MAX} 个字符`
  let url: URL
  try {
    url = new URL(l)
  } catch {
    return '链接格式不正确，请以 http:// 或 https:// 开头'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return '链接格式不正确，请以 http:// 或 https:// 开头'
  if (screenshots.length < SCREENSHOTS_MIN) return '请至少上传 1 张截图'
  if (screenshots.length > SCREENSHOTS_MAX) return `截图最多 ${SCREENSHOTS_MAX} 张`
  return null
}

const call = <T>(path: string, body: object) => request<T>(`/orders/${path}`, body)

function paged<T>(answer: Paged<T> | null | undefined, pageNum: number, pageSize: number): Paged<T> {
  return {
    list: Array.isArray(answer?.list) ? answer.list : [],
    total: Number(answer?.total) || 0,
    pageNum: Number(answer?.pageNum) || pageNum,
    pageSize: Number(answer?.pageSize) || pageSize
  }
}

/** One page of activities of a platform (quality or not), with optional filters. */
export async function listActivities(query: ActivityQuery): Promise<Paged<Activity>> {
  const pageNum = query.pageNum ?? 1
  const pageSize = query.pageSize ?? ORDER_PAGE_SIZE
  const body: Record<string, unknown> = { quality: query.quality, pageNum, pageSize }
  if (query.platform) body.platform = query.platform
  if (query.status) body.status = query.status
  const keyword = query.keyword?.trim().slice(0, KEYWORD_MAX)
  if (keyword) body.keyword = keyword
  return paged(await call<Paged<Activity>>('activity/list', body), pageNum, pageSize)
}

export function loadActivityDetail(activityId: string, activitySessionId: string): Promise<ActivityDetail> {
  return call<ActivityDetail>('activity/detail', { activityId, activitySessionId })
}

/** Takes an order in a session (reserves a place). */
export function takeOrder(activitySessionId: string): Promise<Order> {
  return call<Order>('take', { activitySessionId })
}

/** Gives the place back (only while `taken`). */
export function cancelOrder(orderId: string): Promise<Order> {
  return call<Order>('cancel', { orderId })
}

export function saveDraft(orderId: string, draft: string): Promise<Order> {
  return call<Order>('save', { orderId, draft: draft.slice(0, DRAFT_MAX) })
}

/** Submits the published link and 1–6 screenshots (checked here first: ApiError 40000001). */
export function submitOrder(orderId: string, link: string, screenshots: string[]): Promise<Order> {
  const problem = validateSubmission(link, screenshots)
  if (problem) return Promise.reject(new ApiError(40000001, problem))
  return call<Order>('submit', { orderId, link: link.trim(), screenshots })
}

/** One page of my orders (of one platform when `quality` is given). */
export async function loadMyOrders(query: OrderQuery = {}): Promise<Paged<Order>> {
  const pageNum = query.pageNum ?? 1
  const pageSize = query.pageSize ?? ORDER_PAGE_SIZE
  const body: Record<string, unknown> = { pageNum, pageSize }
  if (query.quality !== undefined) body.quality = query.quality
  if (query.status) body.status = query.status
  return paged(await call<Paged<Order>>('mine', body), pageNum, pageSize)
}

/**
 * How an AI 起草 ended: `complete`, `interrput` (stopped; wire spelling), `error` or `timeout`
 * (`message` says why).
 */
export type DraftResult = ToolReplyResult

export interface DraftOptions {
  /** The draft so far, each time it grows. */
  onText: (text: string) => void
  /** The server accepted (stopping needs its requestId: `/ai-chat/topic/message/stop`). */
  onStart?: (start: { requestId: string; messageId: string; replyId: string; topicId: string }) => void
  signal?: AbortSignal
}

/**
 * AI 起草: the chat pipeline writes the content from the activity's brief (charged to tokens),
 * streamed from `/ai-chat/sse/subscribe/{requestId}`. Resolves how it ended with the whole text;
 * rejects with ApiError when refused (no tokens, not my order…).
 */
export async function draftOrder(orderId: string, opts: DraftOptions): Promise<DraftResult> {
  const start = await call<ToolReplyStart>('draft', { orderId })
  opts.onStart?.(start)
  return followToolReply(start.requestId, opts)
}

/** Stops an AI 起草 on the server; resolves the saved text. */
export const stopDraft = stopToolReply

/** Pays an approved order of mine as a WeChat red packet (idempotent on the server). */
export function sendRedPack(orderId: string): Promise<RedPackState> {
  return request<RedPackState>('/wx-red-pack/v2/send', { orderId })
}

/** The red packet's state as WeChat reports it (`gethbinfo`). */
export function checkRedPack(orderId: string): Promise<RedPackState> {
  return request<RedPackState>('/wx-red-pack/v2/check-state', { orderId })
}

export interface WatchRedPackOptions {
  /** Each state seen (the first is send's answer). */
  onState?: (state: RedPackState) => void
  signal?: AbortSignal
  intervalMs?: number
  /** Give up (resolve the last state) after this many checks; default 60. */
  maxChecks?: number
  /** Also listen to the account channel: a state the server pushes ends the wait at once. */
  live?: boolean
}

/**
 * The red-packet states the server's payment jobs push on the account channel (`redpack`): accepted,
 * sent, received, failed… without anyone asking. Returns the unsubscribe function.
 */
export function onRedPackState(fn: (state: RedPackState) => void): () => void {
  return onAccountEvent(REDPACK_EVENT, (data) => {
    const state = data as RedPackState
    if (state && typeof state.orderId === 'string' && typeof state.payState === 'string') fn(state)
  })
}

/** Waits `ms`, or less when `wake` is called; rejects when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal, onWake?: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', abort)
      resolve()
    }
    const timer = setTimeout(done, ms)
    const abort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', abort, { once: true })
    onWake?.(done)
  })
}

/** Still on its way: being sent by the server (`paying`), or accepted and not yet in the wallet. */
const moving = (state: RedPackState) => state.payState === 'SENDING' || (state.payState === 'none' && state.paying === true)

/**
 * 领取红包: sends (or, when already sent, re-reads) the order's red packet, then checks its state
 * every `intervalMs` while it is on its way — `paying` (the server is still sending it) or SENDING —
 * until SENT, RECEIVED, FAILED or refunded. Resolves the last state — `none` when WeChat did not
 * accept it yet (`failReason` says why; may be retried), still `paying` after `maxChecks`; rejects
 * with ApiError when the server refuses (no WeChat bound, not approved…).
 */
export async function claimRedPack(orderId: string, opts: WatchRedPackOptions = {}): Promise<RedPackState> {
  const { signal, onState, intervalMs = REDPACK_POLL_MS, maxChecks = 60, live = false } = opts
  let pushed: RedPackState | null = null
  let wake: (() => void) | null = null
  const off = live
    ? onRedPackState((s) => {
        if (s.orderId !== orderId) return
        pushed = s
        wake?.()
      })
    : () => {}
  try {
    let state = await sendRedPack(orderId)
    signal?.throwIfAborted()
    onState?.(state)
    // Only a packet on its way moves; `none` (WeChat has not accepted it: see failReason) does not.
    for (let i = 0; i < maxChecks && moving(state); i++) {
      if (!pushed) await sleep(intervalMs, signal, (fn) => (wake = fn))
      wake = null
      const next: RedPackState = pushed ?? (await checkRedPack(orderId))
      pushed = null
      state = next
      signal?.throwIfAborted()
      onState?.(state)
    }
    return state
  } finally {
    off()
  }
}
