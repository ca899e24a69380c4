import { BALANCE_KINDS, type BalanceKind, type Balances } from '../../core/allowances'
import { ApiError, request } from '../../core/api'
import { refreshUser } from '../../core/auth'
import { formatCount } from '../../core/format'
import type { Paged } from '../../core/paged-list'
import { $user, saveUser } from '../../core/stores'
import type { LoginUser } from '../../core/types'

// Shapes and calls: API.md (User) and docs/tools-wire.md (User center).

export interface BalanceLogEntry {
  id: string
  kind: BalanceKind
  /** Signed: negative for a charge, positive for a recharge or a refund. */
  amount: number
  /** The allowance of this kind after the change. */
  balance: number
  /** What it was for, in Chinese (e.g. 对话：灵犀演示模型（离线）). */
  reason: string
  createTime: number
}

export interface RechargeLogEntry {
  id: string
  /** Masked by the server. */
  cardCode: string
  tokens: number
  mjCount: number
  sunoCount: number
  createTime: number
}

export const LOG_PAGE_SIZE = 10
export const NICKNAME_MAX = 20
export const CARD_CODE_MAX = 64
const CODE_INVALID = 40000001

/** A signed change: +1.0w+, -120, 0. */
export function formatAmount(amount: number): string {
  const n = Number(amount) || 0
  return `${n > 0 ? '+' : n < 0 ? '-' : ''}${formatCount(Math.abs(n))}`
}

/** One page of my balance changes, newest first. */
export function loadBalanceLog(pageNum = 1, pageSize = LOG_PAGE_SIZE): Promise<Paged<BalanceLogEntry>> {
  return request<Paged<BalanceLogEntry>>('/user/balanceLog', { pageNum, pageSize })
}

/** One page of my redeemed cards, newest first. */
export function loadRechargeLog(pageNum = 1, pageSize = LOG_PAGE_SIZE): Promise<Paged<RechargeLogEntry>> {
  return request<Paged<RechargeLogEntry>>('/user/rechargeLog', { pageNum, pageSize })
}

/** What is wrong with a typed card code, in Chinese, or null. */
export function validateCardCode(code: string): string | null {
  const c = (code ?? '').trim()
  if (!c) return '请输入卡密'
  if (c.length > CARD_CODE_MAX) return '卡密格式不正确，请检查后重试'
  return null
}

/**
 * Redeems a recharge card and reloads the user (`$user`), so every balance on the page updates.
 * Resolves the new balances. Throws ApiError (a check here uses 40000001) or NetworkError.
 */
export async function redeemCard(code: string): Promise<Balances> {
  const problem = validateCardCode(code)
  if (problem) throw new ApiError(CODE_INVALID, problem)
  const balances = await request<Balances>('/user/rechargeCardCode', { cardCode: code.trim() })
  await refreshUser().catch(() => {
    // The card is redeemed either way; show its balances even if reloading the user failed.
    const user = $user.get()
    if (user && balances) saveUser({ ...user, ...pickBalances(balances) })
  })
  return balances
}

function pickBalances(b: Partial<Balances>): Partial<Balances> {
  const out: Partial<Balances> = {}
  for (const { field } of BALANCE_KINDS) if (typeof b[field] === 'number') out[field] = b[field]
  return out
}

/** What is wrong with a nickname, in Chinese, or null. */
export function validateNickName(name: string): string | null {
  const n = (name ?? '').trim()
  if (!n) return '昵称不能为空'
  if ([...n].length > NICKNAME_MAX) return `昵称不能超过 ${NICKNAME_MAX} 个字`
  return null
}

/**
 * Saves my nickname and/or avatar (a Lingxi storage URL, e.g. from uploadImage with purpose
 * 'avatar'); `$user` takes the answer. Throws ApiError (checks here use 40000001) or NetworkError.
 */
export async function saveProfile(input: { nickName?: string; avatarUrl?: string }): Promise<LoginUser> {
  const body: { nickName?: string; avatarUrl?: string } = {}
  if (input.nickName !== undefined) {
    const problem = validateNickName(input.nickName)
    if (problem) throw new ApiError(CODE_INVALID, problem)
    body.nickName = input.nickName.trim()
  }
  if (input.avatarUrl !== undefined) body.avatarUrl = input.avatarUrl
  const user = await request<LoginUser>('/user/profile/save', body)
  saveUser({ ...($user.get() ?? {}), ...user } as LoginUser)
  return user
}
