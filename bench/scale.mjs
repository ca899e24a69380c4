// npm run bench — scale figures for issue 7, printed and written to docs/benchmarks.md (not asserted).
//
// 1. Concurrent SSE streams held by one node (1,000 and 5,000; BENCH_STREAMS="1000,5000"): a second
//    process opens that many subscriptions to one long demo reply; the node's RSS is read from /proc
//    before and while they are open (memory per stream); every stream must get every event, 1..N
//    in order, and the final one (events lost, must be zero).
// 2. Requests per second, keep-alive, from a second process: POST user/info and topic/list on the
//    node (embedded PGlite) against a bare Hono JSON endpoint (bench/bare.mjs), same run, as a ratio.
// 3. Restart time: SIGTERM to exit, and start to listening, on an existing data directory.
//
// Needs the built server (npm run build). Loopback only; bounded in time.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { createServer } from 'node:net'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const mode = process.argv[2]

// ---- load generator (runs in its own process) --------------------------------------------------

if (mode === 'streams') {
  const [url, token, n] = [process.argv[3], process.argv[4], Number(process.argv[5])]
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity })
  const streams = []
  let connected = 0
  await new Promise((allOpen) => {
    for (let i = 0; i < n; i++) {
      const s = { ids: [], final: false, ended: false, buffer: '' }
      streams.push(s)
      const req = http.get(url, { agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
        if (++connected === n) allOpen()
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          s.buffer += chunk
          let i
          while ((i = s.buffer.indexOf('\n\n')) >= 0) {
            const block = s.buffer.slice(0, i)
            s.buffer = s.buffer.slice(i + 2)
            const id = /^id: (\d+)$/m.exec(block)
            if (id) s.ids.push(Number(id[1]))
            if (/^event: (done|error|stopped)$/m.test(block)) s.final = true
          }
        })
        res.on('end', () => (s.ended = true))
      })
      req.on('error', () => {
        s.ended = true
        if (++connected === n) allOpen()
      })
    }
  })
  process.send({ type: 'open' })
  const deadline = Date.now() + 300_000
  while (streams.some((s) => !s.ended) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  const last = Math.max(...streams.map((s) => s.ids.at(-1) ?? 0))
  let lost = 0
  let unordered = 0
  let unfinished = 0
  for (const s of streams) {
    lost += last - new Set(s.ids).size
    if (s.ids.some((id, i) => id !== i + 1)) unordered++
    if (!s.final) unfinished++
  }
  process.send({ type: 'result', events: last, lost, unordered, unfinished })
  process.exit(0)
}

if (mode === 'rps') {
  const [url, token, seconds, body] = [process.argv[3], process.argv[4], Number(process.argv[5]), process.argv[6] ?? '{}']
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 })
  const target = new URL(url)
  let done = 0
  let failed = 0
  const until = Date.now() + seconds * 1000
  const worker = async () => {
    while (Date.now() < until) {
      await new Promise((resolve) => {
        const req = http.request(
          {
            host: target.hostname,
            port: target.port,
            path: target.pathname,
            method: 'POST',
            agent,
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }
          },
          (res) => {
            let text = ''
            res.setEncoding('utf8')
            res.on('data', (c) => (text += c))
            res.on('end', () => {
              if (res.statusCode === 200 && text.includes('"code":2000')) done++
              else failed++
              resolve()
            })
          }
        )
        req.on('error', () => {
          failed++
          resolve()
        })
        req.end(body)
      })
    }
  }
  await Promise.all(Array.from({ length: 32 }, worker))
  process.send({ type: 'result', rps: done / seconds, failed })
  process.exit(0)
}

// ---- the bench ----------------------------------------------------------------------------------

const STREAM_COUNTS = (process.env.BENCH_STREAMS ?? '1000,5000').split(',').map(Number)
const RPS_SECONDS = Number(process.env.BENCH_RPS_SECONDS ?? 5)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const children = new Set()
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
})

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer()
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024
}

async function startLingxi(dataDir, port) {
  const t0 = performance.now()
  const child = spawn(process.execPath, [join(root, 'server/dist/main.js')], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      CHAT_DEMO_DELAY_MS: process.env.BENCH_DEMO_DELAY_MS ?? '400',
      DATABASE_URL: '',
      REDIS_URL: '',
      STATIC_ROOT: join(dataDir, 'none')
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  children.add(child)
  const node = { child, out: '', url: `http://127.0.0.1:${port}` }
  child.stdout.setEncoding('utf8').on('data', (c) => (node.out += c))
  child.stderr.setEncoding('utf8').on('data', (c) => (node.out += c))
  while (!node.out.includes('Lingxi is running at')) {
    if (child.exitCode !== null) throw new Error(node.out)
    await sleep(5)
  }
  node.startMs = performance.now() - t0
  return node
}

async function post(base, path, body, token) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body)
  })
  return res.json()
}

function child(args) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    children.add(c)
    const messages = []
    c.on('message', (m) => {
      messages.push(m)
      c.emit(`m:${m.type}`, m)
    })
    c.on('exit', () => {
      const result = messages.find((m) => m.type === 'result')
      result ? resolve(result) : reject(new Error(`load process ${args[0]} failed`))
    })
    resolve.child = c
    c.onOpen = new Promise((r) => c.once('m:open', r))
    setImmediate(() => c.emit('started'))
    child.last = c
  })
}

const dataDir = mkdtempSync(join(os.tmpdir(), 'lingxi-bench-'))
const port = await freePort()
let node = await startLingxi(dataDir, port)
const phone = '13800138000'
await post(node.url, '/api/v1/auth/send-sms-code', { enCode: '86', phone, smsType: 'LOGIN', imgVerifyState: 1 })
const code = /\[sms\] \+86 13800138000 (\d{4})/.exec(node.out)[1]
const login = await post(node.url, '/api/v1/auth/login', { enCode: '86', phone, code, platform: 'PC' })
const token = login.data.accessToken
const lines = []
const say = (line) => {
  console.log(line)
  lines.push(line)
}

// 1. streams
const streamRows = []
for (const n of STREAM_COUNTS) {
  const topic = await post(node.url, '/api/v1/ai-chat/topic/create', {}, token)
  const baseline = rssMb(node.child.pid)
  const sent = await post(
    node.url,
    '/api/v1/ai-chat/topic/message/send',
    { topicId: topic.data.topicId, content: '请写一篇很长很长的文章，介绍灵犀的每一个功能。'.repeat(3) },
    token
  )
  const running = child(['streams', `${node.url}/api/v1/ai-chat/sse/subscribe/${sent.data.requestId}`, token, String(n)])
  const load = child.last
  const t0 = performance.now()
  await load.onOpen
  const openMs = performance.now() - t0
  const held = rssMb(node.child.pid)
  const result = await running
  const row = { n, openMs, baseline, held, perStreamKb: ((held - baseline) * 1024) / n, ...result }
  streamRows.push(row)
  say(
    `streams ${n}: opened in ${(openMs / 1000).toFixed(1)} s; RSS ${baseline.toFixed(0)} → ${held.toFixed(0)} MB (${row.perStreamKb.toFixed(1)} KB per stream); ${result.events} events each; lost ${result.lost}, out of order ${result.unordered}, without final ${result.unfinished}`
  )
}

// 2. requests per second
const barePort = await freePort()
const bare = spawn(process.execPath, [join(root, 'bench/bare.mjs')], { env: { ...process.env, PORT: String(barePort) }, stdio: ['ignore', 'pipe', 'inherit'] })
children.add(bare)
await new Promise((r) => bare.stdout.once('data', r))
const rps = {}
for (const [name, url] of [
  ['bare Hono JSON', `http://127.0.0.1:${barePort}/json`],
  ['user/info', `${node.url}/api/v1/user/info`],
  ['topic/list', `${node.url}/api/v1/ai-chat/topic/list`]
]) {
  const result = await child(['rps', url, token, String(RPS_SECONDS)])
  rps[name] = result
  say(`rps ${name}: ${result.rps.toFixed(0)} req/s${result.failed ? ` (${result.failed} failed)` : ''}`)
}
bare.kill('SIGTERM')
const ratio = (name) => rps[name].rps / rps['bare Hono JSON'].rps

// 3. restart
const t0 = performance.now()
node.child.kill('SIGTERM')
await new Promise((r) => node.child.once('exit', r))
const stopMs = performance.now() - t0
node = await startLingxi(dataDir, port)
say(`restart: stop ${stopMs.toFixed(0)} ms, start to listening ${node.startMs.toFixed(0)} ms (embedded PGlite, existing data)`)
node.child.kill('SIGTERM')
await new Promise((r) => node.child.once('exit', r))
rmSync(dataDir, { recursive: true, force: true })

// ---- docs/benchmarks.md --------------------------------------------------------------------------
const cpus = os.cpus()
const machine = `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}`
const md = `# Benchmarks

Written by \`npm run bench\` (bench/scale.mjs); printed figures, not assertions. Re-run on your own
hardware before sizing a deployment (docs/deployment.md).

- Date: ${new Date().toISOString()}
- Machine: ${machine}
- Server: one node, \`server/dist/main.js\`, embedded PGlite, in-memory event bus; load from a second process on loopback.

## Concurrent SSE streams held by one node

Every connection follows the same long demo reply (\`/api/v1/ai-chat/sse/subscribe/{requestId}\`),
so the node fans each event out to all of them. Memory per stream is the node's RSS while they are
open minus its RSS before, divided by the count. Events lost counts, over all streams, ids 1…N that a
stream never received; it must be zero.

| Streams | Opened in | RSS before → held | Memory per stream | Events per stream | Events lost | Out of order | Without final event |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${streamRows.map((r) => `| ${r.n.toLocaleString('en')} | ${(r.openMs / 1000).toFixed(1)} s | ${r.baseline.toFixed(0)} → ${r.held.toFixed(0)} MB | ${r.perStreamKb.toFixed(1)} KB | ${r.events} | ${r.lost} | ${r.unordered} | ${r.unfinished} |`).join('\n')}

## Requests per second (keep-alive, 32 connections, ${RPS_SECONDS} s each)

| Endpoint | req/s | vs bare Hono |
| --- | ---: | ---: |
| bare Hono JSON endpoint (bench/bare.mjs) | ${rps['bare Hono JSON'].rps.toFixed(0)} | 1.00 |
| POST /api/v1/user/info | ${rps['user/info'].rps.toFixed(0)} | ${ratio('user/info').toFixed(2)} |
| POST /api/v1/ai-chat/topic/list | ${rps['topic/list'].rps.toFixed(0)} | ${ratio('topic/list').toFixed(2)} |

user/info and topic/list authenticate (a session lookup) and read the database on every request;
the bare endpoint does neither, so the ratio is the cost of auth + database + envelope.

## Restart

| SIGTERM to exit | Start to listening (existing data) |
| ---: | ---: |
| ${stopMs.toFixed(0)} ms | ${node.startMs.toFixed(0)} ms |
`
writeFileSync(join(root, 'docs/benchmarks.md'), md)
console.log('wrote docs/benchmarks.md')
process.exit(0)
