/**
 * Background jobs: painting runs and sweeps, music polls, hot-news refreshes, red-packet payments.
 *
 * One interface, two engines:
 * - `memory` (the embedded default, one process): timers in this process; nothing survives a restart,
 *   so each feature also picks its unfinished work up from the database when it starts.
 * - `bullmq` (with REDIS_URL): BullMQ queues in Redis, shared by every node. A job added twice with
 *   the same id is one job; a job whose node dies is taken over by another node once its lock runs
 *   out; a schedule (`every`) fires on one node per period, wherever it is.
 *
 * Handlers must still be idempotent (check the database state before acting): a job that was taken
 * over after its node died runs again from the start.
 */

export type JobEngine = 'memory' | 'bullmq'

export interface JobOptions {
  /**
   * The job's identity: adding a job whose id is waiting, delayed or running does nothing (the
   * first one stands). Ids are unique per job name; `:` is allowed.
   */
  id?: string
  /** Run no sooner than this many milliseconds from now. */
  delayMs?: number
  /** Tries in all (default 1). A handler that throws is tried again after `backoffMs`, doubling. */
  attempts?: number
  backoffMs?: number
}

export interface JobContext {
  /** The job's id (given, or made up; `every:<name>` for a schedule's runs). */
  id: string
  /** 1 on the first try. */
  attempt: number
  /** Tries in all. */
  attempts: number
}

export type JobHandler<T> = (data: T, job: JobContext) => Promise<void>

export interface WorkerOptions {
  /** Jobs of this name run at once in this process (default 1). */
  concurrency?: number
  /**
   * Jobs of this name run at once across every node (an upstream that takes one job at a time,
   * e.g. AUTOMATIC1111). Default: no limit beyond `concurrency`.
   */
  globalConcurrency?: number
}

export interface JobQueue {
  readonly engine: JobEngine
  /** Registers the handler of one kind of job; its jobs start running now. Once per name. */
  define<T>(name: string, handler: JobHandler<T>, options?: WorkerOptions): void
  /** Adds a job (see JobOptions.id for duplicates). Resolves once it is stored. */
  add<T>(name: string, data: T, options?: JobOptions): Promise<void>
  /**
   * Runs job `name` (with no data) every `everyMs`, the first time one period from now: on one node
   * per period, whichever is free, and never two runs of it at once. Calling it again (another node,
   * a restart) changes the period and adds no second schedule.
   */
  every(name: string, everyMs: number): Promise<void>
  /**
   * For tests: resolves when no job is waiting, delayed or running in this process; with BullMQ, also
   * none of the names defined here in Redis on any node (schedules' next runs aside; polls Redis).
   */
  idle(): Promise<void>
  /** Stops taking jobs and waits for the running ones (graceful shutdown); schedules stay in Redis. */
  close(): Promise<void>
  /**
   * Jobs by name and state, for /metrics: memory, this process's; BullMQ, every node's (from Redis)
   * for the names this process defined. Delayed includes retries waiting for their backoff.
   */
  depths(): Promise<JobDepth[]>
}

export interface JobDepth {
  name: string
  waiting: number
  delayed: number
  active: number
}

/** Thrown by add/define after close(). */
export class JobQueueClosedError extends Error {
  constructor() {
    super('the job queue is closed')
    this.name = 'JobQueueClosedError'
  }
}
