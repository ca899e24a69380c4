// npm run bench:stream — what Lingxi's streaming path costs compared with a bare relay.
//
// Starts a fake OpenAI-compatible upstream (server/test/fakes/openai.ts, loaded through tsx), the
// built Lingxi server (server/dist/main.js, embedded database, in-memory bus) and bench/relay.mjs,
// each server in its own process so its CPU time can be read from /proc. Then, for each of them,
// N concurrent streams of M deltas: the upstream writes a delta every ~1 ms; the client notes when
// each delta arrives. Printed, not asserted. Loopback only; bounded in count and time.
//
// BENCH_STREAMS (default 20), BENCH_EVENTS (default 300), BENCH_INTERVAL_MS (default 1).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tsImport } from 'tsx/esm/api'

const root = fileURLToPath(new URL('..', import.meta.url))
const STREAMS = Number(process.env.BENCH_STREAMS ?? 20)
const EVENTS = Number(process.env.BENCH_EVENTS ?? 300)
const INTERVAL = Number(process.env.BENCH_INTERVAL_MS ?? 1)
const DEADLINE_MS = 180_000
const MODEL = 'bench-model'

const children = []
const cleanup = () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
}
const deadline = setTimeout(() => {
  console.error(`bench:stream gave up after ${DEADLINE_MS / 1000} s`)
  cleanup()
  process.exit(1)
}, DEADLINE_MS)
deadline.unref()
process.on('exit', cleanup)

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer()
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })

/** utime + stime of a process, in microseconds (from /proc; clock ticks of 10 ms). */
function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

function start(name, args, env, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(child)
    const lines = []
    let buffer = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (text) => {
      buffer += text
      let nl
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        lines.push(line)
        if (ready.test(line)) resolve({ child, lines })
      }
    })
    let stderr = ''
    child.stderr.on('data', (text) => (stderr += text))
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}: ${stderr}`)))
  })
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1000 })

function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, agent }, resolve)
    req.on('error', reject)
    req.end(body ? JSON.stringify(body) : undefined)
  })
}

async function json(url, body, token) {
  const res = await request(url, { method: 'POST', body, headers: token ? { authorization: `Bearer ${token}` } : {} })
  let text = ''
  for await (const chunk of res) text += chunk
  const parsed = JSON.parse(text)
  if (parsed.code !== 2000) throw new Error(`${url}: ${text}`)
  return parsed.data
}

/** Reads an SSE response; calls onContent(text, at) for each content delta; resolves at the end. */
function consume(res, kind, onContent) {
  return new Promise((resolve, reject) => {
    let buffer = ''
    res.setEncoding('utf8')
    res.on('data', (text) => {
      const at = performance.now()
      buffer += text
      let end
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const dataLine = block.split('\n').find((line) => line.startsWith('data: '))
        if (!dataLine) continue
        const data = dataLine.slice(6)
        if (data === '[DONE]') continue
        const parsed = JSON.parse(data)
        const content = kind === 'lingxi' ? parsed.content : parsed.choices?.[0]?.delta?.content
        if (content) onContent(content, at)
      }
    })
    res.on('end', resolve)
    res.on('error', reject)
  })
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

/**
 * One round: N streams released together. `open(k)` starts stream k and resolves with the
 * response (SSE) once the client is connected.
 */
async function round(fake, pid, kind, streams, events, open) {
  const sentAt = Array.from({ length: streams }, () => new Array(events))
  const recvAt = Array.from({ length: streams }, () => new Array(events))
  let release
  const hold = new Promise((resolve) => (release = resolve))
  const before = fake.requests.length
  fake.script((req) => {
    const k = Number(/stream-(\d+)/.exec(req.body.messages.at(-1).content)[1])
    return {
      kind: 'stream',
      chunks: Array.from({ length: events }, (_, j) => `${j};`),
      usage: { prompt_tokens: 10, completion_tokens: events },
      delayMs: INTERVAL,
      hold,
      onDelta: (j, at) => (sentAt[k][j] = at)
    }
  })
  // Lingxi answers the subscription at once (its headers do not wait for the upstream), so its
  // clients are connected before the release; the relay's answer waits for the upstream's headers.
  const responses = Array.from({ length: streams }, (_, k) => open(k))
  if (kind === 'lingxi') await Promise.all(responses)
  while (fake.requests.length - before < streams) await new Promise((resolve) => setTimeout(resolve, 5))
  const done = responses.map(async (response, k) =>
    consume(await response, kind, (content, at) => {
      for (const piece of content.split(';')) if (piece !== '') recvAt[k][Number(piece)] = at
    })
  )
  const cpuBefore = cpuMicros(pid)
  const t0 = performance.now()
  release()
  await Promise.all(done)
  const wall = performance.now() - t0
  // Lingxi finishes its bookkeeping (final save, charge) right after the last event.
  await new Promise((resolve) => setTimeout(resolve, 200))
  const cpu = cpuMicros(pid) - cpuBefore
  const latencies = []
  const firsts = []
  for (let k = 0; k < streams; k++) {
    for (let j = 0; j < events; j++) {
      if (recvAt[k][j] === undefined || sentAt[k][j] === undefined) throw new Error(`${kind}: stream ${k} lost event ${j}`)
      latencies.push((recvAt[k][j] - sentAt[k][j]) * 1000)
    }
    firsts.push((recvAt[k][0] - sentAt[k][0]) * 1000)
  }
  return {
    cpuPerEvent: cpu / (streams * events),
    latencyMean: latencies.reduce((a, b) => a + b, 0) / latencies.length,
    latencyP50: percentile(latencies, 50),
    latencyP99: percentile(latencies, 99),
    firstByteMean: firsts.reduce((a, b) => a + b, 0) / firsts.length,
    firstByteP99: percentile(firsts, 99),
    wallMs: wall
  }
}

async function main() {
  if (!existsSync(join(root, 'server/dist/main.js'))) {
    console.log('building the server (server/dist is missing)…')
    const build = spawnSync('npm', ['run', '-w', 'server', 'build'], { cwd: root, stdio: 'inherit' })
    if (build.status !== 0) throw new Error('server build failed')
  }
  const { startFakeOpenAi } = await tsImport('../server/test/fakes/openai.ts', import.meta.url)
  const fake = await startFakeOpenAi()
  const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-bench-'))
  const [lingxiPort, relayPort] = [await freePort(), await freePort()]
  const env = { ...process.env }
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'OPENAI_MODELS', 'OPENAI_BASE_URL', 'OPENAI_API_KEY']) delete env[name]

  try {
    const lingxi = await start(
      'lingxi',
      ['server/dist/main.js'],
      {
        ...env,
        NODE_ENV: 'production',
        PORT: String(lingxiPort),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        STATIC_ROOT: join(dataDir, 'no-site'),
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: fake.apiKey,
        OPENAI_MODELS: MODEL,
        START_TOKENS: '1000000000',
        SMS_HOURLY_PER_IP: '0',
        SMS_HOURLY_PER_PHONE: '0'
      },
      /^Lingxi is running at /
    )
    const relay = await start('relay', ['bench/relay.mjs', fake.url, String(relayPort)], env, /^relay listening/)
    const base = `http://127.0.0.1:${lingxiPort}`
    const relayUrl = `http://127.0.0.1:${relayPort}/v1/chat/completions`

    await json(`${base}/api/v1/auth/send-sms-code`, { enCode: '86', phone: '13800138000' })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const code = lingxi.lines
      .map((line) => /^\[sms\] \+86 13800138000 (\d{4})$/.exec(line)?.[1])
      .filter(Boolean)
      .at(-1)
    const { accessToken: token } = await json(`${base}/api/v1/auth/login`, { enCode: '86', phone: '13800138000', code, platform: 'PC' })
    const topics = []
    for (let k = 0; k < STREAMS; k++) topics.push((await json(`${base}/api/v1/ai-chat/topic/create`, { model: MODEL }, token)).topicId)

    const openLingxi = async (k) => {
      const { requestId } = await json(`${base}/api/v1/ai-chat/topic/message/send`, { topicId: topics[k], content: `stream-${k}` }, token)
      const res = await request(`${base}/api/v1/ai-chat/sse/subscribe/${requestId}`, { headers: { authorization: `Bearer ${token}` } })
      if (res.statusCode !== 200) throw new Error(`subscribe answered ${res.statusCode}`)
      return res
    }
    const openRelay = (k) =>
      request(relayUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.apiKey}` },
        body: { model: MODEL, messages: [{ role: 'user', content: `stream-${k}` }], stream: true, stream_options: { include_usage: true } }
      })

    // Warm-up (JIT, connection pools, the tokenizer), then the measured rounds.
    await round(fake, relay.child.pid, 'relay', 4, 50, openRelay)
    await round(fake, lingxi.child.pid, 'lingxi', 4, 50, openLingxi)
    const bare = await round(fake, relay.child.pid, 'relay', STREAMS, EVENTS, openRelay)
    const ours = await round(fake, lingxi.child.pid, 'lingxi', STREAMS, EVENTS, openLingxi)

    const row = (label, r) =>
      `${label.padEnd(12)}${r.cpuPerEvent.toFixed(1).padStart(10)}${r.latencyMean.toFixed(0).padStart(12)}${r.latencyP50.toFixed(0).padStart(10)}${r.latencyP99.toFixed(0).padStart(10)}${r.firstByteMean.toFixed(0).padStart(14)}${r.firstByteP99.toFixed(0).padStart(12)}${r.wallMs.toFixed(0).padStart(10)}`
    const ratio = (a, b) => (b > 0 ? (a / b).toFixed(2) : '∞')
    console.log(`\nbench:stream — ${STREAMS} concurrent streams × ${EVENTS} deltas, one delta every ~${INTERVAL} ms per stream, loopback`)
    console.log('server CPU per event = the server process CPU time (/proc, 10 ms ticks) ÷ events; latency = upstream write → client read\n')
    console.log(
      `${''.padEnd(12)}${'CPU µs/ev'.padStart(10)}${'lat mean µs'.padStart(12)}${'p50 µs'.padStart(10)}${'p99 µs'.padStart(10)}${'1st byte µs'.padStart(14)}${'1st p99'.padStart(12)}${'wall ms'.padStart(10)}`
    )
    console.log(row('lingxi', ours))
    console.log(row('bare relay', bare))
    console.log(
      `${'lingxi/bare'.padEnd(12)}${ratio(ours.cpuPerEvent, bare.cpuPerEvent).padStart(10)}${ratio(ours.latencyMean, bare.latencyMean).padStart(12)}${ratio(ours.latencyP50, bare.latencyP50).padStart(10)}${ratio(ours.latencyP99, bare.latencyP99).padStart(10)}${ratio(ours.firstByteMean, bare.firstByteMean).padStart(14)}${ratio(ours.firstByteP99, bare.firstByteP99).padStart(12)}${ratio(ours.wallMs, bare.wallMs).padStart(10)}`
    )
    console.log(
      `\nserver overhead per event (CPU): lingxi ${ours.cpuPerEvent.toFixed(1)} µs, bare relay ${bare.cpuPerEvent.toFixed(1)} µs (×${ratio(ours.cpuPerEvent, bare.cpuPerEvent)})`
    )
    console.log(
      `upstream first byte → client first byte (mean): lingxi ${(ours.firstByteMean / 1000).toFixed(2)} ms, bare relay ${(bare.firstByteMean / 1000).toFixed(2)} ms (×${ratio(ours.firstByteMean, bare.firstByteMean)})`
    )
  } finally {
    cleanup()
    await fake.close()
    agent.destroy()
    await new Promise((resolve) => setTimeout(resolve, 300))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    cleanup()
    process.exit(1)
  }
)
