// Where a held stream's memory goes: one server holds `--streams` independent streams (as in
// bench/held.mjs), with a V8 heap snapshot taken before the first send and another with all open;
// prints the heap per stream by constructor (the difference ÷ streams).
// A tool for npm run bench's "memory per stream", not one of its figures.
// Flags: --server <main.js>, --streams 1000, --accounts 50, --top 40, --keep (the snapshots stay in
// the data directory, printed, to open in Chrome's DevTools).
import http from 'node:http'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { api, flags, inParallel, loginMany, readDeltas, serverMain, sleep, startLingxi, startProcess, stopProcess, table } from './lib.mjs'

const args = flags()
const main = serverMain(args)
const n = Number(args.value('streams', 1000))
const accounts = Number(args.value('accounts', 50))
const top = Number(args.value('top', 40))
const MODEL = 'bench-model'

const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-heap-'))
const snapshots = join(dataDir, 'snapshots')
mkdirSync(snapshots)
const upstream = await startProcess('upstream', ['bench/upstream.mjs', '--events', '6', '--interval', '500', '--hold-after', '1'], {
  ready: /upstream listening \d+/
})
const lingxi = await startLingxi({
  main,
  dataDir: join(dataDir, 'data'),
  phones: accounts,
  nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`],
  extraEnv: {
    OPENAI_BASE_URL: `http://127.0.0.1:${/upstream listening (\d+)/.exec(upstream.output)[1]}`,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_MODELS: MODEL,
    CHAT_TIMEOUT_MS: '600000',
    CHAT_IDLE_TIMEOUT_MS: '600000'
  }
})

/** Asks the server for a snapshot and waits until its file stops growing. */
async function snapshot() {
  const before = new Set(readdirSync(snapshots, { withFileTypes: true }).map((f) => f.name))
  process.kill(lingxi.pid, 'SIGUSR2')
  for (let last = -1; ; ) {
    await sleep(2000)
    const file = readdirSync(snapshots).find((name) => name.endsWith('.heapsnapshot') && !before.has(name))
    if (!file) continue
    const size = statSync(join(snapshots, file)).size
    if (size > 0 && size === last) return join(snapshots, file)
    last = size
  }
}

/** Self size and count by constructor (closures by name, other nodes by type). */
function byConstructor(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'))
  const { node_fields: fields, node_types: types } = snap.snapshot.meta
  const width = fields.length
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f))
  const out = new Map()
  for (let i = 0; i < snap.nodes.length; i += width) {
    const t = types[0][snap.nodes[i + type]]
    const key =
      t === 'object' || t === 'native' ? snap.strings[snap.nodes[i + name]] : t === 'closure' ? `closure ${snap.strings[snap.nodes[i + name]]}` : `(${t})`
    const entry = out.get(key) ?? { count: 0, bytes: 0 }
    entry.count++
    entry.bytes += snap.nodes[i + size]
    out.set(key, entry)
  }
  return out
}

try {
  const tokens = await loginMany(lingxi.url, accounts)
  const topics = []
  await inParallel(n, 32, async (k) => {
    topics[k] = (await api(lingxi.url, '/api/v1/ai-chat/topic/create', { model: MODEL }, tokens[k % accounts])).topicId
  })
  await sleep(2000)
  const empty = await snapshot()

  const sse = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })
  const streams = []
  await inParallel(n, 64, async (k) => {
    const token = tokens[k % accounts]
    const { requestId } = await api(lingxi.url, '/api/v1/ai-chat/topic/message/send', { topicId: topics[k], content: `held ${k}` }, token)
    const res = await new Promise((done, fail) => {
      const req = http.get(`${lingxi.url}/api/v1/ai-chat/sse/subscribe/${requestId}`, { agent: sse, headers: { authorization: `Bearer ${token}` } }, done)
      req.on('error', fail)
    })
    let first
    const opened = new Promise((resolve) => (first = resolve))
    streams.push(readDeltas(res, (index) => index === 0 && first()).then(first))
    await opened
  })
  await sleep(2000)
  const held = await snapshot()

  const [a, b] = [byConstructor(empty), byConstructor(held)]
  const rows = [...b].map(([key, v]) => {
    const o = a.get(key) ?? { count: 0, bytes: 0 }
    return { key, bytes: (v.bytes - o.bytes) / n, count: (v.count - o.count) / n }
  })
  const heap = rows.reduce((sum, r) => sum + r.bytes, 0)
  // RSS is not shown: writing a snapshot grows it (npm run bench measures RSS per stream without one).
  console.log(`${n} held streams: V8 heap per stream (live, after each snapshot's GC) ${(heap / 1024).toFixed(1)} KB\n`)
  rows.sort((x, y) => y.bytes - x.bytes)
  console.log(
    table([
      ['constructor', 'bytes per stream', 'objects per stream'],
      ...rows.slice(0, top).map((r) => [r.key.slice(0, 60), r.bytes.toFixed(0), r.count.toFixed(2)])
    ])
  )
  upstream.send('release')
  await Promise.race([Promise.all(streams), sleep(60_000)])
  sse.destroy()
  if (args.has('keep')) console.log(`\nsnapshots: ${empty} ${held}`)
} finally {
  await Promise.all([stopProcess(lingxi.child), stopProcess(upstream)])
  if (!args.has('keep')) rmSync(dataDir, { recursive: true, force: true })
}
