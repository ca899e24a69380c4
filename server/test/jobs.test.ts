import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { type BullJobQueue, createBullQueue, createMemoryQueue, type JobContext, type JobQueue, JobQueueClosedError } from '../src/jobs/index.js'
import type { Logger } from '../src/logger.js'
import { dropRedisKeys } from './helpers/redis.js'

/**
 * One conformance suite for both engines. With REDIS_URL it also runs on BullMQ, where each `node()`
 * is a separate engine (its own connections and workers) on one Redis and one prefix: two nodes of
 * one deployment. The memory engine has one process, so its "second node" is the same instance.
 * Assertions count runs; times only appear as lower bounds ("not before"), which load cannot break.
 */
const REDIS_URL = process.env.REDIS_URL
const engines = REDIS_URL ? (['memory', 'bullmq'] as const) : (['memory'] as const)

interface LogLine {
  level: 'info' | 'warn' | 'error'
  message: string
  fields: Record<string, unknown> | undefined
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

/** Gates not yet opened; afterEach opens them so a failed assertion does not leave close() waiting. */
const gates: (() => void)[] = []

/** A promise to hold handlers on, opened by the test. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  gates.push(open)
  return { opened, open }
}

describe.each(engines)('%s job queue', (engine) => {
  const logs: LogLine[] = []
  const logger: Logger = {
    info: (message, fields) => void logs.push({ level: 'info', message, fields }),
    warn: (message, fields) => void logs.push({ level: 'warn', message, fields }),
    error: (message, fields) => void logs.push({ level: 'error', message, fields })
  }
  let prefix = ''
  let memory: JobQueue | undefined
  const nodes: JobQueue[] = []

  /** A node of the deployment under test (a fresh prefix per test isolates tests in Redis). */
  function node(options: { lockMs?: number; stalledMs?: number } = {}): JobQueue {
    if (engine === 'memory') {
      memory ??= createMemoryQueue({ logger })
      if (!nodes.includes(memory)) nodes.push(memory)
      return memory
    }
    prefix ||= `lingxi_t_${randomBytes(6).toString('hex')}:`
    const queue = createBullQueue({ url: REDIS_URL!, prefix, logger, ...options })
    nodes.push(queue)
    return queue
  }

  afterEach(async () => {
    for (const open of gates.splice(0)) open()
    await Promise.all(nodes.splice(0).map((queue) => queue.close()))
    memory = undefined
    logs.splice(0)
    if (REDIS_URL && prefix) await dropRedisKeys(REDIS_URL, prefix)
    prefix = ''
  })

  it('runs a job with its data and id, and makes an id up when none is given', async () => {
    const queue = node()
    const seen: { data: unknown; job: JobContext }[] = []
    queue.define<{ taskId: number }>('t:run', async (data, job) => void seen.push({ data, job }))
    await queue.add('t:run', { taskId: 7 }, { id: '7' })
    await queue.add('t:run', { taskId: 8 })
    await waitFor(() => seen.length === 2, 'two runs')
    await queue.idle()
    const byTask = new Map(seen.map((s) => [(s.data as { taskId: number }).taskId, s.job]))
    expect(byTask.get(7)).toEqual({ id: '7', attempt: 1, attempts: 1 })
    expect(byTask.get(8)?.id).toMatch(/.+/)
    expect(byTask.get(8)?.id).not.toBe('7')
    expect(queue.engine).toBe(engine)
  })

  it('keeps jobs added before their handler is defined until it is', async () => {
    const producer = node()
    const consumer = node()
    await producer.add('t:early', { n: 1 }, { id: 'early' })
    const seen: unknown[] = []
    consumer.define('t:early', async (data) => void seen.push(data))
    await waitFor(() => seen.length === 1, 'the early job')
    await consumer.idle()
    expect(seen).toEqual([{ n: 1 }])
  })

  it('keeps ids apart that differ only in `:`, `%` or look like numbers, and gives them back as added', async () => {
    const queue = node()
    const ids: string[] = []
    queue.define('t:ids', async (_data, job) => void ids.push(job.id))
    const wanted = ['42', '42:3', 'a:b', 'a%3Ab', 'a%253Ab', 'repeat:x:1', '#x']
    for (const id of wanted) await queue.add('t:ids', null, { id })
    await waitFor(() => ids.length === wanted.length, 'every id')
    await queue.idle()
    expect(ids.sort()).toEqual([...wanted].sort())
  })

  it('runs one job per id while it waits, is delayed or runs; the id is free again once it ends', async () => {
    const queue = node()
    const hold = gate()
    const runs: string[] = []
    queue.define<{ n: number }>(
      't:once',
      async (data, job) => {
        runs.push(`${job.id}/${data.n}`)
        if (job.id === 'blocker') await hold.opened
      },
      { concurrency: 1 }
    )
    // Running: the blocker holds the only slot while it is added again.
    await queue.add('t:once', { n: 1 }, { id: 'blocker' })
    await waitFor(() => runs.length === 1, 'the blocker to start')
    await queue.add('t:once', { n: 2 }, { id: 'blocker' })
    // Waiting: behind the blocker.
    await queue.add('t:once', { n: 1 }, { id: 'waiting' })
    await queue.add('t:once', { n: 2 }, { id: 'waiting' })
    // Delayed, then the same id again without a delay: the first one stands.
    await queue.add('t:once', { n: 1 }, { id: 'delayed', delayMs: 300 })
    await queue.add('t:once', { n: 2 }, { id: 'delayed' })
    hold.open()
    await waitFor(() => runs.length >= 3, 'the three jobs')
    await queue.idle()
    expect(runs.sort()).toEqual(['blocker/1', 'delayed/1', 'waiting/1'])

    // Ended: the same id is a new job.
    await queue.add('t:once', { n: 3 }, { id: 'waiting' })
    await waitFor(() => runs.length === 4, 'the id to run again')
    await queue.idle()
    expect(runs).toContain('waiting/3')
  })

  it('runs a job once when two nodes add it 50 times at once', async () => {
    const [a, b] = [node(), node()]
    const hold = gate()
    let runs = 0
    const handler = async () => {
      runs++
      await hold.opened
    }
    a.define('t:race', handler)
    if (b !== a) b.define('t:race', handler)
    // The handler holds until every add has answered, so no add can come after the job ended.
    await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).add('t:race', { i }, { id: 'same' })))
    await waitFor(() => runs >= 1, 'the run')
    hold.open()
    await Promise.all([a.idle(), b.idle()])
    expect(runs).toBe(1)
  })

  it('does not run a delayed job before its delay', async () => {
    const queue = node()
    const started: number[] = []
    queue.define('t:delay', async () => void started.push(Date.now()))
    const added = Date.now()
    await queue.add('t:delay', null, { id: 'd', delayMs: 400 })
    await waitFor(() => started.length === 1, 'the delayed run')
    // 1 ms of slack: Node timers round to the millisecond.
    expect(started[0]! - added).toBeGreaterThanOrEqual(399)
  })

  it('tries again with doubling backoff, passing the attempt; gives up after `attempts`', async () => {
    const queue = node()
    const tries: { id: string; attempt: number; attempts: number; at: number }[] = []
    queue.define<{ failures: number }>('t:retry', async (data, job) => {
      tries.push({ id: job.id, attempt: job.attempt, attempts: job.attempts, at: Date.now() })
      if (job.attempt <= data.failures) throw new Error(`failure ${job.attempt}`)
    })
    await queue.add('t:retry', { failures: 2 }, { id: 'flaky', attempts: 3, backoffMs: 100 })
    await queue.add('t:retry', { failures: 9 }, { id: 'broken', attempts: 2, backoffMs: 50 })
    await waitFor(() => tries.length === 5, 'five tries')
    await queue.idle()
    const flaky = tries.filter((t) => t.id === 'flaky')
    const broken = tries.filter((t) => t.id === 'broken')
    expect(flaky.map((t) => [t.attempt, t.attempts])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3]
    ])
    expect(broken.map((t) => [t.attempt, t.attempts])).toEqual([
      [1, 2],
      [2, 2]
    ])
    // Backoff: 100 ms before the second try, 200 ms before the third (lower bounds only).
    expect(flaky[1]!.at - flaky[0]!.at).toBeGreaterThanOrEqual(99)
    expect(flaky[2]!.at - flaky[1]!.at).toBeGreaterThanOrEqual(199)
    expect(logs.filter((l) => l.message === 'job failed').map((l) => l.fields?.id)).toEqual(['broken'])

    // A job that gave up frees its id.
    await queue.add('t:retry', { failures: 0 }, { id: 'broken' })
    await waitFor(() => tries.length === 6, 'the id to run again')
    await queue.idle()
    expect(tries[5]).toMatchObject({ id: 'broken', attempt: 1, attempts: 1 })
  })

  /** Defines `name` on each node; handlers hold until released, counting how many run at once. */
  function crowd(name: string, queues: JobQueue[], options: { concurrency: number; globalConcurrency?: number }) {
    const release = gate()
    const state = { total: 0, maxTotal: 0, done: 0, perNode: queues.map(() => ({ now: 0, max: 0 })) }
    queues.forEach((queue, i) => {
      queue.define(
        name,
        async () => {
          const mine = state.perNode[i]!
          state.total++
          mine.now++
          state.maxTotal = Math.max(state.maxTotal, state.total)
          mine.max = Math.max(mine.max, mine.now)
          await release.opened
          state.total--
          mine.now--
          state.done++
        },
        options
      )
    })
    return { state, release: release.open }
  }

  it('never runs more of a name at once than `concurrency` per node', async () => {
    const queues = engine === 'memory' ? [node()] : [node(), node()]
    const { state, release } = crowd('t:conc', queues, { concurrency: 2 })
    for (let i = 0; i < 10; i++) await queues[0]!.add('t:conc', { i })
    await waitFor(() => state.total >= 2 * queues.length, 'every slot to fill')
    // Room to overshoot, were it possible: nothing else may start while the slots are held.
    await sleep(300)
    expect(state.perNode.map((n) => n.max)).toEqual(queues.map(() => 2))
    release()
    await waitFor(() => state.done === 10, 'all ten jobs')
    await Promise.all(queues.map((q) => q.idle()))
    expect(state.perNode.map((n) => n.max)).toEqual(queues.map(() => 2))
  })

  it('never runs more of a name at once than `globalConcurrency` across nodes', async () => {
    const queues = engine === 'memory' ? [node()] : [node(), node()]
    const { state, release } = crowd('t:global', queues, { concurrency: 3, globalConcurrency: 2 })
    for (let i = 0; i < 10; i++) await queues[i % queues.length]!.add('t:global', { i })
    await waitFor(() => state.total >= 2, 'the global limit to fill')
    await sleep(300)
    expect(state.maxTotal).toBe(2)
    release()
    await waitFor(() => state.done === 10, 'all ten jobs')
    await Promise.all(queues.map((q) => q.idle()))
    expect(state.maxTotal).toBe(2)
  })

  it('fires a schedule once per period however many nodes set it, and not before its first period', async () => {
    const periodMs = 300
    const [a, b] = [node(), node()]
    const runs: { at: number; id: string }[] = []
    const handler = async (_data: unknown, job: JobContext) => void runs.push({ at: Date.now(), id: job.id })
    a.define('t:tick', handler)
    if (b !== a) b.define('t:tick', handler)
    const start = Date.now()
    await Promise.all([a.every('t:tick', periodMs), b.every('t:tick', periodMs)])
    await waitFor(() => runs.length >= 2, 'two runs')
    // A node restarting sets it again: still one schedule.
    await b.every('t:tick', periodMs)
    await waitFor(() => runs.length >= 6, 'six runs')
    const elapsed = Date.now() - start
    const count = runs.length
    // One schedule fires at most once per period from `start` (the first after one period); two
    // would fire about twice as often. Load only makes runs later, never more frequent.
    expect(count).toBeLessThanOrEqual(Math.floor(elapsed / periodMs) + 1)
    expect(runs[0]!.at - start).toBeGreaterThanOrEqual(periodMs - 1)
    expect(new Set(runs.map((r) => r.id))).toEqual(new Set(['every:t:tick']))
  })

  it('never overlaps a slow scheduled run with the next period on any node', async () => {
    const [a, b] = [node(), node()]
    let now = 0
    let max = 0
    let runs = 0
    const handler = async () => {
      now++
      runs++
      max = Math.max(max, now)
      // Three periods long: without the guard the next periods would start beside it.
      await sleep(300)
      now--
    }
    a.define('t:slowtick', handler, { concurrency: 2 })
    if (b !== a) b.define('t:slowtick', handler, { concurrency: 2 })
    await Promise.all([a.every('t:slowtick', 100), b.every('t:slowtick', 100)])
    await waitFor(() => runs >= 3, 'three runs')
    expect(max).toBe(1)
  })

  it('close() waits for the running job, then refuses new work', async () => {
    const queue = node()
    const hold = gate()
    let finished = false
    queue.define('t:slow', async () => {
      await hold.opened
      finished = true
    })
    let started = false
    queue.define('t:probe', async () => {
      started = true
    })
    await queue.add('t:slow', null, { id: 'slow' })
    await queue.add('t:probe', null)
    await waitFor(() => started, 'the probe (workers are up)')
    await sleep(50)
    let finishedWhenClosed: boolean | undefined
    const closing = queue.close().then(() => (finishedWhenClosed = finished))
    await sleep(100)
    expect(finishedWhenClosed).toBeUndefined()
    hold.open()
    await closing
    expect(finishedWhenClosed).toBe(true)
    await expect(queue.add('t:slow', null)).rejects.toBeInstanceOf(JobQueueClosedError)
    expect(() => queue.define('t:late', async () => {})).toThrow(JobQueueClosedError)
    await expect(queue.every('t:slow', 1000)).rejects.toBeInstanceOf(JobQueueClosedError)
  })

  it('refuses a second handler for one name', () => {
    const queue = node()
    queue.define('t:twice', async () => {})
    expect(() => queue.define('t:twice', async () => {})).toThrow(/defined twice/)
  })

  it.runIf(engine === 'bullmq')(
    "takes over a dead node's running job on another node",
    async () => {
      const a = node({ lockMs: 1000, stalledMs: 300 }) as BullJobQueue
      const b = node({ lockMs: 1000, stalledMs: 300 })
      const runs: { node: string; data: unknown; job: JobContext }[] = []
      // A's handler never ends: the node dies under it.
      a.define('t:orphan', async (data, job) => {
        runs.push({ node: 'a', data, job })
        await new Promise(() => {})
      })
      await a.add('t:orphan', { taskId: 5 }, { id: '5', attempts: 3 })
      await waitFor(() => runs.length === 1, 'node a to start the job')
      b.define('t:orphan', async (data, job) => void runs.push({ node: 'b', data, job }))
      await a.abandon()
      await waitFor(() => runs.length === 2, 'node b to take the job over', 20_000)
      await b.idle()
      expect(runs.map((r) => r.node)).toEqual(['a', 'b'])
      // The same job, from the start: same data and id, and a lost node is not a failed try.
      expect(runs[1]!.data).toEqual({ taskId: 5 })
      expect(runs[1]!.job).toEqual({ id: '5', attempt: 1, attempts: 3 })
      expect(logs.find((l) => l.message === 'job lost its node; it runs again')?.fields).toEqual({ job: 't:orphan', id: '5' })
    },
    30_000
  )
})
