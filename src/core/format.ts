import { toast } from './emit'
import { MSG_COPIED } from './messages'

/**
 * '13800138000' → '138****8000' (first 3, four stars, last 4). Shorter than 8 characters, the
 * first 3 + last 4 would show nearly everything, so only up to half (at most 4) of the end stays:
 * '123456' → '****456'.
 */
export function maskPhone(phone: string): string {
  const p = (phone ?? '').trim()
  if (p.length >= 8) return `${p.slice(0, 3)}****${p.slice(-4)}`
  const keep = Math.min(4, Math.floor(p.length / 2))
  return p ? `****${keep ? p.slice(-keep) : ''}` : ''
}

/**
 * Counts below 10000 as they are; from 10000 in units of ten thousand with one decimal,
 * truncated (never rounded up, so a count is never overstated) + 'w+':
 * 9999 → '9999', 10000 → '1.0w+', 12345 → '1.2w+', 19999 → '1.9w+', 123456789 → '12345.6w+'.
 */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '0'
  if (n < 10000) return String(n)
  const tenths = Math.floor(n / 1000)
  return `${Math.floor(tenths / 10)}.${tenths % 10}w+`
}

const MOBILE = /Android|iPhone|iPad|iPod|Mobile|HarmonyOS|OpenHarmony|Windows Phone|BlackBerry|Opera Mini|IEMobile/i

/** 'H5' on mobile user agents, otherwise 'PC' (sent as `platform` at login). */
export function deviceKind(ua?: string): 'H5' | 'PC' {
  const agent = ua ?? (typeof navigator === 'undefined' ? '' : navigator.userAgent)
  return MOBILE.test(agent) ? 'H5' : 'PC'
}

/**
 * Copies to the clipboard and toasts 已复制到剪切板！. Without a usable clipboard API (insecure
 * context, denied permission) it shows the text in a prompt for manual copying and resolves false.
 */
export async function copyText(text: string): Promise<boolean> {
  if (typeof window === 'undefined') return false
  try {
    await navigator.clipboard.writeText(text)
    toast(MSG_COPIED, 'success')
    return true
  } catch {
    if (typeof window.prompt === 'function') window.prompt('复制以下内容', text)
    return false
  }
}
