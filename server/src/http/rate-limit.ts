import { ApiError } from '../errors.js'
import type { Kv } from '../kv/kv.js'

/**
 * Counts one more use of `key` in a window of `windowMs` (kv: shared by every node with Redis) and
 * refuses past `max` with 42900001 and a message that names what and how long to wait
 * (「搜索过于频繁，请 12 秒后再试」). Returns the count so far.
 */
export async function rateLimit(kv: Kv, key: string, max: number, windowMs: number, what: string): Promise<number> {
  const count = await kv.incr(key, windowMs)
  if (count <= max) return count
  const seconds = Math.max(1, Math.ceil((await kv.ttl(key)) / 1000))
  throw new ApiError(42900001, seconds > 90 ? `${what}过于频繁，请 ${Math.ceil(seconds / 60)} 分钟后再试` : `${what}过于频繁，请 ${seconds} 秒后再试`)
}
