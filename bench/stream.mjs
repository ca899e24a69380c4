// npm run bench:stream — what Lingxi's streaming path costs over a bare relay (bench/relay.mjs),
// measured in the same run against the same fake upstream (bench/upstream.mjs), as ratios.
//
// Four processes: the fake upstream, the Lingxi server (embedded database, in-memory bus), the
// bare relay, and this one, the client. For 1, 20 and 200 concurrent streams, each round opens
// that many streams at once; the upstream gives each its own reply of --events deltas, one every
// --interval ms (default 500 deltas, 2 ms). Rounds alternate relay / Lingxi; figures are medians.
//
//   (a) delta latency: the upstream's write of a delta → the client's read of it (CLOCK_MONOTONIC
//       stamped into the delta, so it is exact across processes);
//   (b) first delta: the client's first request (Lingxi: send, then subscribe; relay: the POST)
//       → the first delta read;
//   (c) deltas/s over the round's wall clock, and CPU per delta: the server process's utime+stime
//       (/proc, all threads) over the round ÷ deltas delivered;
//   (d) p99 delta latency.
//
// Flags: --server <main.js> (default server/dist/main.js), --streams 1,20,200, --events 500,
// --interval 2, --rounds 3, --accounts 20, --json <file> (save the results), --write (save them
// to bench/results/after-stream.json and rewrite docs/benchmarks.md), --moderation [N] (a second
// Lingxi with the local word list on — N generated entries, default 20000 — in the same rounds, and
// its figures against moderation off: the goal is ≤ 1.1× on delta latency), --cpu-prof <dir> (the
// Lingxi server runs under V8's profiler; its .cpuprofile files land in <dir> when it stops: read
// them with node bench/stream-profile.mjs <dir>), --backend pglite|postgres|postgres+redis (default
// the embedded database; the others use a scratch database on 127.0.0.1:5432 and Redis on :6379),
// --trace-queries <file> (every query and request of the server, timed, to <file>: bench/trace-queries.mjs).
// Printed, not asserted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  api,
  cpuMicros,
  dropRedisKeys,
  flags,
  freePort,
  inParallel,
  loginMany,
  machine,
  median,
  monoMicros,
  percentile,
  readDeltas,
  retryOnReset,
  scratchDatabase,
  serverMain,
  sleep,
  startLingxi,
  startProcess,
  stopProcess,
  table
} from './lib.mjs'
import { saveResults } from './report.mjs'

const args = flags()
const main = serverMain(args)
const COUNTS = String(args.value('streams', '1,20,200')).split(',').map(Number)
const EVENTS = Number(args.value('events', 500))
const INTERVAL = Number(args.value('interval', 2))
const ROUNDS = Number(args.value('rounds', 3))
const ACCOUNTS = Number(args.value('accounts', 20))
const MODEL = 'bench-model'
const BACKEND = args.value('backend', 'pglite')
const REDIS_URL = 'redis://127.0.0.1:6379'
const MODERATION = args.has('moderation') ? Number(args.value('moderation', true) === true ? 20_000 : args.value('moderation')) : 0

/**
 * A word list of `n` entries the size operators load (public lists hold 10–50 thousand): random
 * two- to six-character words of common Chinese characters, a tenth of them review, a tenth
 * `|pinyin`; seeded, so every run checks the same list.
 */
function wordList(n) {
  let seed = 42
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed
  }
  const lines = []
  for (let i = 0; i < n; i++) {
    const length = 2 + (next() % 5)
    const word = Array.from({ length }, () => String.fromCodePoint(0x4e00 + (next() % 0x5000))).join('')
    const kind = next() % 10
    lines.push(kind === 0 ? `${word}|review` : kind === 1 && length >= 3 ? `${word}|block|pinyin` : word)
  }
  return `${lines.join('\n')}\n`
}

// The whole bench is bounded: a server that stops answering must not hang it.
setTimeout(() => {
  console.error('bench:stream gave up after 8 minutes')
  process.exit(1)
}, 480_000).unref()

const agent = new http.Agent({ keepAlive: true, maxSockets: 1000 })

/** A request on a keep-alive socket; `retryOnReset` as in lib.mjs's api(). */
function request(url, { method = 'GET', headers = {}, body } = {}) {
  return retryOnReset(
    () =>
      new Promise((done, fail) => {
        const req = http.request(url, { method, agent, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers } }, done)
        req.on('error', (error) => fail(Object.assign(error, { reusedSocket: req.reusedSocket })))
        req.end(body ? JSON.stringify(body) : undefined)
      })
  )
}

/**
 * One round: `n` streams opened together through `open(k)`; per-delta and per-round figures. A
 * stream that fails is counted (its missing deltas are `lost`), not fatal to the bench.
 */
async function round(pid, n, open) {
  const latencies = []
  const firsts = []
  let delivered = 0
  let failed = 0
  let lastAt = 0
  const cpu0 = cpuMicros(pid)
  const t0 = monoMicros()
  await Promise.all(
    Array.from({ length: n }, async (_, k) => {
      const start = monoMicros()
      try {
        const res = await open(k)
        if (res.statusCode !== 200) throw new Error(`stream ${k} answered ${res.statusCode}`)
        let first = true
        await readDeltas(res, (_index, sent, at) => {
          if (first) firsts.push((at - start) / 1000)
          first = false
          latencies.push((at - sent) / 1000)
          delivered++
          lastAt = Math.max(lastAt, at)
        })
      } catch (error) {
        failed++
        console.error(`stream ${k} of ${n} failed: ${error.message}`)
      }
    })
  )
  const wallS = (lastAt - t0) / 1e6
  // Lingxi settles a reply (final save, charge) right after its last event: that CPU is part of it.
  await sleep(300)
  const cpu = cpuMicros(pid) - cpu0
  latencies.sort((a, b) => a - b)
  return {
    latencyMeanMs: latencies.reduce((a, b) => a + b, 0) / latencies.length,
    latencyP50Ms: percentile(latencies, 50),
    latencyP99Ms: percentile(latencies, 99),
    firstDeltaMs: firsts.reduce((a, b) => a + b, 0) / firsts.length,
    deltasPerS: delivered / wallS,
    cpuPerDeltaUs: cpu / delivered,
    lost: n * EVENTS - delivered,
    failedStreams: failed
  }
}

const MEASURES = ['latencyMeanMs', 'latencyP50Ms', 'latencyP99Ms', 'firstDeltaMs', 'deltasPerS', 'cpuPerDeltaUs', 'lost']
const summarise = (rounds) => Object.fromEntries(MEASURES.map((m) => [m, median(rounds.map((r) => r[m]))]).concat([['rounds', rounds]]))

const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-bench-stream-'))
const database = BACKEND === 'pglite' ? undefined : await scratchDatabase('postgres://postgres@127.0.0.1:5432/postgres', `lingxi_stream_${process.pid}`)
try {
  const upstream = await startProcess('upstream', ['bench/upstream.mjs', '--events', String(EVENTS), '--interval', String(INTERVAL)], {
    ready: /upstream listening \d+/
  })
  const upstreamUrl = `http://127.0.0.1:${/upstream listening (\d+)/.exec(upstream.output)[1]}`
  const relayPort = await freePort()
  const relay = await startProcess('relay', ['bench/relay.mjs', upstreamUrl, String(relayPort)], { ready: /relay listening/ })
  const profileDir = args.value('cpu-prof', '')
  const traceFile = args.value('trace-queries', '')
  const lingxi = await startLingxi({
    main,
    dataDir,
    phones: ACCOUNTS,
    backend: BACKEND,
    databaseUrl: database?.url,
    redisUrl: REDIS_URL,
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : traceFile ? ['--import', join(import.meta.dirname, 'trace-queries.mjs')] : [],
    extraEnv: { OPENAI_BASE_URL: upstreamUrl, OPENAI_API_KEY: 'sk-bench', OPENAI_MODELS: MODEL, ...(traceFile ? { LINGXI_TRACE_FILE: traceFile } : {}) }
  })
  const most = Math.max(4, ...COUNTS)
  /** Accounts and one topic per stream (a topic streams one reply at a time), spread over the accounts as users would be. */
  async function opener(server) {
    const tokens = await loginMany(server.url, ACCOUNTS)
    const topics = []
    await inParallel(most, 16, async (k) => {
      topics[k] = (await api(server.url, '/api/v1/ai-chat/topic/create', { model: MODEL }, tokens[k % ACCOUNTS])).topicId
    })
    return async (k) => {
      const token = tokens[k % ACCOUNTS]
      const { requestId } = await api(server.url, '/api/v1/ai-chat/topic/message/send', { topicId: topics[k], content: `stream ${k}` }, token)
      return request(`${server.url}/api/v1/ai-chat/sse/subscribe/${requestId}`, { headers: { authorization: `Bearer ${token}` } })
    }
  }
  const openLingxi = await opener(lingxi)
  let moderated
  if (MODERATION > 0) {
    const words = join(dataDir, 'words.txt')
    writeFileSync(words, wordList(MODERATION))
    const server = await startLingxi({
      main,
      dataDir: join(dataDir, 'moderated'),
      phones: ACCOUNTS,
      extraEnv: { OPENAI_BASE_URL: upstreamUrl, OPENAI_API_KEY: 'sk-bench', OPENAI_MODELS: MODEL, MODERATION_PROVIDERS: 'words', MODERATION_WORDS_FILE: words }
    })
    moderated = { server, open: await opener(server) }
  }
  const openRelay = (k) =>
    request(`http://127.0.0.1:${relayPort}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-bench' },
      body: { model: MODEL, messages: [{ role: 'user', content: `stream ${k}` }], stream: true, stream_options: { include_usage: true } }
    })

  // Warm-up (JIT, connection pools, the tokenizer), not measured.
  await round(relay.pid, 4, openRelay)
  await round(lingxi.pid, 4, openLingxi)
  if (moderated) await round(moderated.server.pid, 4, moderated.open)

  const results = {}
  for (const n of COUNTS) {
    const relayRounds = []
    const lingxiRounds = []
    const moderatedRounds = []
    for (let r = 0; r < ROUNDS; r++) {
      relayRounds.push(await round(relay.pid, n, openRelay))
      lingxiRounds.push(await round(lingxi.pid, n, openLingxi))
      if (moderated) moderatedRounds.push(await round(moderated.server.pid, n, moderated.open))
    }
    results[n] = { relay: summarise(relayRounds), lingxi: summarise(lingxiRounds), ...(moderated ? { moderated: summarise(moderatedRounds) } : {}) }
    printStreams(n, results[n])
    if (moderated) printModeration(n, results[n])
  }
  await Promise.all([stopProcess(lingxi.child), stopProcess(relay), stopProcess(upstream), moderated && stopProcess(moderated.server.child)])

  const saved = {
    bench: 'stream',
    date: new Date().toISOString(),
    machine: machine(),
    server: main,
    backend: BACKEND,
    events: EVENTS,
    intervalMs: INTERVAL,
    rounds: ROUNDS,
    ...(moderated ? { moderationWords: MODERATION } : {}),
    results
  }
  saveResults(args, saved)
  if (BACKEND === 'postgres+redis') await dropRedisKeys(REDIS_URL, lingxi.prefix)
} finally {
  agent.destroy()
  await database?.drop()
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(0)

/** Moderation on (the local word list, checked in windows as the reply streams) against off, same rounds. */
function printModeration(n, { lingxi: off, moderated: on }) {
  const ratio = (a, b) => `${(a / b).toFixed(2)}×`
  const ms = (v) => v.toFixed(v < 10 ? 2 : 0)
  console.log(`  moderation on (${MODERATION} words) vs off, ${n} stream${n === 1 ? '' : 's'}:`)
  console.log(
    table([
      ['measure', 'on', 'off', 'on ÷ off', 'goal'],
      ['(a) delta latency, mean ms', ms(on.latencyMeanMs), ms(off.latencyMeanMs), ratio(on.latencyMeanMs, off.latencyMeanMs), '≤ 1.1×'],
      ['(d) delta latency, p99 ms', ms(on.latencyP99Ms), ms(off.latencyP99Ms), ratio(on.latencyP99Ms, off.latencyP99Ms), ''],
      ['(b) request → first delta ms', ms(on.firstDeltaMs), ms(off.firstDeltaMs), ratio(on.firstDeltaMs, off.firstDeltaMs), ''],
      ['    CPU µs per delta', on.cpuPerDeltaUs.toFixed(1), off.cpuPerDeltaUs.toFixed(1), ratio(on.cpuPerDeltaUs, off.cpuPerDeltaUs), ''],
      ['    deltas lost', on.lost, off.lost, '', '0']
    ])
  )
}

function printStreams(n, { relay, lingxi }) {
  const ms = (v) => v.toFixed(v < 10 ? 2 : 0)
  const ratio = (a, b) => `${(a / b).toFixed(2)}×`
  const spread = (rounds, m, f) => rounds.map((r) => f(r[m])).join(' / ')
  console.log(`\n${n} concurrent stream${n === 1 ? '' : 's'} × ${EVENTS} deltas, one every ${INTERVAL} ms per stream; medians of ${ROUNDS} rounds`)
  console.log(
    table([
      ['measure', 'Lingxi', 'bare relay', 'Lingxi ÷ relay', 'goal', 'Lingxi per round', 'relay per round'],
      [
        '(a) delta latency, mean ms',
        ms(lingxi.latencyMeanMs),
        ms(relay.latencyMeanMs),
        ratio(lingxi.latencyMeanMs, relay.latencyMeanMs),
        '≤ 1.1×',
        spread(lingxi.rounds, 'latencyMeanMs', ms),
        spread(relay.rounds, 'latencyMeanMs', ms)
      ],
      [
        '    delta latency, p50 ms',
        ms(lingxi.latencyP50Ms),
        ms(relay.latencyP50Ms),
        ratio(lingxi.latencyP50Ms, relay.latencyP50Ms),
        '',
        spread(lingxi.rounds, 'latencyP50Ms', ms),
        spread(relay.rounds, 'latencyP50Ms', ms)
      ],
      [
        '(d) delta latency, p99 ms',
        ms(lingxi.latencyP99Ms),
        ms(relay.latencyP99Ms),
        ratio(lingxi.latencyP99Ms, relay.latencyP99Ms),
        n >= 200 ? '≤ 60 ms' : '',
        spread(lingxi.rounds, 'latencyP99Ms', ms),
        spread(relay.rounds, 'latencyP99Ms', ms)
      ],
      [
        '(b) request → first delta ms',
        ms(lingxi.firstDeltaMs),
        ms(relay.firstDeltaMs),
        ratio(lingxi.firstDeltaMs, relay.firstDeltaMs),
        '≤ 1.5×',
        spread(lingxi.rounds, 'firstDeltaMs', ms),
        spread(relay.rounds, 'firstDeltaMs', ms)
      ],
      [
        '(c) deltas/s',
        lingxi.deltasPerS.toFixed(0),
        relay.deltasPerS.toFixed(0),
        ratio(lingxi.deltasPerS, relay.deltasPerS),
        '≥ 0.9×',
        spread(lingxi.rounds, 'deltasPerS', (v) => v.toFixed(0)),
        spread(relay.rounds, 'deltasPerS', (v) => v.toFixed(0))
      ],
      [
        '    CPU µs per delta',
        lingxi.cpuPerDeltaUs.toFixed(1),
        relay.cpuPerDeltaUs.toFixed(1),
        ratio(lingxi.cpuPerDeltaUs, relay.cpuPerDeltaUs),
        '≤ 2×',
        spread(lingxi.rounds, 'cpuPerDeltaUs', (v) => v.toFixed(1)),
        spread(relay.rounds, 'cpuPerDeltaUs', (v) => v.toFixed(1))
      ],
      ['    deltas lost', lingxi.lost, relay.lost, '', '0', spread(lingxi.rounds, 'lost', String), spread(relay.rounds, 'lost', String)]
    ])
  )
}
