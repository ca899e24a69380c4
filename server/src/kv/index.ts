import type { Logger } from '../logger.js'
import type { Kv } from './kv.js'
import { createMemoryKv } from './memory-kv.js'
import { createRedisKv } from './redis-kv.js'

export type { Kv } from './kv.js'
export { createMemoryKv } from './memory-kv.js'
export { createRedisKv } from './redis-kv.js'

export function createKv(options: { redisUrl: string | undefined; prefix: string; logger: Logger }): Kv {
  const { redisUrl, prefix, logger } = options
  if (!redisUrl) return createMemoryKv()
  let reported = false
  return createRedisKv({
    url: redisUrl,
    prefix,
    // One line per outage, not one per reconnect attempt.
    onError: (error) => {
      if (reported) return
      reported = true
      logger.error('redis connection error', { error: error.message })
      setTimeout(() => (reported = false), 60_000).unref()
    }
  })
}
