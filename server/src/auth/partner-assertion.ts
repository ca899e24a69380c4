import { createHash } from 'node:crypto'
import { decode, verify } from 'hono/jwt'
import { JwtTokenSignatureMismatched } from 'hono/utils/jwt/types'
import type { PartnerSettings } from '../config/partners.js'
import { ApiError } from '../errors.js'
import type { Kv } from '../kv/kv.js'

/** The `aud` every assertion must name. */
export const ASSERTION_AUDIENCE = 'lingxi'
/** An assertion may live at most this long (exp − iat). */
export const ASSERTION_MAX_LIFETIME_S = 300
/** Clock difference tolerated between the partner's backend and this server. */
export const ASSERTION_LEEWAY_S = 30

export interface PartnerUser {
  partner: PartnerSettings
  sub: string
  nickname: string | undefined
  phone: string | undefined
}

const refuse = (message: string) => new ApiError(40300001, message)
const str = (value: unknown, max: number) => (typeof value === 'string' && value.trim() !== '' && value.length <= max ? value.trim() : undefined)
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)

/**
 * Checks a partner's identity assertion (a compact JWT, HS256): the signature with the secret of the
 * partner its `iss` names (hono/jwt), then `aud`, `iat`, `exp` (at most 5 minutes apart), `sub` and
 * `jti`, and that the calling page is one of that partner's origins. A `jti` is accepted once: it is
 * remembered in the key-value store (Redis with several nodes) until the assertion expires.
 * Every refusal is an ApiError naming what is wrong.
 */
export async function verifyAssertion(
  assertion: string,
  options: { partners: readonly PartnerSettings[]; origin: string; now: number; kv: Kv }
): Promise<PartnerUser> {
  let header: { alg?: unknown }
  let payload: Record<string, unknown>
  try {
    ;({ header, payload } = decode(assertion))
  } catch {
    throw new ApiError(40000001, '身份断言格式不正确：应为紧凑 JWT（header.payload.signature）')
  }
  if (header.alg !== 'HS256') throw refuse(`身份断言的签名算法必须是 HS256（收到 ${String(header.alg)}）`)
  const iss = str(payload.iss, 40)
  const partner = iss === undefined ? undefined : options.partners.find((p) => p.id === iss)
  if (!partner) throw refuse(`身份断言的签发方 iss「${String(payload.iss ?? '')}」不是已配置的合作方`)
  if (!partner.origins.includes(options.origin)) throw refuse(`合作方「${partner.id}」的登录只能在其网站发起（请求来源 ${options.origin} 不在其允许的来源中）`)
  try {
    // The claims are checked below, with this server's clock and a small leeway.
    await verify(assertion, partner.secret, { alg: 'HS256', exp: false, nbf: false, iat: false })
  } catch (error) {
    if (error instanceof JwtTokenSignatureMismatched) throw refuse('身份断言签名无效：密钥不匹配或内容被篡改')
    throw refuse('身份断言无法验证：格式或签名不正确')
  }
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
  if (!aud.includes(ASSERTION_AUDIENCE)) throw refuse(`身份断言的受众 aud 必须是「${ASSERTION_AUDIENCE}」（收到 ${JSON.stringify(payload.aud ?? null)}）`)
  const iat = num(payload.iat)
  const exp = num(payload.exp)
  if (iat === undefined || exp === undefined) throw refuse('身份断言必须带有 iat 和 exp（秒级时间戳）')
  const nowS = options.now / 1000
  if (exp <= iat) throw refuse('身份断言的 exp 必须晚于 iat')
  if (exp - iat > ASSERTION_MAX_LIFETIME_S) throw refuse(`身份断言的有效期不能超过 ${ASSERTION_MAX_LIFETIME_S / 60} 分钟（exp − iat = ${exp - iat} 秒）`)
  if (iat > nowS + ASSERTION_LEEWAY_S) throw refuse('身份断言的签发时间 iat 晚于服务器当前时间，请检查合作方服务器的时钟')
  if (exp + ASSERTION_LEEWAY_S <= nowS) throw refuse('身份断言已过期，请让合作方后端重新签发')
  const sub = str(payload.sub, 128)
  if (sub === undefined) throw refuse('身份断言缺少 sub（合作方的用户 ID，最长 128 个字符）')
  const jti = str(payload.jti, 128)
  if (jti === undefined) throw refuse('身份断言缺少 jti（每次签发唯一的 ID，最长 128 个字符）')
  const phone = str(payload.phone, 20)
  if (phone !== undefined && !/^\+?\d{5,20}$/.test(phone)) throw refuse('身份断言的 phone 不是手机号')
  // Remembered until the assertion could no longer pass the expiry check.
  const ttlMs = Math.max(1000, Math.ceil((exp + ASSERTION_LEEWAY_S) * 1000 - options.now) + 1000)
  const key = `partner-jti:${partner.id}:${createHash('sha256').update(jti).digest('hex')}`
  if (!(await options.kv.setIfAbsent(key, ttlMs))) throw refuse('身份断言已被使用过（jti 重复），请让合作方后端重新签发')
  return { partner, sub, nickname: str(payload.nickname, 30), phone }
}
