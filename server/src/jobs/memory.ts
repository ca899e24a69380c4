import { randomUUID } from 'node:crypto'
import type { Logger } from '../logger.js'
import { type JobContext, type JobHandler, type JobOptions, type JobQueue, JobQueueClosedError, type WorkerOptions } from './queue.js'

/** Timer functions, injectable so tests drive delays by hand. */
export interface JobTimers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

const realTimers: JobTimers = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms)
    handle.unref?.()
    return handle
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout)
  }
}

interface Job {
  name: string
  id: string
  data: unknown
  attempt: number
  attempts: number
  backoffMs: number
}

interface Worker {
  handler: JobHandler<unknown>
  concurrency: number
  running: number
  ready: Job[]
}

/**
 * The embedded engine: jobs live in this process's memory (one process, nothing shared). Same
 * rules as BullMQ where they matter here: one job per id while it waits, is delayed or runs;
 * per-name concurrency; retries with doubling backoff; `every` never overlaps itself.
 */
export function createMemoryQueue(options: { logger: Logger; timers?: JobTimers }): JobQueue {
  const { logger } = options
  const timers = options.timers ?? realTimers
  const workers = new Map<string, Worker>()
  /** `${name}\n${id}` of every job waiting, delayed or running. */
  const known = new Set<string>()
  /** Jobs added before their name was defined. */
  const parked = new Map<string, Job[]>()
  const delayed = new Map<unknown, Job>()
  const schedules = new Map<string, { everyMs: number; handle: unknown }>()
  const running = new Set<Promise<void>>()
  let closed = false

  const key = (name: string, id: string) => `${name}\n${id}`

  function enqueue(job: Job) {
    const worker = workers.get(job.name)
    if (!worker) {
      const list = parked.get(job.name) ?? []
      list.push(job)
      parked.set(job.name, list)
      return
    }
    worker.ready.push(job)
    pump(job.name)
  }

  function later(job: Job, ms: number) {
    const handle = timers.setTimeout(
      () => {
        delayed.delete(handle)
        if (!closed) enqueue(job)
      },
      Math.max(0, ms)
    )
    delayed.set(handle, job)
  }

  function pump(name: string) {
    const worker = workers.get(name)
    if (!worker || closed) return
    while (worker.running < worker.concurrency && worker.ready.length > 0) {
      const job = worker.ready.shift()!
      worker.running++
      const context: JobContext = { id: job.id, attempt: job.attempt, attempts: job.attempts }
      const run = (async () => {
        try {
          await worker.handler(job.data, context)
          known.delete(key(job.name, job.id))
        } catch (error) {
          if (job.attempt < job.attempts && !closed) {
            logger.warn('job failed; it will be tried again', { job: job.name, id: job.id, attempt: job.attempt, error: String(error) })
            later({ ...job, attempt: job.attempt + 1 }, job.backoffMs * 2 ** (job.attempt - 1))
          } else {
            known.delete(key(job.name, job.id))
            logger.error('job failed', { job: job.name, id: job.id, attempt: job.attempt, error })
          }
        }
      })().finally(() => {
        worker.running--
        running.delete(run)
        pump(name)
      })
      running.add(run)
    }
  }

  async function add<T>(name: string, data: T, opts: JobOptions = {}) {
    if (closed) throw new JobQueueClosedError()
    const id = opts.id ?? randomUUID()
    if (known.has(key(name, id))) return
    known.add(key(name, id))
    const job: Job = { name, id, data, attempt: 1, attempts: Math.max(1, opts.attempts ?? 1), backoffMs: Math.max(0, opts.backoffMs ?? 1000) }
    if ((opts.delayMs ?? 0) > 0) later(job, opts.delayMs!)
    else enqueue(job)
  }

  return {
    engine: 'memory',

    define<T>(name: string, handler: JobHandler<T>, opts: WorkerOptions = {}) {
      if (closed) throw new JobQueueClosedError()
      if (workers.has(name)) throw new Error(`job ${name} is defined twice`)
      // One process: the global limit is the local one when it is lower.
      const concurrency = Math.max(1, Math.min(opts.concurrency ?? 1, opts.globalConcurrency ?? Number.POSITIVE_INFINITY))
      workers.set(name, { handler: handler as JobHandler<unknown>, concurrency, running: 0, ready: [] })
      const waiting = parked.get(name) ?? []
      parked.delete(name)
      for (const job of waiting) enqueue(job)
    },

    add,

    async every(name, everyMs) {
      if (closed) throw new JobQueueClosedError()
      const previous = schedules.get(name)
      if (previous) timers.clearTimeout(previous.handle)
      const fire = () => {
        if (closed) return
        // The same id while the last run is still going: a slow run is not overlapped.
        void add(name, null, { id: `every:${name}` }).catch(() => {})
        schedules.set(name, { everyMs, handle: timers.setTimeout(fire, everyMs) })
      }
      schedules.set(name, { everyMs, handle: timers.setTimeout(fire, everyMs) })
    },

    async idle() {
      for (;;) {
        const busy = running.size > 0 || delayed.size > 0 || [...workers.values()].some((w) => w.ready.length > 0)
        if (!busy) return
        if (running.size > 0) await Promise.allSettled([...running])
        else await new Promise((resolve) => setTimeout(resolve, 5))
      }
    },

    async depths() {
      const names = new Set([...workers.keys(), ...parked.keys()])
      const later = new Map<string, number>()
      for (const job of delayed.values()) later.set(job.name, (later.get(job.name) ?? 0) + 1)
      return [...names].map((name) => {
        const worker = workers.get(name)
        return {
          name,
          waiting: (worker?.ready.length ?? 0) + (parked.get(name)?.length ?? 0),
          delayed: later.get(name) ?? 0,
          active: worker?.running ?? 0
        }
      })
    },

    async close() {
      closed = true
      for (const handle of delayed.keys()) timers.clearTimeout(handle)
      delayed.clear()
      for (const { handle } of schedules.values()) timers.clearTimeout(handle)
      schedules.clear()
      while (running.size > 0) await Promise.allSettled([...running])
    }
  }
}
