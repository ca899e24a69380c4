import { mkdtempSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getRequestListener } from '@hono/node-server'
import { eq } from 'drizzle-orm'
import sharp from 'sharp'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import { composeApp } from '../../src/app.js'
import { createChat } from '../../src/replies/index.js'
import { loadConfig } from '../../src/config.js'
import { balanceOf } from '../../src/allowances/ledger.js'
import { balanceLog, paintingTasks } from '../../src/db/schema.js'
import { createMemoryQueue, type JobQueue } from '../../src/jobs/index.js'
import type { PaintingOptions, PaintingRuntime } from '../../src/modules/painting/index.js'
import type { WireTask } from '../../src/modules/painting/wire.js'
import { createConsoleSmsProvider } from '../../src/sms/console-provider.js'
import { createLocalStorage } from '../../src/storage/index.js'
import { setBalance } from './allowances.js'
import { createTestDatabase, type TestDatabase } from './database.js'
import { memoryLogger, type Reply, TEST_ADDRESS, testBus, testClock, testKv } from './harness.js'

export interface PaintingHarnessOptions {
  env?: Record<string, string>
  painting?: PaintingOptions
  /** Serve the app on a loopback port (PUBLIC_URL points at it), so upstream fakes can call back. */
  listen?: boolean
  /** The job queue (default: a memory queue of its own); closed with the harness. */
  jobs?: JobQueue
  /** DATA_DIR (default: a new temporary one): apps playing nodes of one deployment share their files. */
  dataDir?: string
}

/**
 * The app with the painting runtime under the test's control: no background timers (tests call
 * `runtime.tick()` and move `clock`), demo pictures drawn at once, real local storage in a
 * temporary DATA_DIR, and optionally a real loopback port for notify callbacks.
 */
export async function createPaintingHarness(database: TestDatabase, options: PaintingHarnessOptions = {}) {
  const clock = testClock()
  const kv = testKv(clock.now)
  const logger = memoryLogger()
  const smsLines: string[] = []
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'lingxi-painting-'))
  const jobs = options.jobs ?? createMemoryQueue({ logger })
  let server: Server | undefined
  let listener: ReturnType<typeof getRequestListener> | undefined
  let publicUrl: string | undefined
  if (options.listen) {
    server = createServer((req, res) => void listener?.(req, res))
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    CHAT_DEMO_DELAY_MS: '0',
    PAINTING_DEMO_DELAY_MS: '0',
    ...(publicUrl ? { PUBLIC_URL: publicUrl } : {}),
    ...options.env
  })
  const storage = createLocalStorage({ dir: join(dataDir, 'files'), publicUrl: config.publicUrl })
  const bus = testBus()
  const chat = createChat({ db: database.db, config, bus, logger, now: clock.now })
  const { app, modules, streams } = composeApp({
    chat,
    db: database.db,
    config,
    sms: createConsoleSmsProvider((line) => smsLines.push(line)),
    kv,
    logger,
    now: clock.now,
    checkResponses: true,
    storage,
    jobs,
    moduleOptions: { painting: { ...options.painting, tuning: { tickMs: 0, ...options.painting?.tuning } } }
  })
  const runtime: PaintingRuntime = modules.painting.runtime
  listener = getRequestListener(app.fetch)

  async function post<T = any>(path: string, body: unknown = {}, token?: string): Promise<Reply<T>> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' }
    if (token !== undefined) headers.Authorization = `Bearer ${token}`
    const env = { incoming: { socket: { remoteAddress: TEST_ADDRESS } }, outgoing: {} }
    const res = await app.request(path, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) }, env)
    const text = await res.text()
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined }
  }

  async function login(phone = '13800138000') {
    const sent = await post('/api/v1/auth/send-sms-code', { enCode: '86', phone, smsType: 'LOGIN', imgVerifyState: 1 })
    if (sent.body.code !== 2000) throw new Error(`send-sms-code failed: ${JSON.stringify(sent.body)}`)
    const line = [...smsLines].reverse().find((l) => l.startsWith(`[sms] +86 ${phone} `))
    const code = line?.trim().split(' ')[3]
    const res = await post<{ accessToken: string; accountId: string }>('/api/v1/auth/login', { enCode: '86', phone, code, platform: 'PC' })
    if (res.body.code !== 2000) throw new Error(`login failed: ${JSON.stringify(res.body)}`)
    clock.advance(61_000)
    return { token: res.body.data.accessToken, accountId: res.body.data.accountId }
  }

  /** Stores a picture in Lingxi's storage, as an upload would, and returns its URL. */
  async function upload(colour = { r: 10, g: 200, b: 90 }, size = { width: 300, height: 200 }): Promise<string> {
    const png = await sharp({ create: { ...size, channels: 3, background: colour } })
      .png()
      .toBuffer()
    const key = `uploads/test/${Math.random().toString(36).slice(2)}.png`
    await storage.put(key, new Uint8Array(png), 'image/png')
    return storage.publicUrl(key)
  }

  async function mjCount(accountId: string): Promise<number> {
    return (await balanceOf(database.db, accountId, 'mj')).balance
  }

  async function setMjCount(accountId: string, n: number) {
    await setBalance(database.db, accountId, 'mj', n)
  }

  async function log(accountId: string) {
    const rows = await database.db.select().from(balanceLog).where(eq(balanceLog.accountId, accountId)).orderBy(balanceLog.id)
    return rows.filter((r) => r.kind === 'mj' && r.reason.startsWith('绘画')).map(({ amount, balance, reason }) => ({ amount, balance, reason }))
  }

  async function row(taskId: string) {
    const [task] = await database.db.select().from(paintingTasks).where(eq(paintingTasks.id, taskId))
    return task!
  }

  async function task(token: string, taskId: string): Promise<WireTask> {
    const res = await post<WireTask>('/api/v1/painting/task/get', { taskId }, token)
    if (res.body.code !== 2000) throw new Error(`task/get failed: ${JSON.stringify(res.body)}`)
    return res.body.data
  }

  /** Waits for the runtime's work (demo drawing, reports) to settle, then reads the task. */
  async function settled(token: string, taskId: string): Promise<WireTask> {
    await runtime.idle()
    return task(token, taskId)
  }

  return {
    app,
    config,
    clock,
    logger,
    bus,
    storage,
    get runtime() {
      return runtime
    },
    publicUrl: config.publicUrl,
    dataDir,
    jobs,
    post,
    login,
    upload,
    mjCount,
    setMjCount,
    log,
    row,
    task,
    settled,
    async close() {
      await runtime.close()
      await jobs.close()
      await chat.close()
      streams.closeAll()
      await bus.close()
      await kv.close()
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()))
    }
  }
}

export type PaintingHarness = Awaited<ReturnType<typeof createPaintingHarness>>

/** One database per file, emptied before each test; a fresh painting harness per test (`ctx.h`). */
export function usePaintingHarness(options: PaintingHarnessOptions | (() => PaintingHarnessOptions | Promise<PaintingHarnessOptions>) = {}) {
  const ctx = {} as { db: TestDatabase; h: PaintingHarness }
  beforeAll(async () => {
    ctx.db = await createTestDatabase()
  })
  afterAll(async () => {
    await ctx.db?.destroy()
  })
  beforeEach(async () => {
    await ctx.db.reset()
    ctx.h = await createPaintingHarness(ctx.db, typeof options === 'function' ? await options() : options)
  })
  afterEach(async () => {
    await ctx.h?.close()
  })
  return ctx
}

/** The demo painter's `sleep`, held at each step until the test lets drawings go (or `open` from the start). */
export function drawingGate(open = false) {
  const waiting = new Set<() => void>()
  return {
    sleep: (_ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        if (open || signal.aborted) return resolve()
        waiting.add(resolve)
        signal.addEventListener('abort', () => resolve(), { once: true })
      }),
    release() {
      open = true
      for (const resolve of waiting) resolve()
      waiting.clear()
    },
    get waiting() {
      return waiting.size
    }
  }
}
export type DrawingGate = ReturnType<typeof drawingGate>
