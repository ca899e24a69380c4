import { randomBytes } from 'node:crypto'
import { createBullQueue, createJobQueue, createMemoryQueue, type BullJobQueue, type JobHandler, type JobQueue, type JobTimers } from '../../src/jobs/index.js'
import type { Logger } from '../../src/logger.js'
import { dropRedisKeys } from './redis.js'

/** One run of a job, on the node that ran it. */
export interface JobRun {
  name: string
  id: string
  node: string
  /** Set once the handler has returned or thrown. */
  done: boolean
}

/**
 * Several "nodes" on one job queue, recording which node ran what. Without REDIS_URL (or when
 * `memory` is asked for) one memory queue stands in for Redis: every node's define adds its handler
 * and each job runs on the next node in turn, as BullMQ hands a job to whichever node is free — so
 * ids dedupe across nodes and a schedule fires once for all. With REDIS_URL, each node gets its own
 * BullMQ queue (createJobQueue) under one fresh prefix, whose keys close() deletes.
 */
export function queueNodes(options: {
  labels: string[]
  logger: Logger
  timers?: JobTimers
  memory?: boolean
  /** BullMQ lock settings (createBullQueue), so a node that dies is taken over quickly. */
  bull?: { lockMs: number; stalledMs: number }
}) {
  const runs: JobRun[] = []
  let running = 0
  const track =
    <T>(name: string, node: string, handler: JobHandler<T>): JobHandler<T> =>
    async (data, job) => {
      const run: JobRun = { name, id: job.id, node, done: false }
      runs.push(run)
      running++
      try {
        await handler(data, job)
      } finally {
        running--
        run.done = true
      }
    }

  const url = options.memory ? undefined : process.env.REDIS_URL
  const prefix = `lingxi_t_${randomBytes(6).toString('hex')}:`
  let queues: Record<string, JobQueue>
  /** Each node's BullMQ queue itself (abandon() plays a node that dies). */
  let engines: Record<string, BullJobQueue> = {}
  let closeAll: () => Promise<void>

  if (url) {
    const own = options.labels.map(
      (label) =>
        [
          label,
          options.bull
            ? createBullQueue({ url, prefix, logger: options.logger, ...options.bull })
            : createJobQueue({ redisUrl: url, prefix, logger: options.logger })
        ] as const
    )
    engines = Object.fromEntries(own.filter(([, q]) => 'abandon' in q)) as Record<string, BullJobQueue>
    queues = Object.fromEntries(
      own.map(([label, queue]) => [
        label,
        { ...queue, engine: queue.engine, define: (name, handler, opts) => queue.define(name, track(name, label, handler), opts) } satisfies JobQueue
      ])
    )
    closeAll = async () => {
      await Promise.allSettled(own.map(([, queue]) => queue.close()))
      await dropRedisKeys(url, prefix)
    }
  } else {
    const base = createMemoryQueue({ logger: options.logger, ...(options.timers ? { timers: options.timers } : {}) })
    const turns = new Map<string, { handlers: { node: string; handler: JobHandler<unknown> }[]; next: number }>()
    const node = (label: string): JobQueue => ({
      engine: 'memory',
      define(name, handler, opts = {}) {
        let turn = turns.get(name)
        if (!turn) {
          const entry = { handlers: [] as { node: string; handler: JobHandler<unknown> }[], next: 0 }
          turns.set(name, entry)
          turn = entry
          // Each node's share of the work at once, as with one worker per node.
          const concurrency = (opts.concurrency ?? 1) * options.labels.length
          base.define(
            name,
            async (data, job) => {
              if (entry.handlers.length === 0) return
              const pick = entry.handlers[entry.next++ % entry.handlers.length]!
              await pick.handler(data, job)
            },
            { concurrency: opts.globalConcurrency ? Math.min(concurrency, opts.globalConcurrency) : concurrency }
          )
        }
        turn.handlers.push({ node: label, handler: track(name, label, handler as JobHandler<unknown>) })
      },
      add: (name, data, opts) => base.add(name, data, opts),
      every: (name, everyMs) => base.every(name, everyMs),
      idle: () => base.idle(),
      depths: () => base.depths(),
      async close() {
        // This node takes no more jobs; the others go on.
        for (const turn of turns.values()) turn.handlers = turn.handlers.filter((h) => h.node !== label)
      }
    })
    queues = Object.fromEntries(options.labels.map((label) => [label, node(label)]))
    closeAll = () => base.close()
  }

  return {
    engine: url ? ('bullmq' as const) : ('memory' as const),
    queues,
    engines,
    runs,
    /** Handlers running now, on any node of this process. */
    running: () => running,
    close: closeAll
  }
}

/**
 * Timers that fire only when the test moves the clock: each fires with the clock at its own time,
 * then `settle` waits for the work it started (jobs running) before the next one.
 */
export function manualTimers(clock: { now(): number; advance(ms: number): void }, settle: () => Promise<void>) {
  const pending: { at: number; fn: () => void }[] = []
  const timers: JobTimers = {
    setTimeout(fn, ms) {
      const handle = { at: clock.now() + Math.max(0, ms), fn }
      pending.push(handle)
      return handle
    },
    clearTimeout(handle) {
      const i = pending.indexOf(handle as (typeof pending)[number])
      if (i >= 0) pending.splice(i, 1)
    }
  }
  return {
    timers,
    pending,
    /** Moves the clock by ms, running the timers that come due on the way, in order. */
    async advance(ms: number) {
      const end = clock.now() + ms
      await settle()
      for (;;) {
        pending.sort((a, b) => a.at - b.at)
        const next = pending[0]
        if (!next || next.at > end) break
        pending.shift()
        clock.advance(Math.max(0, next.at - clock.now()))
        next.fn()
        await settle()
      }
      clock.advance(end - clock.now())
    }
  }
}

/** Resolves once no handler has run for a few turns of the event loop (work outside handlers is awaited by the test). */
export async function quiet(running: () => number) {
  for (let calm = 0; calm < 3; ) {
    await new Promise((resolve) => setTimeout(resolve, 5))
    calm = running() === 0 ? calm + 1 : 0
  }
}
