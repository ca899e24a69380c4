import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { paintingTasks } from '../src/db/schema.js'
import { type BullJobQueue, createBullQueue } from '../src/jobs/index.js'
import { createA1111 } from '../src/modules/painting/providers/a1111.js'
import { createDemoPainter } from '../src/modules/painting/providers/demo.js'
import type { PaintingProvider } from '../src/modules/painting/providers/provider.js'
import { RUN_JOB } from '../src/modules/painting/runtime.js'
import type { WireTask } from '../src/modules/painting/wire.js'
import { type FakeA1111, startFakeA1111 } from './fakes/a1111.js'
import { waitUntil } from './helpers/chat.js'
import { createTestDatabase, type TestDatabase } from './helpers/database.js'
import { memoryLogger } from './helpers/harness.js'
import { createPaintingHarness, type DrawingGate, drawingGate, type PaintingHarness, usePaintingHarness } from './helpers/painting.js'
import { dropRedisKeys } from './helpers/redis.js'

const MJ = '/api/v1/painting'
const ENDED = ['SUCCESS', 'FAILURE', 'TIMEOUT', 'INTERRPUT']

/** The demo painter behind a gate, counting the drawings it starts. */
function countedDemo(g: DrawingGate) {
  const demo = createDemoPainter({ delayMs: 6000, sleep: (ms, signal) => g.sleep(ms, signal) })
  const painter = {
    ...demo,
    draws: 0,
    submit(ctx: Parameters<PaintingProvider['submit']>[0]) {
      painter.draws++
      return demo.submit(ctx)
    }
  }
  return painter
}

/** Files under DATA_DIR/files/painting (a finished picture is two: the image and its thumbnail). */
function paintingFiles(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, 'files', 'painting'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
  } catch {
    return []
  }
}

describe('painting jobs on the memory queue', () => {
  let g = drawingGate()
  let painter = countedDemo(g)
  const ctx = usePaintingHarness(() => {
    g = drawingGate()
    painter = countedDemo(g)
    return { env: { PAINTING_TIMEOUT_MS: '120000' }, painting: { providers: { mj: painter } } }
  })

  it('the same task added twice draws once and is charged once', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'twice' }, token)
    expect(res.body.data.status).toBe('SUBMITTED')
    const taskId = res.body.data.taskId
    await waitUntil(() => g.waiting > 0)
    // While it is drawn: the same id is the same job.
    await ctx.h.jobs.add(RUN_JOB, { taskId }, { id: taskId })
    await ctx.h.jobs.add(RUN_JOB, { taskId }, { id: taskId })
    g.release()
    expect((await ctx.h.settled(token, taskId)).status).toBe('SUCCESS')
    // Once it is drawn: a job for a finished task does nothing.
    await ctx.h.jobs.add(RUN_JOB, { taskId }, { id: taskId })
    await ctx.h.runtime.idle()
    expect(painter.draws).toBe(1)
    expect(await ctx.h.mjCount(accountId)).toBe(start - 1)
    expect((await ctx.h.log(accountId)).map((l) => l.amount)).toEqual([-1])
    expect(await ctx.h.row(taskId)).toMatchObject({ status: 'SUCCESS', charged: 1, refunded: false })
    expect(paintingFiles(ctx.h.dataDir)).toHaveLength(2)
  })

  it('closing ends the tasks drawn here and those still queued here, each refunded once', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const ids: string[] = []
    // More than one process draws at once: the last ones wait in the queue.
    for (let i = 0; i < 6; i++) ids.push((await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: `held ${i}` }, token)).body.data.taskId)
    await waitUntil(() => g.waiting > 0 && painter.draws >= 1)
    expect(painter.draws).toBeLessThan(6)
    await ctx.h.runtime.close()
    for (const id of ids) expect(await ctx.h.row(id)).toMatchObject({ status: 'FAILURE', refunded: true, failReason: '服务重启，任务已中断，次数已退回' })
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    expect((await ctx.h.log(accountId)).map((l) => l.amount).sort()).toEqual([...Array(6).fill(-1), ...Array(6).fill(1)].sort())
  })
})

describe('the painting:sweep schedule', () => {
  let g = drawingGate()
  const ctx = usePaintingHarness(() => {
    g = drawingGate()
    return { env: { PAINTING_TIMEOUT_MS: '60000' }, painting: { demo: { delayMs: 6000, sleep: (ms, signal) => g.sleep(ms, signal) }, tuning: { tickMs: 20 } } }
  })

  it('ends tasks that ran out of time without anyone calling tick()', async () => {
    const { token, accountId } = await ctx.h.login()
    const start = await ctx.h.mjCount(accountId)
    const res = await ctx.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'slow' }, token)
    await waitUntil(() => g.waiting > 0)
    ctx.h.clock.advance(60_001)
    await waitUntil(async () => (await ctx.h.row(res.body.data.taskId)).status === 'TIMEOUT', 10_000)
    expect(await ctx.h.mjCount(accountId)).toBe(start)
    g.release()
  })
})

const REDIS_URL = process.env.REDIS_URL

describe.skipIf(!REDIS_URL)('painting jobs on BullMQ: two nodes, one database, one Redis', () => {
  let db: TestDatabase
  let prefix: string
  let dataDir: string
  let nodes: { h: PaintingHarness; jobs: BullJobQueue; gate: DrawingGate; painter: ReturnType<typeof countedDemo> }[] = []

  beforeAll(async () => {
    db = await createTestDatabase()
  })
  afterAll(async () => {
    await db?.destroy()
  })
  beforeEach(async () => {
    await db.reset()
    prefix = `lingxi-test-${randomBytes(6).toString('hex')}:`
    dataDir = mkdtempSync(join(tmpdir(), 'lingxi-painting-nodes-'))
    nodes = []
  })
  afterEach(async () => {
    for (const node of nodes.reverse()) {
      node.gate.release()
      await node.h.close()
    }
    // The keys of this test's queues.
    await dropRedisKeys(REDIS_URL!, prefix)
  })

  /** One more API node: its own app, painter and BullMQ workers; the database, Redis and files are shared. */
  async function node(options: { open?: boolean; sd?: PaintingProvider } = {}) {
    // A node that dies is noticed within about a second.
    const jobs = createBullQueue({ url: REDIS_URL!, prefix, logger: memoryLogger(), lockMs: 1000, stalledMs: 250 })
    const g = drawingGate(options.open)
    const painter = countedDemo(g)
    const h = await createPaintingHarness(db, {
      jobs,
      dataDir,
      env: { PAINTING_TIMEOUT_MS: '600000' },
      painting: { providers: { mj: painter, ...(options.sd ? { sd: options.sd } : {}) } }
    })
    const n = { h, jobs, gate: g, painter }
    nodes.push(n)
    return n
  }

  const row = async (taskId: string) => (await db.db.select().from(paintingTasks).where(eq(paintingTasks.id, taskId)))[0]!
  const ended = async (taskId: string) => ENDED.includes((await row(taskId)).status)

  it('a task added on both nodes is drawn once and charged once', async () => {
    const a = await node()
    const b = await node()
    const { token, accountId } = await a.h.login()
    const start = await a.h.mjCount(accountId)
    const res = await a.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'one of two' }, token)
    expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
    const taskId = res.body.data.taskId
    await waitUntil(() => a.gate.waiting + b.gate.waiting > 0, 10_000)
    await b.h.jobs.add(RUN_JOB, { taskId }, { id: taskId })
    await a.h.jobs.add(RUN_JOB, { taskId }, { id: taskId })
    expect(await b.h.runtime.sweep()).toBe(0)
    a.gate.release()
    b.gate.release()
    await waitUntil(() => ended(taskId), 15_000)
    // Added again once drawn: the job finds the task finished.
    await b.h.jobs.add(RUN_JOB, { taskId }, { id: taskId })
    await b.h.runtime.idle()
    await a.h.runtime.idle()
    expect(a.painter.draws + b.painter.draws).toBe(1)
    expect(await row(taskId)).toMatchObject({ status: 'SUCCESS', charged: 1, refunded: false })
    expect(await a.h.mjCount(accountId)).toBe(start - 1)
    expect((await a.h.log(accountId)).map((l) => l.amount)).toEqual([-1])
    expect(paintingFiles(dataDir)).toHaveLength(2)
  })

  it("starting a second node does not fail the first one's running tasks", async () => {
    const a = await node()
    const { token, accountId } = await a.h.login()
    const start = await a.h.mjCount(accountId)
    const res = await a.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'keep drawing' }, token)
    const taskId = res.body.data.taskId
    await waitUntil(() => a.gate.waiting > 0, 10_000)
    // What server.ts does at start-up, on the node that starts now.
    const b = await node({ open: true })
    expect(await b.h.runtime.sweep()).toBe(0)
    expect(await row(taskId)).toMatchObject({ status: 'SUBMITTED', refunded: false })
    expect(await a.h.mjCount(accountId)).toBe(start - 1)
    a.gate.release()
    await waitUntil(() => ended(taskId), 15_000)
    expect(await row(taskId)).toMatchObject({ status: 'SUCCESS', refunded: false })
    expect([a.painter.draws, b.painter.draws]).toEqual([1, 0])
    expect((await a.h.log(accountId)).map((l) => l.amount)).toEqual([-1])
  })

  it('a node that dies mid-drawing: another node takes the job over and draws it, charged once', async () => {
    const a = await node()
    const { token, accountId } = await a.h.login()
    const start = await a.h.mjCount(accountId)
    const res = await a.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'orphan' }, token)
    const taskId = res.body.data.taskId
    await waitUntil(() => a.gate.waiting > 0, 10_000)
    const b = await node({ open: true })
    // A stops renewing its job's lock, as a killed process would; its drawing is left hanging.
    await a.jobs.abandon()
    await waitUntil(() => ended(taskId), 20_000)
    expect(await row(taskId)).toMatchObject({ status: 'SUCCESS', refunded: false })
    expect([a.painter.draws, b.painter.draws]).toEqual([1, 1])
    // A's drawing finishing late changes nothing and leaves no second picture behind.
    const image = (await row(taskId)).imageKey
    a.gate.release()
    await a.h.runtime.idle()
    expect((await row(taskId)).imageKey).toBe(image)
    expect(paintingFiles(dataDir)).toHaveLength(2)
    expect(await a.h.mjCount(accountId)).toBe(start - 1)
    expect((await a.h.log(accountId)).map((l) => l.amount)).toEqual([-1])
  })

  it('a node that stops hands the task it was drawing to another node (not FAILURE)', async () => {
    const a = await node()
    const { token, accountId } = await a.h.login()
    const start = await a.h.mjCount(accountId)
    const res = await a.h.post<WireTask>(`${MJ}/imagine`, { prompt: 'hand over' }, token)
    const taskId = res.body.data.taskId
    await waitUntil(() => a.gate.waiting > 0, 10_000)
    const b = await node({ open: true })
    // As server.ts closes: the painting runtime, then the queue.
    await a.h.runtime.close()
    await a.jobs.close()
    expect(await row(taskId)).toMatchObject({ refunded: false })
    expect(ENDED).not.toContain((await row(taskId)).status)
    await waitUntil(() => ended(taskId), 20_000)
    expect(await row(taskId)).toMatchObject({ status: 'SUCCESS', refunded: false })
    expect([a.painter.draws, b.painter.draws]).toEqual([1, 1])
    expect(await b.h.mjCount(accountId)).toBe(start - 1)
    expect((await b.h.log(accountId)).map((l) => l.amount)).toEqual([-1])
  })

  describe('AUTOMATIC1111', () => {
    let fake: FakeA1111
    beforeAll(async () => {
      fake = await startFakeA1111()
    })
    afterAll(async () => {
      await fake.close()
    })

    it('draws one picture at a time across every node', async () => {
      let inFlight = 0
      let most = 0
      /**
       * Each node its own AUTOMATIC1111 client, counting the pictures it has been given and not
       * finished (queued in the client or drawn): only the job queue keeps nodes from piling them up.
       */
      const sd = (): PaintingProvider => {
        const a1111 = createA1111({ baseUrl: fake.url, auth: undefined, progressIntervalMs: 50, timeoutMs: 60_000 })
        return {
          ...a1111,
          submit(ctx) {
            most = Math.max(most, ++inFlight)
            return a1111.submit({ ...ctx, background: (work) => ctx.background(work.finally(() => inFlight--)) })
          }
        }
      }
      let release!: () => void
      fake.hold = new Promise((resolve) => (release = resolve))
      const a = await node({ sd: sd() })
      const b = await node({ sd: sd() })
      const { token, accountId } = await a.h.login()
      const start = await a.h.mjCount(accountId)
      const body = { prompt: 'a castle', width: 512, height: 512, steps: 20, cfgScale: 7, sampler: 'Euler a' }
      const ids: string[] = []
      for (const h of [a.h, b.h, a.h, b.h]) {
        const res = await h.post<WireTask>('/api/v1/sd/txt2img', body, token)
        expect(res.body.code, JSON.stringify(res.body)).toBe(2000)
        ids.push(res.body.data.taskId)
      }
      await waitUntil(() => inFlight > 0, 10_000)
      // Without the limit a second picture would start now, on the other node or this one.
      await waitUntil(() => inFlight > 1, 1500).catch(() => {})
      release()
      await waitUntil(async () => (await Promise.all(ids.map(ended))).every(Boolean), 20_000)
      expect(most).toBe(1)
      for (const id of ids) expect(await row(id)).toMatchObject({ status: 'SUCCESS', refunded: false })
      expect(await a.h.mjCount(accountId)).toBe(start - 4)
    })
  })
})
