import type { Db } from '../../db/database.js'
import type { PaintingTask } from '../../db/schema.js'
import type { EventBus } from '../../events/bus.js'
import type { JobQueue } from '../../jobs/queue.js'
import type { Logger } from '../../logger.js'
import type { Moderator } from '../../moderation/index.js'
import type { Storage } from '../../storage/storage.js'
import type { PaintingJob, PaintingProvider, PaintingUpdate } from './providers/provider.js'

export interface PaintingTuning {
  /** Period of the `painting:sweep` schedule (timeouts, polling; one node per period); 0: none, tests call tick(). */
  tickMs: number
  /** A task unfinished this long after it was created ends as TIMEOUT. */
  timeoutMs: number
  /** midjourney-proxy tasks with no news for this long are polled (0: every tick). */
  pollStaleMs: number
}

export interface PaintingRuntimeOptions {
  db: Db
  bus: EventBus
  storage: Storage
  logger: Logger
  now: () => number
  /** In-process painters draw in `painting:run` jobs; the sweep runs as `painting:sweep`. */
  jobs: JobQueue
  /** Midjourney-style jobs (demo painter or midjourney-proxy). */
  mj: PaintingProvider
  /** Stable-diffusion jobs (demo painter or AUTOMATIC1111). */
  sd: PaintingProvider
  /**
   * The offline demo painter: takes the new tasks of a kind whose painter has no channel enabled now
   * (`available`), and goes on drawing the tasks it took (painters.ts).
   */
  demo?: PaintingProvider
  tuning: PaintingTuning
  /** Downloads finished images from the upstream (tests may inject). */
  fetch?: typeof fetch
  /** Checks each finished image before it is stored (moderation/): a blocked one ends the task, refunded. */
  moderator?: Moderator
}

export interface NewTask {
  accountId: string
  kind: 'mj' | 'sd'
  prompt: string
  parentId?: string | null
  index?: number | null
  params?: Record<string, unknown> | null
  /** Shown on the task from the start (DESCRIBE: the picture being described). */
  imageKey?: string | null
  job: PaintingJob
}

/** How an unfinished task can end other than SUCCESS; each gives the allowance back. */
export type EndStatus = 'FAILURE' | 'TIMEOUT' | 'INTERRPUT'

export interface PaintingRuntime {
  /** The configured painters (behind channels: whether or not one is enabled now). */
  mj: PaintingProvider
  sd: PaintingProvider
  /** The painter a new task of the kind goes to now (painters.ts): what painting/features and sd/options describe. */
  current(kind: 'mj' | 'sd'): Promise<PaintingProvider>
  storage: Storage
  tuning: PaintingTuning
  /** Charges one mjCount, saves the task, hands it to the provider; refused submits are given back and thrown. */
  create(input: NewTask): Promise<PaintingTask>
  /** Applies an upstream update; ignored (undefined) when it would move the task backwards or it has ended. */
  apply(taskId: string, update: PaintingUpdate): Promise<PaintingTask | undefined>
  /** Ends an unfinished task (FAILURE, TIMEOUT, INTERRPUT) and gives the allowance back. */
  end(taskId: string, status: EndStatus, reason: string): Promise<PaintingTask | undefined>
  /** One sweep: timeouts, then polling of external upstreams. */
  tick(): Promise<void>
  /**
   * At start-up. Memory engine (one process): tasks of in-process painters left unfinished by the
   * previous run were cut off with it and end as FAILURE (refunded); returns how many. BullMQ: their
   * jobs are in Redis and another node may be drawing them right now, so nothing ends; their jobs are
   * added again (a no-op for jobs still queued or running) in case one was lost; returns 0.
   */
  sweep(): Promise<number>
  /** Defines the `painting:run` and `painting:sweep` handlers on the queue and schedules the sweep. */
  defineJobs(queue: JobQueue): void
  /** Resolves when no work started here is still going (tests). */
  idle(): Promise<void>
  /**
   * Stops taking jobs. Memory engine: tasks drawn or queued here end as FAILURE (refunded), since
   * nothing else will draw them. BullMQ: drawings here stop and their jobs fail over to the queue,
   * which hands them to another node (or to this one after its restart).
   */
  close(): Promise<void>
}

/** What the parts of one runtime share: the work of this process and whether it is stopping. */
export interface PaintingState {
  /** Tasks drawn in this process now, to stop their painter (stop, timeout, close). */
  drawing: Map<string, AbortController>
  /** The running `painting:run` handlers of this process, by task id. */
  running: Map<string, Promise<void>>
  /** Memory engine: tasks queued here whose drawing has not started (close ends them). */
  queued: Set<string>
  /** Work started here (idle() and close() wait for it). */
  pending: Set<Promise<unknown>>
  closed: boolean
  track<T>(promise: Promise<T>): Promise<T>
}
