// Where the server's CPU goes under load: runs the server with --cpu-prof while autocannon drives
// one endpoint, then prints self time grouped by package (pglite, drizzle, hono, zod, node's own…)
// and the heaviest functions. A tool for the ratios of npm run bench, not one of them.
// Flags: --server <main.js>, --endpoint user/info (a POST under /api/v1/), --seconds 5,
// --backend pglite|postgres|postgres+redis, --top 25, --json <file>, --write (save to
// bench/results/after-profile.json and rewrite docs/benchmarks.md, which shows the package shares).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { api, flags, loginMany, machine, monoMicros, scratchDatabase, serverMain, startLingxi, stopProcess, table } from './lib.mjs'
import { autocannon } from './load.mjs'
import { saveResults } from './report.mjs'

const args = flags()
const main = serverMain(args)
const endpoint = args.value('endpoint', 'user/info')
const seconds = Number(args.value('seconds', 5))
const backend = args.value('backend', 'pglite')
const top = Number(args.value('top', 25))

const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-profile-'))
const profiles = join(dataDir, 'profiles')
const database = backend === 'pglite' ? undefined : await scratchDatabase('postgres://postgres@127.0.0.1:5432/postgres', `lingxi_profile_${process.pid}`)
try {
  const lingxi = await startLingxi({
    main,
    dataDir: join(dataDir, 'data'),
    backend,
    databaseUrl: database?.url,
    redisUrl: 'redis://127.0.0.1:6379',
    phones: 1,
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profiles}`]
  })
  const [token] = await loginMany(lingxi.url, 1)
  for (let i = 0; i < 10; i++) await api(lingxi.url, '/api/v1/ai-chat/topic/create', {}, token)
  const from = monoMicros()
  const result = await autocannon(`${lingxi.url}/api/v1/${endpoint}`, { token, seconds })
  const to = monoMicros()
  console.log(`${endpoint} on ${backend}: ${result.rps.toFixed(0)} req/s while profiled (the profiler slows it down)`)
  await stopProcess(lingxi.child)
  // One profile per thread (CPU.<date>.<pid>.<thread id>.<n>.cpuprofile): the main thread is 0,
  // others are workers (a database moved off the main thread shows up there).
  const threads = readdirSync(profiles).map((file) => ({
    worker: file.split('.')[4] !== '0',
    profile: JSON.parse(readFileSync(join(profiles, file), 'utf8'))
  }))
  const shares = summarise(threads, from, to)
  saveResults(args, { bench: 'profile', date: new Date().toISOString(), machine: machine(), server: main, endpoint, backend, rps: result.rps, ...shares })
} finally {
  await database?.drop()
  rmSync(dataDir, { recursive: true, force: true })
}

/**
 * Self time per node of the sampled call trees of every thread, grouped by package and by function;
 * only the samples taken while the load ran (V8 stamps them on CLOCK_MONOTONIC, like monoMicros),
 * not the start-up. A worker thread's groups are prefixed with "worker:".
 */
function summarise(threads, from, to) {
  const selfUs = new Map()
  for (const { worker, profile } of threads) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]))
    let at = profile.startTime
    for (let i = 0; i < profile.samples.length; i++) {
      const delta = profile.timeDeltas[i] ?? 0
      at += delta
      if (at < from || at > to) continue
      const { callFrame } = byId.get(profile.samples[i])
      const key = JSON.stringify([worker, callFrame.url, callFrame.functionName, callFrame.lineNumber])
      selfUs.set(key, (selfUs.get(key) ?? 0) + delta)
    }
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0)
  const packages = new Map()
  const functions = new Map()
  for (const [key, us] of selfUs) {
    const [worker, url, functionName, lineNumber] = JSON.parse(key)
    const thread = worker ? 'worker: ' : ''
    const where = `${thread}${group(url, functionName)}`
    packages.set(where, (packages.get(where) ?? 0) + us)
    const name = `${thread}${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`
    functions.set(name, (functions.get(name) ?? 0) + us)
  }
  const share = (us) => `${((100 * us) / total).toFixed(1)} %`
  const sorted = (map) => [...map].sort((a, b) => b[1] - a[1])
  const percentages = (map) => Object.fromEntries(sorted(map).map(([name, us]) => [short(name), (100 * us) / total]))
  console.log(`\nself time by package (${(total / 1e6).toFixed(1)} s sampled over ${threads.length} thread${threads.length === 1 ? '' : 's'})`)
  console.log(
    table([
      ['where', 'share'],
      ...sorted(packages)
        .slice(0, top)
        .map(([name, us]) => [short(name), share(us)])
    ])
  )
  console.log(`\nheaviest ${top} functions (self time)`)
  console.log(
    table([
      ['function', 'share'],
      ...sorted(functions)
        .slice(0, top)
        .map(([name, us]) => [short(name), share(us)])
    ])
  )
  return { sampledS: total / 1e6, packages: percentages(packages), functions: Object.fromEntries(Object.entries(percentages(functions)).slice(0, top)) }
}

/** Native frames may be named by a whole regular expression or script: a table needs less. */
function short(name) {
  return name.length > 80 ? `${name.slice(0, 77)}…` : name
}

function group(url, functionName) {
  if (url === '') return functionName === '(garbage collector)' ? 'garbage collector' : functionName === '(idle)' ? 'idle' : `native: ${functionName}`
  // PGlite's Postgres is WebAssembly: its functions have wasm:// addresses.
  if (url.startsWith('wasm://')) return '@electric-sql/pglite (wasm)'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1]
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0]}`
  if (url.includes('/server/dist/')) return 'server (Lingxi)'
  return url
}
