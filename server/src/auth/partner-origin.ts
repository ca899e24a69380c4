import type { Context } from 'hono'
import { ApiError } from '../errors.js'
import type { AuthInfo } from './sessions.js'
import { requestHeader } from '../http/request-header.js'

/** Accounts made by a partner's identify (auth/partner.ts) carry this en_code and a placeholder phone. */
export const PARTNER_EN_CODE = 'pt'
/** WeChat login's en_code (wechat/login.ts), repeated here so auth does not import wechat. */
const WECHAT_EN_CODE = 'wx'

/** An account made by a WeChat login or a partner's identify has no real phone until one is bound: it shows ''. */
export const hasPlaceholderPhone = (enCode: string) => enCode === WECHAT_EN_CODE || enCode === PARTNER_EN_CODE

/** The origins a partner's sessions work from; undefined for a partner no longer configured. */
export type PartnerOrigins = (partnerId: string) => readonly string[] | undefined

export const partnerOriginsOf =
  (partners: readonly { id: string; origins: readonly string[] }[]): PartnerOrigins =>
  (id) =>
    partners.find((p) => p.id === id)?.origins

/**
 * A session opened through a partner (auth/partner.ts) works only from that partner's origins: every
 * request must carry an `Origin` among them. A browser sends Origin on every cross-origin call, which
 * is how a partner page reaches the API; a request without one (a script, another site's same-origin
 * GET) or from another origin is refused, and so is every session of a partner removed from the
 * configuration.
 */
export function checkPartnerOrigin(c: Context, auth: AuthInfo, originsOf: PartnerOrigins | undefined): void {
  if (!auth.partnerId) return
  const origin = requestHeader(c, 'origin')
  const allowed = originsOf?.(auth.partnerId)
  if (!allowed) throw new ApiError(40300001, `合作方「${auth.partnerId}」已停用，其登录会话不再有效`)
  if (!origin || !allowed.includes(origin)) {
    throw new ApiError(40300001, `该登录会话由合作方「${auth.partnerId}」签发，只能在其网站使用（请求来源 ${origin ?? '缺失'} 不在其允许的来源中）`)
  }
}
