import type { Logger } from '../logger.js'
import { createBullQueue } from './bullmq.js'
import { createMemoryQueue } from './memory.js'
import type { JobQueue } from './queue.js'

export type * from './queue.js'
export { JobQueueClosedError } from './queue.js'
export { createMemoryQueue, type JobTimers } from './memory.js'
export { createBullQueue, type BullJobQueue } from './bullmq.js'

/**
 * The engine for this configuration: BullMQ on Redis when REDIS_URL is set (every node is a worker
 * of every queue), else in this process. Keys live under `${prefix}jobs:` beside the other Redis keys.
 */
export function createJobQueue(options: { redisUrl: string | undefined; prefix: string; logger: Logger }): JobQueue {
  const { redisUrl, prefix, logger } = options
  if (redisUrl) return createBullQueue({ url: redisUrl, prefix, logger })
  return createMemoryQueue({ logger })
}
