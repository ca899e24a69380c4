import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { accounts, balanceLog, musicSongs, musicTasks } from '../src/db/schema.js'
import { createMemoryBus } from '../src/events/index.js'
import type { JobQueue } from '../src/jobs/index.js'
import { createMemoryKv, type Kv } from '../src/kv/index.js'
import type { Clip, ClipStatus, MusicProvider } from '../src/modules/music/provider.js'
import { createMusicRuntime, type MusicRuntime, nextRound, POLL_JOB } from '../src/modules/music/runtime.js'
import { createStorage } from '../src/storage/index.js'
import { ADJUSTED, setBalance } from './helpers/allowances.js'
import { waitUntil } from './helpers/chat.js'
import { createTestDatabase, type TestDatabase } from './helpers/database.js'
import { memoryLogger, testClock, testKv } from './helpers/harness.js'
import { manualTimers, queueNodes, quiet } from './helpers/nodes.js'

/**
 * suno-api as the nodes see it: every get moves the clips one step along `script`; `hold` keeps
 * gets waiting (a slow upstream). Counts gets and how many ran at once.
 */
function fakeSuno(script: ClipStatus[]) {
  const state = { gets: 0, running: 0, maxRunning: 0, hold: Promise.resolve() }
  const clip = (id: string, status: ClipStatus): Clip => ({
    id,
    title: '节点之歌',
    tags: 'pop',
    lyric: '',
    prompt: '两个节点',
    status,
    audioUrl: status === 'streaming' || status === 'complete' ? `https://suno.example/audio/${id}.mp3` : null,
    imageUrl: null,
    duration: status === 'complete' ? 30 : null,
    errorMessage: null
  })
  const provider: MusicProvider = {
    kind: 'suno',
    demo: false,
    async generate() {
      return [clip(`c-${randomUUID()}`, 'submitted'), clip(`c-${randomUUID()}`, 'submitted')]
    },
    async get(ids) {
      const step = state.gets++
      state.running++
      state.maxRunning = Math.max(state.maxRunning, state.running)
      try {
        await state.hold
        const status = script[Math.min(step, script.length - 1)]!
        return ids.map((id) => clip(id, status))
      } finally {
        state.running--
      }
    },
    async lyrics() {
      return { title: '', text: '' }
    },
    async download() {
      return { bytes: new Uint8Array([0xff, 0xfb, 0x90, 0x00]), contentType: 'audio/mpeg' }
    }
  }
  /** Holds the gets from now until the returned function is called. */
  const hold = () => {
    let release!: () => void
    state.hold = new Promise<void>((resolve) => (release = resolve))
    return () => {
      release()
      state.hold = Promise.resolve()
    }
  }
  return { provider, state, hold }
}

const SCRIPT: ClipStatus[] = ['queued', 'streaming', 'streaming', 'complete']

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database.destroy()
})
beforeEach(async () => {
  await database.reset()
})

async function account(sunoCount = 3) {
  const id = randomUUID()
  await database.db.insert(accounts).values({
    id,
    enCode: '86',
    phone: `138${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
    nickName: '节点',
    createdAt: new Date(),
    updatedAt: new Date()
  })
  await setBalance(database.db, id, 'suno', sunoCount)
  return id
}

function runtimeOn(jobs: JobQueue, deps: { provider: MusicProvider; kv: Kv; now: () => number; pollMs: number }): MusicRuntime {
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'lingxi-music-')) })
  const runtime = createMusicRuntime({
    db: database.db,
    storage: createStorage(config),
    bus: createMemoryBus(),
    provider: deps.provider,
    now: deps.now,
    logger: memoryLogger(),
    jobs,
    kv: deps.kv,
    pollMs: deps.pollMs,
    jobTimeoutMs: 10 * 60_000
  })
  runtime.defineJobs(jobs)
  return runtime
}

const task = async (taskId: string) => (await database.db.select().from(musicTasks).where(eq(musicTasks.id, taskId)))[0]!
const songs = (taskId: string) => database.db.select().from(musicSongs).where(eq(musicSongs.taskId, taskId)).orderBy(musicSongs.seq)
// What the music runtime charged and gave back (the account's starting grant left out).
const charges = async (accountId: string) =>
  (await database.db.select({ amount: balanceLog.amount, reason: balanceLog.reason }).from(balanceLog).where(eq(balanceLog.accountId, accountId)))
    .filter((r) => r.reason !== ADJUSTED)
    .map((r) => r.amount)

describe('rounds', () => {
  it('are due pollMs × (round + 1) after the request, whoever schedules them', () => {
    expect(nextRound(0, -1, 5, 1000)).toEqual({ round: 0, delayMs: 995 })
    expect(nextRound(0, 0, 1010, 1000)).toEqual({ round: 1, delayMs: 990 })
    // A poll that ran long skips the rounds it missed; resume picks the round a live chain has.
    expect(nextRound(0, 1, 3500, 1000)).toEqual({ round: 3, delayMs: 500 })
    expect(nextRound(0, -1, 3500, 1000)).toEqual({ round: 3, delayMs: 500 })
    // A clock that stands still (tests): one round after another, pollMs apart.
    expect(nextRound(0, 7, 0, 1000)).toEqual({ round: 8, delayMs: 1000 })
  })
})

describe('two nodes on one memory queue (Redis stand-in)', () => {
  function setup() {
    const clock = testClock()
    let nodes: ReturnType<typeof queueNodes> | undefined
    const manual = manualTimers(clock, () => quiet(() => nodes!.running()))
    nodes = queueNodes({ labels: ['a', 'b'], logger: memoryLogger(), timers: manual.timers, memory: true })
    const suno = fakeSuno(SCRIPT)
    const kv = createMemoryKv(clock.now)
    const deps = { provider: suno.provider, kv, now: clock.now, pollMs: 1000 }
    return { clock, manual, nodes, suno, deps, a: runtimeOn(nodes.queues.a!, deps), b: runtimeOn(nodes.queues.b!, deps) }
  }

  it('poll a request once per round; resume on either node adds nothing', async () => {
    const { manual, nodes, suno, a, b } = setup()
    const accountId = await account()
    const { taskId } = await a.submit(accountId, { mode: 'describe', prompt: '两个节点', instrumental: false })
    expect(manual.pending).toHaveLength(1)
    // The other node starts (and this one restarts): the request keeps its one scheduled poll.
    expect(await b.resume()).toBe(1)
    expect(await a.resume()).toBe(1)
    expect(manual.pending).toHaveLength(1)
    for (let round = 1; round <= SCRIPT.length; round++) {
      await manual.advance(1000)
      expect(suno.state.gets).toBe(round)
      if (round === 2) {
        await b.resume()
        expect(manual.pending).toHaveLength(1)
      }
    }
    expect((await task(taskId)).finishedAt).not.toBeNull()
    expect((await songs(taskId)).map((s) => s.status)).toEqual(['complete', 'complete'])
    expect(manual.pending).toHaveLength(0)
    await manual.advance(5000)
    expect(suno.state.gets).toBe(SCRIPT.length)
    const polls = nodes.runs.filter((r) => r.name === POLL_JOB)
    expect(polls.map((r) => r.id)).toEqual(SCRIPT.map((_, i) => `${taskId}:${i}`))
    expect(new Set(polls.map((r) => r.node))).toEqual(new Set(['a', 'b']))
    expect(suno.state.maxRunning).toBe(1)
    expect(await charges(accountId)).toEqual([-1])
    await nodes.close()
  })

  it('never polls one request on two nodes at once; a node that stops hands its rounds on', async () => {
    const { manual, nodes, suno, a, b } = setup()
    const accountId = await account()
    const { taskId } = await a.submit(accountId, { mode: 'describe', prompt: '慢', instrumental: false })
    // Round 0's get hangs; a second chain (as when a resume raced a late poll) meets the lease.
    const release = suno.hold()
    const advanced = manual.advance(1000)
    await waitUntil(() => suno.state.gets === 1)
    const other = nodes.runs.at(-1)!.node === 'a' ? b : a
    await other.poll(taskId)
    expect(suno.state.gets).toBe(1)
    release()
    await advanced
    // Node a stops: rounds that come due on it are handed on unpolled, node b polls them.
    await a.close()
    for (let i = 0; i < 8 && !(await task(taskId)).finishedAt; i++) await manual.advance(1000)
    expect((await songs(taskId)).map((s) => s.status)).toEqual(['complete', 'complete'])
    expect(suno.state.gets).toBe(SCRIPT.length)
    expect(suno.state.maxRunning).toBe(1)
    await nodes.close()
  })

  it('a restart resumes a request whose jobs were lost', async () => {
    const { clock, manual, nodes, suno, deps, a } = setup()
    const accountId = await account()
    const { taskId } = await a.submit(accountId, { mode: 'describe', prompt: '重启', instrumental: false })
    await manual.advance(1000)
    expect(suno.state.gets).toBe(1)
    // The process ends: its memory queue and timers are gone.
    await a.close()
    await nodes.close()
    expect(manual.pending).toHaveLength(0)

    let restarted: ReturnType<typeof queueNodes> | undefined
    const again = manualTimers(clock, () => quiet(() => restarted!.running()))
    restarted = queueNodes({ labels: ['c'], logger: memoryLogger(), timers: again.timers, memory: true })
    const c = runtimeOn(restarted.queues.c!, deps)
    expect(await c.resume()).toBe(1)
    for (let i = 0; i < 8 && !(await task(taskId)).finishedAt; i++) await again.advance(1000)
    expect((await songs(taskId)).map((s) => s.status)).toEqual(['complete', 'complete'])
    expect(suno.state.gets).toBe(SCRIPT.length)
    expect(await charges(accountId)).toEqual([-1])
    await restarted.close()
  })
})

describe.skipIf(!process.env.REDIS_URL)('two nodes on BullMQ', () => {
  it('poll a request once per round, never at once, when both resume while a poll runs', async () => {
    const nodes = queueNodes({ labels: ['a', 'b'], logger: memoryLogger() })
    expect(nodes.engine).toBe('bullmq')
    const kv = testKv(Date.now)
    const suno = fakeSuno(SCRIPT)
    const deps = { provider: suno.provider, kv, now: Date.now, pollMs: 300 }
    const a = runtimeOn(nodes.queues.a!, deps)
    const b = runtimeOn(nodes.queues.b!, deps)
    try {
      const accountId = await account()
      const release = suno.hold()
      const { taskId } = await a.submit(accountId, { mode: 'describe', prompt: '两个节点', instrumental: false })
      await waitUntil(() => suno.state.gets === 1, 10_000)
      // Round 0 is running (its get hangs) when both nodes resume.
      expect(await b.resume()).toBe(1)
      expect(await a.resume()).toBe(1)
      release()
      await waitUntil(async () => (await task(taskId)).finishedAt !== null, 20_000)
      expect((await songs(taskId)).map((s) => s.status)).toEqual(['complete', 'complete'])
      expect(suno.state.gets).toBe(SCRIPT.length)
      expect(suno.state.maxRunning).toBe(1)
      const polls = nodes.runs.filter((r) => r.name === POLL_JOB)
      // Each round ran once (a resume that raced the running round 0 only joins the chain).
      expect(new Set(polls.map((r) => r.id)).size).toBe(polls.length)
      expect(polls.length).toBeGreaterThanOrEqual(SCRIPT.length)
      expect(await charges(accountId)).toEqual([-1])
    } finally {
      await a.close()
      await b.close()
      await nodes.close()
      await kv.close()
    }
  })

  it('a node that dies mid-poll is taken over without a second poll at once, and the request finishes', async () => {
    const nodes = queueNodes({ labels: ['a', 'b'], logger: memoryLogger(), bull: { lockMs: 500, stalledMs: 250 } })
    const kv = testKv(Date.now)
    const suno = fakeSuno(SCRIPT)
    const deps = { provider: suno.provider, kv, now: Date.now, pollMs: 300 }
    const runtimes = { a: runtimeOn(nodes.queues.a!, deps), b: runtimeOn(nodes.queues.b!, deps) }
    try {
      const accountId = await account()
      const release = suno.hold()
      const { taskId } = await runtimes.a.submit(accountId, { mode: 'describe', prompt: '掉线', instrumental: false })
      await waitUntil(() => suno.state.gets === 1, 10_000)
      const dying = nodes.runs.find((r) => r.name === POLL_JOB)!
      const survivor = dying.node === 'a' ? 'b' : 'a'
      await nodes.engines[dying.node]!.abandon()
      // The survivor takes round 0 over while the dead node's get still hangs: it sees the lease
      // and asks nothing, but keeps the request scheduled.
      await waitUntil(() => nodes.runs.some((r) => r.node === survivor && r.name === POLL_JOB && r.done), 10_000)
      expect(suno.state.gets).toBe(1)
      release()
      await waitUntil(async () => (await task(taskId)).finishedAt !== null, 20_000)
      expect((await songs(taskId)).map((s) => s.status)).toEqual(['complete', 'complete'])
      expect(suno.state.gets).toBe(SCRIPT.length)
      expect(suno.state.maxRunning).toBe(1)
      expect(await charges(accountId)).toEqual([-1])
    } finally {
      await runtimes.a.close()
      await runtimes.b.close()
      await nodes.close()
      await kv.close()
    }
  })
})
