import { Redis } from 'ioredis'
import type { Kv } from './kv.js'

// Each key is a hash {n: count, exp: expiry in app-clock ms}. The scripts run atomically in
// Redis, so concurrent callers on any node see one winner. PEXPIRE only reclaims memory; the
// logical expiry is `exp`, which follows the app's clock like the memory implementation.
const SET_IF_ABSENT = `
local exp = tonumber(redis.call('HGET', KEYS[1], 'exp'))
if exp and exp > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'n', 1, 'exp', tonumber(ARGV[1]) + tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`

const INCR = `
local exp = tonumber(redis.call('HGET', KEYS[1], 'exp'))
if exp and exp > tonumber(ARGV[1]) then return redis.call('HINCRBY', KEYS[1], 'n', 1) end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'n', 1, 'exp', tonumber(ARGV[1]) + tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`

export interface RedisKvOptions {
  url: string
  prefix: string
  now?: () => number
  /** Connection problems; ioredis reconnects by itself. */
  onError?: (error: Error) => void
}

export function createRedisKv({ url, prefix, now = Date.now, onError = () => {} }: RedisKvOptions): Kv {
  // A request fails after two retries instead of waiting for Redis indefinitely.
  const redis = new Redis(url, { maxRetriesPerRequest: 2 })
  redis.on('error', onError)
  const k = (key: string) => `${prefix}${key}`

  return {
    async setIfAbsent(key, ttlMs) {
      return (await redis.eval(SET_IF_ABSENT, 1, k(key), now(), Math.max(1, Math.ceil(ttlMs)))) === 1
    },
    async incr(key, ttlMs) {
      return Number(await redis.eval(INCR, 1, k(key), now(), Math.max(1, Math.ceil(ttlMs))))
    },
    async ttl(key) {
      const exp = await redis.hget(k(key), 'exp')
      return exp === null ? 0 : Math.max(0, Number(exp) - now())
    },
    async del(key) {
      await redis.del(k(key))
    },
    async close() {
      await redis.quit()
    }
  }
}
