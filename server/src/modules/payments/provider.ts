import type { ProviderName, Scene } from './wire.js'

/** A notify or callback as it arrived: header lookup (case-insensitive) and the raw body. */
export interface RawNotify {
  header(name: string): string | undefined
  body: string
}

/** A verified notify: what the provider says about one of our orders. */
export interface VerifiedNotify {
  ok: true
  orderId: string
  amountFen: number
  paid: boolean
  providerTradeNo: string
  /** A refund the provider reports (WeChat REFUND.*, an Alipay notify carrying refund_fee); refund.ts applies it. */
  refund?: RefundNotice
}

/** What a refund notify says: the refund's number, and its amount or the trade's refunded total so far. */
export interface RefundNotice {
  /** out_refund_no (WeChat) / out_biz_no (Alipay): ours is `<orderId>R<refundedFen before it>`. */
  refundNo: string
  /** This refund's amount (WeChat). */
  amountFen?: number
  /** Everything refunded on the trade so far (Alipay's refund_fee). */
  totalRefundedFen?: number
  /** SUCCESS, or a refund that failed or was closed at the provider. */
  ok: boolean
}

/** A notify that is not believed; `reason` is logged (never a secret), nothing changes. */
export interface RefusedNotify {
  ok: false
  reason: string
}

export type NotifyResult = VerifiedNotify | RefusedNotify

/** What an active query learnt. `unknown`: the provider has no such order, or could not be asked. */
export type QueryResult = { state: 'paid'; amountFen: number; providerTradeNo: string } | { state: 'pending' | 'closed' | 'refunded' | 'unknown' }

export interface CreateRequest {
  orderId: string
  amountFen: number
  description: string
  scene: Scene
  expiresAt: Date
  /** The payer's address (WeChat H5 needs it). */
  clientIp: string
  /** The payer's openid for the merchant's app id (WeChat JSAPI). */
  openid?: string
}

export interface RefundRequest {
  orderId: string
  /** Our refund number: the same number is the same refund at the provider. */
  refundId: string
  amountFen: number
  totalFen: number
  reason: string
}

/** The answer a notify gets, as the provider's protocol wants it. */
export interface NotifyAnswer {
  status: number
  body: string
  contentType?: string
}

/** One payment provider: the demo, WeChat Pay v3, Alipay. */
export interface PayProvider {
  readonly name: ProviderName
  readonly scenes: readonly Scene[]
  /** No money moves (演示支付). */
  readonly demo: boolean
  /** The app id payers' openids belong to (WeChat JSAPI). */
  readonly appId?: string
  /** Creates the order at the provider; answers what the browser needs (paymentSchema in wire.ts). */
  create(request: CreateRequest): Promise<Record<string, string>>
  /** Checks a notify's signature, merchant and app, and reads it; never throws. */
  verifyNotify(notify: RawNotify): Promise<NotifyResult>
  query(orderId: string): Promise<QueryResult>
  /** Closes an unpaid order at the provider; `paid` when it was paid after all. */
  close(orderId: string): Promise<'closed' | 'paid'>
  refund(request: RefundRequest): Promise<{ providerRefundNo: string }>
  /** The answer to a notify that was applied (or already had been) and to one that was not. */
  answer(ok: boolean): NotifyAnswer
}

/** A provider's refusal to do something (create, close, refund): mapped to 50200001 for the user. */
export class ProviderError extends Error {
  constructor(
    readonly provider: ProviderName,
    readonly code: string,
    message: string
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}
