// What the benches share: flags, processes, /proc readings, the Lingxi server under test, logins.
import { spawn } from 'node:child_process'
import { mkdirSync, openSync, readFileSync, statSync } from 'node:fs'
import http from 'node:http'
import { createServer } from 'node:net'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** `--name value` and `--flag` from the command line; `value(name, fallback)` reads one. */
export function flags(argv = process.argv.slice(2)) {
  const found = new Map()
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith('--')) continue
    const next = argv[i + 1]
    if (next === undefined || next.startsWith('--')) found.set(argv[i].slice(2), true)
    else found.set(argv[i].slice(2), argv[++i])
  }
  return {
    has: (name) => found.has(name),
    value: (name, fallback) => (found.has(name) ? found.get(name) : fallback)
  }
}

/**
 * The server under test: `--server <…/server/dist/main.js>` or BENCH_SERVER, so the same benches
 * measure another checkout (the "before" column is the build of commit 3794c18 in a worktree).
 */
export function serverMain(args) {
  return resolve(args.value('server', process.env.BENCH_SERVER ?? join(root, 'server/dist/main.js')))
}

export const median = (values) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Requests per CPU-second of the server process, per target: the median over runs of req/s ÷ CPU share. */
export function perCpuSecond({ runs, serverCpu }) {
  return Object.fromEntries(Object.entries(runs).map(([name, values]) => [name, median(values.map((rps, i) => rps / serverCpu[name][i]))]))
}

export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN

/** Microseconds on CLOCK_MONOTONIC, which every process on the machine shares (unlike performance.now()). */
export const monoMicros = () => Number(process.hrtime.bigint() / 1000n)

export function machine() {
  const cpus = os.cpus()
  return `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}`
}

export const freePort = () =>
  new Promise((done) => {
    const probe = createServer()
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => done(port))
    })
  })

export function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024
}

/** utime + stime of a process and all its threads, in microseconds (clock ticks of 10 ms). */
export function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

// Every child is killed when the bench exits, however it exits.
const children = new Set()
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130))

/** Starts `node args…` and resolves once its output matches `ready` (the output so far: `child.output`). */
export function startProcess(name, args, { env = process.env, ready, logFile } = {}) {
  return new Promise((done, fail) => {
    // A server's access log goes to a file, not through a pipe into the bench, which would spend
    // the load generator's CPU reading it.
    const out = logFile ? openSync(logFile, 'a') : 'pipe'
    // A restart appends to the same log: only what this process writes counts.
    const logStart = logFile ? statSync(logFile).size : 0
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', out, out, 'ipc'] })
    children.add(child)
    let seen = ''
    let settled = false
    const check = () => {
      if (settled) return
      if (ready.test(seen)) {
        settled = true
        child.output = seen
        done(child)
      }
    }
    if (logFile) {
      const poll = setInterval(() => {
        seen = readFileSync(logFile)
          .subarray(logStart, logStart + 4000)
          .toString()
        check()
        if (settled || child.exitCode !== null) clearInterval(poll)
      }, 20)
    } else {
      child.stdout.setEncoding('utf8').on('data', (text) => {
        if (seen.length < 4000) seen += text
        check()
      })
      child.stderr.setEncoding('utf8').on('data', (text) => (seen += text))
    }
    child.on('exit', (code) => {
      if (!settled) fail(new Error(`${name} exited with ${code} before it was ready:\n${logFile ? readFileSync(logFile, 'utf8') : seen}`))
    })
  })
}

export async function stopProcess(child) {
  if (child.exitCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

/** Phones that log in without an SMS code (LOGIN_WITHOUT_CODE_PHONES): one account each. */
export const benchPhones = (n) => Array.from({ length: n }, (_, i) => `139${String(10_000_000 + i).padStart(8, '0')}`)

/**
 * Starts server/dist/main.js (of `main`) in its own process. `backend` is 'pglite' (embedded, the
 * default), 'postgres' or 'postgres+redis'; `extraEnv` adds settings (upstream, timeouts), `nodeArgs` flags for node.
 */
export async function startLingxi({ main, dataDir, backend = 'pglite', databaseUrl, redisUrl, phones = 100, extraEnv = {}, nodeArgs = [] }) {
  const port = await freePort()
  mkdirSync(dataDir, { recursive: true })
  const env = { ...process.env }
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'OPENAI_MODELS', 'OPENAI_BASE_URL', 'OPENAI_API_KEY', 'NODE_OPTIONS']) delete env[name]
  Object.assign(env, {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    STATIC_ROOT: join(dataDir, 'no-site'),
    START_TOKENS: '1000000000',
    LOGIN_WITHOUT_CODE_PHONES: benchPhones(phones).join(','),
    // Its own key space, so a bench never meets the keys of tests running beside it.
    REDIS_PREFIX: `lingxi-bench-${process.pid}-${port}:`,
    ...(backend === 'pglite' ? {} : { DATABASE_URL: databaseUrl }),
    ...(backend === 'postgres+redis' ? { REDIS_URL: redisUrl } : {}),
    ...extraEnv
  })
  const t0 = performance.now()
  const child = await startProcess('lingxi', [...nodeArgs, main], { env, ready: /Lingxi is running at /, logFile: join(dataDir, 'server.log') })
  return { child, pid: child.pid, url: `http://127.0.0.1:${port}`, startMs: performance.now() - t0, prefix: env.REDIS_PREFIX }
}

const jsonAgent = new http.Agent({ keepAlive: true, maxSockets: 64 })

/**
 * Runs `attempt` again when it failed on a reused keep-alive socket that the server had just
 * closed (ECONNRESET before any answer): the server never read that request, so it is safe to send
 * again, as Node's documentation advises.
 */
export async function retryOnReset(attempt) {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt()
    } catch (error) {
      if (!(error.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) || tries >= 3) throw error
    }
  }
}

/** POST JSON through a keep-alive agent; resolves with `data` of a 2000 envelope, throws otherwise. */
export function api(base, path, body = {}, token) {
  return retryOnReset(
    () =>
      new Promise((done, fail) => {
        const req = http.request(
          `${base}${path}`,
          { method: 'POST', agent: jsonAgent, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } },
          (res) => {
            let text = ''
            res.setEncoding('utf8')
            res.on('data', (c) => (text += c))
            res.on('end', () => {
              try {
                const parsed = JSON.parse(text)
                if (parsed.code === 2000) return done(parsed.data)
              } catch {}
              fail(new Error(`${path} answered ${res.statusCode}: ${text.slice(0, 300)}`))
            })
          }
        )
        req.on('error', (error) => fail(Object.assign(error, { reusedSocket: req.reusedSocket })))
        req.end(JSON.stringify(body))
      })
  )
}

/** Logs in the first `n` bench phones (the server must list them in LOGIN_WITHOUT_CODE_PHONES). */
export async function loginMany(base, n) {
  const tokens = []
  for (const phone of benchPhones(n)) {
    const { accessToken } = await api(base, '/api/v1/auth/login-without-code', { enCode: '86', phone, platform: 'PC' })
    tokens.push(accessToken)
  }
  return tokens
}

/** Runs `task(i)` for i < n with at most `limit` at once. */
export async function inParallel(n, limit, task) {
  let next = 0
  const lane = async () => {
    while (next < n) await task(next++)
  }
  await Promise.all(Array.from({ length: Math.min(n, limit) }, lane))
}

/** A PostgreSQL database of its own for one bench run, dropped afterwards. */
export async function scratchDatabase(adminUrl, name) {
  const { default: postgres } = await import('postgres')
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
  await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await admin.unsafe(`CREATE DATABASE "${name}"`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.href,
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await admin.end()
    }
  }
}

/** Deletes a bench run's Redis keys (its REDIS_PREFIX). */
export async function dropRedisKeys(redisUrl, prefix) {
  const { default: Redis } = await import('ioredis')
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
  await redis.connect()
  let cursor = '0'
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
    cursor = next
    if (keys.length > 0) await redis.del(...keys)
  } while (cursor !== '0')
  await redis.quit()
}

/** Prints an aligned table; `rows` are arrays of cells, the first row the header. */
export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)))
  return rows.map((r) => r.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ')).join('\n')
}

/**
 * Reads a streamed reply (Lingxi's SSE events or the upstream's own chunks through the relay) and
 * calls `onDelta(index, sentMicros, receivedMicros)` for each bench delta (`<index>@<µs>;`, see
 * bench/upstream.mjs) the first time it arrives; resolves at the end of the response with
 * `{ final }`, the name of the last `event:` seen (done, error, stopped), if any.
 */
export function readDeltas(res, onDelta) {
  return new Promise((done, fail) => {
    const seen = new Set()
    const piece = /(\d+)@(\d+);/g
    let carry = ''
    let tail = ''
    let final
    res.setEncoding('utf8')
    res.on('data', (text) => {
      const at = monoMicros()
      const buffer = carry + text
      // Only up to the last ';': a delta cut between two reads is completed by the next one.
      const end = buffer.lastIndexOf(';') + 1
      carry = buffer.slice(end)
      if (carry.length > 4096) carry = carry.slice(-64)
      for (const match of buffer.slice(0, end).matchAll(piece)) {
        const index = Number(match[1])
        if (seen.has(index)) continue
        seen.add(index)
        onDelta(index, Number(match[2]), at)
      }
      // The final event's name may also be cut between two reads.
      const recent = tail + text
      tail = recent.slice(-64)
      const event = /event: (done|error|stopped)\r?\n/.exec(recent)
      if (event) final = event[1]
    })
    res.on('end', () => done({ final }))
    res.on('error', fail)
    res.on('close', () => done({ final }))
  })
}
