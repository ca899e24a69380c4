import { hostname } from 'node:os'
import { type Job, Queue, Worker } from 'bullmq'
import { Redis } from 'ioredis'
import type { Logger } from '../logger.js'
import { type JobContext, type JobHandler, type JobOptions, type JobQueue, JobQueueClosedError, type WorkerOptions } from './queue.js'

export interface BullQueueOptions {
  url: string
  /** The deployment's Redis prefix (REDIS_PREFIX); BullMQ keys go under `${prefix}jobs:`. */
  prefix: string
  logger: Logger
  /**
   * How long a running job's lock lasts without renewal (renewed every half). A node that dies
   * leaves its jobs to be taken over once the lock runs out and a stalled check sees it: within
   * lockMs + stalledMs, ~25 s by default. Tests shorten both.
   */
  lockMs?: number
  /** How often each node looks for jobs whose lock ran out (default 10 s). */
  stalledMs?: number
}

/** The BullMQ engine, plus what tests need to play a node that dies. */
export interface BullJobQueue extends JobQueue {
  /**
   * Stops at once as if this process had died: running jobs are not waited for, their locks are no
   * longer renewed, and another node takes them over. For tests; production uses close().
   */
  abandon(): Promise<void>
}

/** The one scheduler of a name's queue (there is one queue per job name). */
const SCHEDULER_ID = 'every'

/** BullMQ queue names may not contain `:`; ours do (`painting:run`). */
const queueNameOf = (name: string) => name.replace(/:/g, '.')

/**
 * BullMQ refuses custom ids that look like integers or contain `:` (ours may be `42` or `42:3`).
 * `#` plus the id with `%` and `:` escaped is never an integer and maps back one to one.
 */
const jobIdOf = (id: string) => `#${id.replace(/%/g, '%25').replace(/:/g, '%3A')}`
const idOfJobId = (jobId: string) => jobId.slice(1).replace(/%3A/g, ':').replace(/%25/g, '%')

/**
 * BullMQ on Redis, shared by every node: one Queue and (once defined) one Worker per job name, all
 * under `${prefix}jobs`. Ids dedupe in Redis (a job whose id exists is not added again; finished
 * jobs are removed so the id may be used again); a node that dies stops renewing its jobs' locks and
 * another node's stalled check puts them back to run; `every` is a BullMQ job scheduler, whose
 * iterations have one id per period, so it fires once per period however many nodes upsert it.
 */
export function createBullQueue(options: BullQueueOptions): BullJobQueue {
  const { url, logger } = options
  const lockMs = Math.max(100, options.lockMs ?? 15_000)
  const stalledMs = Math.max(50, options.stalledMs ?? Math.min(10_000, lockMs))
  const prefix = `${options.prefix}jobs`

  // Producers fail fast while Redis is away (a request adding a job gets an error, not a hang).
  const producer = new Redis(url, { maxRetriesPerRequest: 2 })
  // Workers wait for Redis as long as it takes; BullMQ requires `maxRetriesPerRequest: null` (each
  // worker duplicates this connection for its blocking fetch).
  const consumer = new Redis(url, { maxRetriesPerRequest: null })

  /** Errors come in bursts while Redis is away: one line per source a minute. */
  const reported = new Map<string, number>()
  function report(source: string, error: unknown) {
    const now = Date.now()
    if ((reported.get(source) ?? Number.NEGATIVE_INFINITY) > now - 60_000) return
    reported.set(source, now)
    logger.error('job queue error', { source, error: error instanceof Error ? error.message : String(error) })
  }
  producer.on('error', (error) => report('redis', error))
  consumer.on('error', (error) => report('redis', error))

  const queues = new Map<string, Queue>()
  const workers = new Map<string, { worker: Worker; options: WorkerOptions }>()
  /** Names this process runs on a schedule: they never overlap themselves across nodes. */
  const scheduled = new Set<string>()
  /** Global-concurrency updates, one after another per name so the last word wins. */
  const limits = new Map<string, Promise<void>>()
  const running = new Set<Promise<void>>()
  let closed = false
  let closing: Promise<void> | undefined

  function queueOf(name: string): Queue {
    let queue = queues.get(name)
    if (!queue) {
      queue = new Queue(queueNameOf(name), {
        connection: producer,
        prefix,
        defaultJobOptions: { removeOnComplete: true, removeOnFail: true },
        // Nothing here reads the events stream; a short one is enough for a dashboard.
        streams: { events: { maxLen: 1000 } }
      })
      queue.on('error', (error) => report(`queue ${name}`, error))
      queues.set(name, queue)
    }
    return queue
  }

  /**
   * The limit across nodes: 1 for a schedule (as in memory, a slow sweep is not overlapped by the
   * next period's on another node), else the handler's globalConcurrency, else none. Kept in the
   * queue's Redis meta, so the last node to start sets it for all.
   */
  function applyLimit(name: string): Promise<void> {
    const next = (limits.get(name) ?? Promise.resolve()).then(async () => {
      const queue = queueOf(name)
      const limit = scheduled.has(name) ? 1 : workers.get(name)?.options.globalConcurrency
      if (limit === undefined) await queue.removeGlobalConcurrency()
      else await queue.setGlobalConcurrency(Math.max(1, Math.floor(limit)))
    })
    const settled = next.catch((error: unknown) => report(`limit ${name}`, error))
    limits.set(name, settled)
    return settled
  }

  function contextOf(name: string, job: Job): JobContext {
    const id = job.repeatJobKey ? `every:${name}` : job.id?.startsWith('#') ? idOfJobId(job.id) : String(job.id)
    return { id, attempt: job.attemptsMade + 1, attempts: Math.max(1, job.opts.attempts ?? 1) }
  }

  /** Any job of this process's defined names waiting, delayed (schedules aside) or running anywhere. */
  async function queuesBusy(): Promise<boolean> {
    for (const name of workers.keys()) {
      const queue = queueOf(name)
      const counts = await queue.getJobCounts('waiting', 'active', 'prioritized', 'waiting-children', 'delayed')
      const { delayed = 0, ...others } = counts
      if (Object.values(others).some((n) => n > 0)) return true
      if (delayed > 0 && (await queue.getDelayed()).some((job) => !job.repeatJobKey)) return true
    }
    return false
  }

  async function shutdown(force: boolean) {
    closed = true
    // Workers first: with force they drop their jobs (and locks) at once; otherwise each waits for
    // its running jobs. In parallel, so one slow job does not hold up the others' connections.
    await Promise.allSettled([...workers.values()].map(({ worker }) => worker.close(force)))
    if (force) running.clear()
    await Promise.allSettled([...limits.values()])
    await Promise.allSettled([...queues.values()].map((queue) => queue.close()))
    for (const client of [producer, consumer]) {
      if (force) client.disconnect()
      else await client.quit().catch(() => client.disconnect())
    }
  }

  return {
    engine: 'bullmq',

    define<T>(name: string, handler: JobHandler<T>, opts: WorkerOptions = {}) {
      if (closed) throw new JobQueueClosedError()
      if (workers.has(name)) throw new Error(`job ${name} is defined twice`)
      const processor = async (job: Job) => {
        const context = contextOf(name, job)
        const run = (async () => handler(job.data as T, context))()
        const tracked = run.then(
          () => {},
          () => {}
        )
        running.add(tracked)
        try {
          await run
        } catch (error) {
          if (context.attempt < context.attempts) {
            logger.warn('job failed; it will be tried again', { job: name, id: context.id, attempt: context.attempt, error: String(error) })
          } else {
            logger.error('job failed', { job: name, id: context.id, attempt: context.attempt, error })
          }
          throw error instanceof Error ? error : new Error(String(error))
        } finally {
          running.delete(tracked)
        }
      }
      const worker = new Worker(queueNameOf(name), processor, {
        connection: consumer,
        prefix,
        name: `${hostname()}:${process.pid}`,
        concurrency: Math.max(1, Math.floor(opts.concurrency ?? 1)),
        lockDuration: lockMs,
        stalledInterval: stalledMs,
        // A job may be taken over twice (two nodes dying under it) before it counts as failed.
        maxStalledCount: 2,
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 0 },
        // Started below, once the global limit is in Redis.
        autorun: false
      })
      worker.on('error', (error) => report(`worker ${name}`, error))
      worker.on('stalled', (jobId) => logger.warn('job lost its node; it runs again', { job: name, id: jobId.startsWith('#') ? idOfJobId(jobId) : jobId }))
      workers.set(name, { worker, options: opts })
      void applyLimit(name).then(() => {
        if (closed) return
        worker.run().catch((error: unknown) => report(`worker ${name}`, error))
      })
    },

    async add<T>(name: string, data: T, opts: JobOptions = {}) {
      if (closed) throw new JobQueueClosedError()
      const attempts = Math.max(1, Math.floor(opts.attempts ?? 1))
      await queueOf(name).add(name, data ?? null, {
        ...(opts.id === undefined ? {} : { jobId: jobIdOf(opts.id) }),
        ...((opts.delayMs ?? 0) > 0 ? { delay: Math.ceil(opts.delayMs!) } : {}),
        attempts,
        ...(attempts > 1 ? { backoff: { type: 'exponential', delay: Math.max(0, opts.backoffMs ?? 1000) } } : {})
      })
    },

    async every(name, everyMs) {
      if (closed) throw new JobQueueClosedError()
      const every = Math.max(1, Math.floor(everyMs))
      scheduled.add(name)
      await applyLimit(name)
      // startDate only counts when the schedule is new (or its period changed): the first run comes
      // after one period, as in memory. Upserting an existing one keeps its next run's time and id.
      await queueOf(name).upsertJobScheduler(
        SCHEDULER_ID,
        { every, startDate: Date.now() + every },
        { name, data: null, opts: { removeOnComplete: true, removeOnFail: true } }
      )
    },

    async depths() {
      return Promise.all(
        [...workers.keys()].map(async (name) => {
          const counts = await queueOf(name).getJobCounts('waiting', 'prioritized', 'delayed', 'active')
          return { name, waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0), delayed: counts.delayed ?? 0, active: counts.active ?? 0 }
        })
      )
    },

    async idle() {
      for (;;) {
        if (running.size > 0) {
          await Promise.allSettled([...running])
          continue
        }
        if (closed) return
        if (!(await queuesBusy())) {
          if (running.size === 0) return
          continue
        }
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },

    close() {
      closing ??= shutdown(false)
      return closing
    },

    abandon() {
      closing ??= shutdown(true)
      return closing
    }
  }
}
