import type { Logger } from '../logger.js'
import type { EventBus } from './bus.js'
import { createMemoryBus } from './memory-bus.js'
import { createRedisBus } from './redis-bus.js'

export type * from './bus.js'
export { createMemoryBus } from './memory-bus.js'
export { createRedisBus } from './redis-bus.js'

export function createEventBus(options: { redisUrl: string | undefined; prefix: string; logger: Logger; retentionMs?: number }): EventBus {
  const { redisUrl, prefix, logger, retentionMs } = options
  if (!redisUrl) return createMemoryBus(retentionMs === undefined ? {} : { retentionMs })
  let reported = false
  return createRedisBus({
    url: redisUrl,
    prefix,
    ...(retentionMs === undefined ? {} : { retentionMs }),
    onError: (error) => {
      if (reported) return
      reported = true
      logger.error('redis event bus error', { error: error.message })
      setTimeout(() => (reported = false), 60_000).unref()
    }
  })
}
