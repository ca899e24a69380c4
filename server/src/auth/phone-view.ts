import type { Context } from 'hono'
import { requestHeader } from '../http/request-header.js'

/** 13800135678 → 138****5678; a shorter number keeps its first 2 and last 2 digits; '' stays ''. */
export function maskPhone(phone: string): string {
  if (phone.length >= 8) return `${phone.slice(0, 3)}****${phone.slice(-4)}`
  if (phone.length >= 5) return `${phone.slice(0, 2)}****${phone.slice(-2)}`
  return phone ? '****' : ''
}

export interface PhoneViewSettings {
  publicUrl: string
  trustedOrigins: readonly string[]
}

/**
 * Whether the caller may see the full phone number: a caller without Origin (scripts, the CLI),
 * the site itself (PUBLIC_URL's origin, or a page of the host the call was sent to) and the partner
 * origins of TRUSTED_ORIGINS. Every other
 * page — a partner embedding a widget — sees it masked (docs/decisions/0019-session-cookie.md).
 */
export function seesFullPhone(c: Context, settings: PhoneViewSettings): boolean {
  const origin = requestHeader(c, 'origin')
  if (!origin) return true
  if (settings.trustedOrigins.includes(origin)) return true
  try {
    const page = new URL(origin)
    // The site itself: its public origin, or the host this request was sent to (a same-origin call).
    return page.origin === new URL(settings.publicUrl).origin || page.host === requestHeader(c, 'host')
  } catch {
    return false
  }
}

/** The phone number as this caller may see it. */
export function phoneFor(c: Context, settings: PhoneViewSettings, phone: string): string {
  return seesFullPhone(c, settings) ? phone : maskPhone(phone)
}
