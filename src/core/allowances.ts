import { formatCount } from './format'
import type { LoginUser } from './types'

// The allowance kinds the client shows (the user center, the profile panel); a tool's manifest
// names the kinds it charges (src/widgets/<tool>/tool.ts).

/** An allowance kind as the balance log names it. */
export type BalanceKind = 'tokens' | 'mj' | 'suno'

/** What is left of each kind, as `user/info` carries it. */
export type Balances = Pick<LoginUser, 'tokens' | 'mjCount' | 'sunoCount'>

export const BALANCE_KINDS: { kind: BalanceKind; field: keyof Balances; label: string; unit: string }[] = [
  { kind: 'tokens', field: 'tokens', label: '对话额度', unit: 'tokens' },
  { kind: 'mj', field: 'mjCount', label: '绘画次数', unit: '次' },
  { kind: 'suno', field: 'sunoCount', label: '音乐次数', unit: '次' }
]

/** The Chinese name of an allowance kind. */
export function balanceKindLabel(kind: string): string {
  return BALANCE_KINDS.find((k) => k.kind === kind)?.label ?? kind
}

/** An allowance as the spec shows it: 已过期 when the account's state is 0, else w+ formatting. */
export function formatAllowance(value: number, state: 0 | 1 | number): string {
  return state === 0 ? '已过期' : formatCount(Math.max(0, Number(value) || 0))
}
