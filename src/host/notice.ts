import { BALANCE_KINDS, type BalanceKind } from '../core/allowances'
import type { LoginUser } from '../core/types'
import type { RouteInfo } from './routes'

/** A route the guard refused: its title, and whether the visitor was signed in. */
export interface Refused {
  title: string
  /** Where the guard sent the person (the notice stays while they are there). */
  to: string
  signedIn: boolean
}

/**
 * The allowance each page's main action spends (the manifests' `allowances` are build-only, left
 * out of the browser bundles: rollup.config.mjs).
 */
const CHARGES: Record<string, BalanceKind> = { '/chat': 'tokens', '/hotNew': 'tokens', '/mj': 'mj', '/sd': 'mj', '/music': 'suno' }

/** Pages that only show things: nothing on them is refused when an allowance runs out. */
const VIEW_ONLY = new Set(['/gallery'])

/**
 * What the signed-in person's account refuses on this route, before they try: every tool when the
 * account has expired, a tool whose allowance ran out. Null when nothing is refused.
 */
export function accountBlock(route: RouteInfo | null, user: LoginUser | null): string | null {
  if (!user || route?.kind !== 'tool' || !route.code || VIEW_ONLY.has(route.path)) return null
  if (user.state === 0) return `账号已过期，「${route.title}」暂不可用。`
  const kind = BALANCE_KINDS.find((k) => k.kind === CHARGES[route.path])
  if (!kind || Number(user[kind.field]) > 0) return null
  return `${kind.label}已用完，「${route.title}」暂不可用。`
}
