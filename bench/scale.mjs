// npm run bench — how close Lingxi's server comes to bare baselines measured in the same run.
// Printed; written to docs/benchmarks.md only with --write. Not asserted.
//
// 1. Requests per second. The baseline is a bare Hono JSON endpoint (bench/bare.mjs). Two load
//    generators, each in a process of its own (bench/load.mjs): wrk (C) and autocannon (Node).
//    POST user/info and topic/list are measured on PGlite (embedded default), PostgreSQL, and
//    PostgreSQL + Redis, each ÷ the bare endpoint measured by the same generator in the same block.
//    Rounds interleave bare / user/info / topic/list so that noise from other work on the machine
//    hits all three. Each run also reports the CPU share of the server and of the generator: the
//    generator is not the limit when the server is the one using its core.
// 2. Independent streams held by one node (bench/held.mjs): memory per stream and events lost.
// 3. Idle RSS, embedded default (bench/idle.mjs).
//
// Flags: --server <main.js> (default server/dist/main.js; the "before" column runs the build of
// another checkout), --backends pglite,postgres,postgres+redis, --rounds 3, --seconds 4,
// --connections 64, --streams 5000, --accounts 50, --idle-minutes 1 (10 for the issue's figure),
// --only rps,held,idle, --database-url (an admin URL; a scratch database is created and dropped),
// --redis-url, --json <file>, --write (save to bench/results/after-scale.json and rewrite
// docs/benchmarks.md). Needs the built server (npm run build); PostgreSQL and Redis only for their rows.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { heldStreams } from './held.mjs'
import { idleRss } from './idle.mjs'
import {
  api,
  dropRedisKeys,
  flags,
  freePort,
  loginMany,
  machine,
  median,
  perCpuSecond,
  scratchDatabase,
  serverMain,
  startLingxi,
  startProcess,
  stopProcess,
  table
} from './lib.mjs'
import { autocannon, wrk } from './load.mjs'
import { saveResults } from './report.mjs'

const args = flags()
const main = serverMain(args)
const BACKENDS = String(args.value('backends', 'pglite,postgres,postgres+redis')).split(',')
const ROUNDS = Number(args.value('rounds', 3))
const SECONDS = Number(args.value('seconds', 4))
const CONNECTIONS = Number(args.value('connections', 64))
const STREAMS = Number(args.value('streams', 5000))
const ACCOUNTS = Number(args.value('accounts', 50))
const IDLE_MINUTES = Number(args.value('idle-minutes', 1))
const ONLY = String(args.value('only', 'rps,held,idle')).split(',')
const DATABASE_URL = args.value('database-url', 'postgres://postgres@127.0.0.1:5432/postgres')
const REDIS_URL = args.value('redis-url', 'redis://127.0.0.1:6379')

// Bounded: rps ~1 min per backend, held streams ≤ ~6 min, idle as asked.
setTimeout(
  () => {
    console.error('npm run bench gave up: it ran 20 minutes longer than its idle period')
    process.exit(1)
  },
  (20 + IDLE_MINUTES) * 60_000
).unref()

const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-bench-'))
const results = { bench: 'scale', date: new Date().toISOString(), machine: machine(), server: main, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS }
console.log(`npm run bench — ${results.machine}\nserver: ${main}\n`)

try {
  if (ONLY.includes('rps')) results.rps = await requestsPerSecond()
  if (ONLY.includes('held')) {
    console.log(`\nindependent streams: ${STREAMS} sends over ${ACCOUNTS} accounts, each its own upstream reply…`)
    results.held = await heldStreams({ main, dataDir, n: STREAMS, accounts: ACCOUNTS })
    printHeld(results.held)
  }
  if (ONLY.includes('idle')) {
    console.log(`\nidle RSS over ${IDLE_MINUTES} min…`)
    results.idle = await idleRss({ main, dataDir, seconds: IDLE_MINUTES * 60 })
    printIdle(results.idle)
  }
  saveResults(args, results)
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(0)

async function requestsPerSecond() {
  const barePort = await freePort()
  const bare = await startProcess('bare', ['bench/bare.mjs'], { env: { ...process.env, PORT: String(barePort) }, ready: /bare listening/ })
  const bareUrl = `http://127.0.0.1:${barePort}/json`
  const load = { connections: CONNECTIONS, seconds: SECONDS }
  const blocks = {}
  for (const backend of BACKENDS) {
    const database = backend === 'pglite' ? undefined : await scratchDatabase(DATABASE_URL, `lingxi_bench_${process.pid}`)
    const lingxi = await startLingxi({ main, dataDir: join(dataDir, backend), backend, databaseUrl: database?.url, redisUrl: REDIS_URL, phones: 1 })
    try {
      const [token] = await loginMany(lingxi.url, 1)
      // A short topic list, like a user's first page.
      for (let i = 0; i < 10; i++) await api(lingxi.url, '/api/v1/ai-chat/topic/create', {}, token)
      const targets = {
        bare: [bareUrl, undefined, bare.pid],
        'user/info': [`${lingxi.url}/api/v1/user/info`, token, lingxi.pid],
        'topic/list': [`${lingxi.url}/api/v1/ai-chat/topic/list`, token, lingxi.pid]
      }
      // Each endpoint answers 2000 before it is timed (autocannon counts only 2xx, and the server
      // answers its errors with 4xx/5xx, so a failing endpoint cannot look fast).
      await api(lingxi.url, '/api/v1/user/info', {}, token)
      await api(lingxi.url, '/api/v1/ai-chat/topic/list', {}, token)
      // Warm-up: JIT, database caches, connection pools.
      for (const [url, t] of Object.values(targets)) await autocannon(url, { ...load, token: t, seconds: 2 })
      // Both generators measure every target, one right after the other, so each ratio has its
      // own baseline and the two readings of the same target share the machine's state.
      const generators = {}
      for (const g of ['wrk', 'autocannon']) generators[g] = { runs: {}, failed: {}, serverCpu: {}, generatorCpu: {} }
      const add = (g, field, name, value) => {
        generators[g][field][name] = [...(generators[g][field][name] ?? []), value]
      }
      const loadBefore = loadavg()[0]
      for (let r = 0; r < ROUNDS; r++) {
        for (const [name, [url, t, serverPid]] of Object.entries(targets)) {
          for (const [generator, measure] of [
            ['wrk', wrk],
            ['autocannon', autocannon]
          ]) {
            const result = await measure(url, { ...load, token: t, serverPid })
            if (!result) continue
            add(generator, 'runs', name, result.rps)
            add(generator, 'failed', name, result.failed)
            add(generator, 'serverCpu', name, result.serverCpu)
            add(generator, 'generatorCpu', name, result.generatorCpu)
          }
        }
      }
      for (const g of Object.values(generators)) g.medians = Object.fromEntries(Object.entries(g.runs).map(([name, values]) => [name, median(values)]))
      blocks[backend] = { ...generators, loadavg: [loadBefore, loadavg()[0]] }
      printBlock(backend, blocks[backend])
    } finally {
      await stopProcess(lingxi.child)
      if (database) await database.drop()
      if (backend === 'postgres+redis') await dropRedisKeys(REDIS_URL, lingxi.prefix)
    }
  }
  await stopProcess(bare)
  return blocks
}

function printBlock(backend, block) {
  console.log(
    `\n${backend}: req/s, keep-alive, ${CONNECTIONS} connections, ${SECONDS} s per run, median of ${ROUNDS} interleaved runs (load average ${block.loadavg.map((l) => l.toFixed(1)).join(' → ')})`
  )
  const percent = (values) => `${(100 * median(values)).toFixed(0)} %`
  const rows = [
    ['generator', 'endpoint', 'req/s', '÷ bare, same generator', 'goal', 'runs', 'not 2xx', 'server CPU', 'generator CPU', 'req per server CPU-s', '÷ bare']
  ]
  for (const generator of ['wrk', 'autocannon']) {
    const { runs, medians, failed, serverCpu, generatorCpu } = block[generator]
    if (!medians.bare) continue
    const perCpu = perCpuSecond(block[generator])
    for (const name of ['bare', 'user/info', 'topic/list']) {
      rows.push([
        generator,
        name,
        medians[name].toFixed(0),
        `${(medians[name] / medians.bare).toFixed(3)}×`,
        name === 'bare' ? '' : '≥ 0.5×',
        runs[name].map((v) => v.toFixed(0)).join(' / '),
        failed[name].reduce((a, b) => a + b, 0),
        percent(serverCpu[name]),
        percent(generatorCpu[name]),
        perCpu[name].toFixed(0),
        `${(perCpu[name] / perCpu.bare).toFixed(3)}×`
      ])
    }
  }
  console.log(table(rows))
  console.log('CPU: median share of one core over each run (utime + stime from /proc ÷ wall time)')
  console.log("req per server CPU-s: req/s ÷ the server's CPU share, which holds on a busy machine (on PostgreSQL it leaves out the database's CPU)")
}

function printHeld(h) {
  console.log(
    table([
      ['streams', 'opened', 'open in', 'RSS before → held (peak)', 'per stream', 'goal', 'events lost', 'without final event', 'failed to open'],
      [
        h.n,
        h.opened,
        `${h.openS.toFixed(1)} s`,
        `${h.rssBeforeMb.toFixed(0)} → ${h.rssHeldMb.toFixed(0)} (${h.rssPeakMb.toFixed(0)}) MB`,
        `${h.perStreamKb.toFixed(1)} KB`,
        '≤ 100 KB, 0 lost',
        h.lost,
        h.withoutFinal,
        h.failedOpens + h.notAttempted
      ]
    ])
  )
}

function printIdle(idle) {
  console.log(
    table([
      ['embedded default', 'RSS at start', `after ${idle.seconds / 60} min idle`, 'max while idle', 'later start (+5 s)', 'goal'],
      [
        '',
        `${idle.startMb.toFixed(0)} MB`,
        `${idle.endMb.toFixed(0)} MB`,
        `${idle.maxMb.toFixed(0)} MB`,
        `${idle.laterStartMb.toFixed(0)} MB`,
        '≤ 400 MB, not growing'
      ]
    ])
  )
  console.log(`samples (s: MB): ${idle.samples.map((x) => `${x.s}: ${x.mb.toFixed(0)}`).join(', ')}`)
  console.log(
    `restart: start to listening ${idle.startMs.toFixed(0)} ms (fresh data), ${idle.laterStartMs.toFixed(0)} ms (existing data); SIGTERM to exit ${idle.stopMs.toFixed(0)} ms`
  )
}
