// Saves bench results, and writes docs/benchmarks.md from them.
//
// bench/results/ holds one JSON file per bench run: before-<bench>*.json (the build of commit
// 3794c18, before issue 15) and after-<bench>*.json (the current build). Each column of the doc is
// the median over the files of that column, so several runs on a noisy machine make one figure.
// `npm run bench -- --write` and `npm run bench:stream -- --write` save their run as
// after-<bench>.json and rewrite the doc; `node bench/report.mjs` rewrites it from the files alone.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, perCpuSecond, root } from './lib.mjs'

const RESULTS = join(root, 'bench/results')
const DOC = join(root, 'docs/benchmarks.md')

export function saveResults(args, results) {
  const file = args.value('json')
  if (typeof file === 'string') {
    writeJson(file, results)
    console.log(`\nresults saved to ${file}`)
  }
  if (args.has('write')) {
    writeJson(join(RESULTS, `after-${results.bench}.json`), results)
    writeReport()
    console.log(`wrote ${DOC}`)
  }
}

/** Writes JSON as the repository's formatter would (bench/results is committed and format-checked). */
function writeJson(file, value) {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`)
  try {
    execFileSync(join(root, 'node_modules/.bin/biome'), ['format', '--write', file], { cwd: root, stdio: 'ignore' })
  } catch {}
}

function load(column, bench) {
  let names = []
  try {
    names = readdirSync(RESULTS)
  } catch {}
  return names
    .filter((name) => name.startsWith(`${column}-${bench}`) && name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(RESULTS, name), 'utf8')))
}

/** The median over a column's runs of one figure; NaN when no run has it. */
const figure = (runs, pick) =>
  median(
    runs.map((run) => {
      try {
        return pick(run)
      } catch {
        return Number.NaN
      }
    })
  )

const show = (value, digits = 0, unit = '') =>
  Number.isFinite(value) ? `${value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })}${unit}` : '–'
const times = (value, digits = 2) => show(value, digits, '×')

export function writeReport() {
  const before = { scale: load('before', 'scale'), stream: load('before', 'stream') }
  const after = { scale: load('after', 'scale'), stream: load('after', 'stream') }
  const latest = [...after.scale, ...after.stream, ...before.scale, ...before.stream][0]
  const runs = (column, bench) => `${column[bench].length} result file${column[bench].length === 1 ? '' : 's'}`
  const lines = []
  const say = (text = '') => lines.push(text)
  /** One row: a label, then the figure before and after, then the goal. */
  const row = (label, bench, pick, format, goal = '') =>
    say(`| ${label} | ${format(figure(before[bench], pick))} | ${format(figure(after[bench], pick))} | ${goal} |`)

  say('# Benchmarks')
  say()
  say('Written by `node bench/report.mjs` (and by `npm run bench -- --write`, `npm run bench:stream -- --write`) from the runs saved')
  say('in `bench/results/`; printed figures, not assertions. Every figure that matters is a ratio to a baseline measured in the')
  say('same run, on the same machine, with the same load generator, so that it means the same on other hardware. Re-run on your')
  say('own hardware before sizing a deployment (docs/deployment.md).')
  say()
  const loads = [...before.scale, ...after.scale].flatMap((run) => Object.values(run.rps ?? {}).flatMap((block) => block.loadavg ?? []))
  const loadRange = loads.length > 0 ? `${Math.min(...loads).toFixed(0)}–${Math.max(...loads).toFixed(0)}` : 'unknown'
  say(`- Machine: ${latest?.machine ?? 'unknown'}. It was shared: other work ran beside the benches (load averages of`)
  say(`  ${loadRange} on 2 cores during the req/s runs), so absolute figures vary by up to 2× from run to run; each column is`)
  say('  the median of several runs, each run the median of interleaved rounds, and ratios are taken per run between')
  say('  neighbouring measurements before their median is taken, so they vary much less.')
  say(
    `- Before: the build of commit 3794c18, before issue 15 (${runs(before, 'scale')} of \`npm run bench\`, ${runs(before, 'stream')} of \`npm run bench:stream\`).`
  )
  say(`- After: the current build (${runs(after, 'scale')} of \`npm run bench\`, ${runs(after, 'stream')} of \`npm run bench:stream\`).`)
  say('- Server: one node, `server/dist/main.js`, `NODE_ENV=production`, access log to a file; load from other processes on loopback.')
  say()
  say('Run them (after `npm run build`; PostgreSQL and Redis on 127.0.0.1 for their rows):')
  say()
  say('```sh')
  say('npm run bench                          # req/s ratios, 5,000 held streams, idle RSS over 1 min; prints only')
  say("npm run bench -- --idle-minutes 10     # the issue's ten idle minutes")
  say('npm run bench:stream                   # stream latency, first delta, deltas/s and CPU per delta at 1, 20, 200 streams')
  say('npm run bench -- --write               # also saves bench/results/after-scale.json and rewrites this file')
  say('npm run bench -- --server /tmp/base/server/dist/main.js --json bench/results/before-scale-1.json   # another build')
  say("node bench/profile.mjs --endpoint user/info   # where the server's CPU goes under load")
  say('```')
  say()

  say('## Requests per second')
  say()
  say('The baseline is a bare Hono JSON endpoint on `@hono/node-server` (`bench/bare.mjs`). Two load generators, each in a')
  say('process of its own: wrk (C, one thread) and autocannon (Node); keep-alive, 64 connections, POST `{}`, 4 s per run, only')
  say('2xx answers counted. Each round measures bare, user/info and topic/list with both generators back to back; each ratio')
  say("divides by the bare figure of the same generator. The headline ratio is wrk's: it needs the least CPU per request, and")
  say('on a 2-core machine shared with other work the CPU a generator uses is taken from the server. Whether the generator is')
  say('the limit shows in the CPU shares of the bare runs (utime + stime from `/proc` ÷ wall time, in % of one core): wrk used')
  say('a fraction of its core, so it always had more to give; what the bare server did per CPU-second of its own (second table)')
  say("is the machine's real figure for bare Hono (28k–46k req/s here on a quiet machine). autocannon needs two to three times")
  say("wrk's CPU per request, so on a busy machine it reads the bare endpoint lower: it is the second opinion. (The old")
  say("hand-rolled loop ran in the bench's own process and reached 2,986 req/s, so its ratios looked ten times better than")
  say('they were.) PostgreSQL rows use a scratch database that the run creates and drops; Redis rows a key prefix of their own.')
  say()
  say(
    '| Backend | Endpoint | Before: req/s (wrk / autocannon) | Before: ÷ bare (**wrk** / autocannon) | After: req/s (wrk / autocannon) | After: ÷ bare (**wrk** / autocannon) | Goal |'
  )
  say('| --- | --- | ---: | ---: | ---: | ---: | ---: |')
  for (const backend of ['pglite', 'postgres', 'postgres+redis']) {
    const name = { pglite: 'PGlite (embedded default)', postgres: 'PostgreSQL', 'postgres+redis': 'PostgreSQL + Redis' }[backend]
    const of = (column, pick) => figure(column.scale, (r) => pick(r.rps[backend]))
    const rps = (column, endpoint) => `${show(of(column, (b) => b.wrk.medians[endpoint]))} / ${show(of(column, (b) => b.autocannon.medians[endpoint]))}`
    const ratio = (column, endpoint) => {
      const by = (g) => of(column, (b) => b[g].medians[endpoint] / b[g].medians.bare)
      return `**${times(by('wrk'), 3)}** / ${times(by('autocannon'), 3)}`
    }
    const cpu = (column) => {
      const share = (pick) => show(100 * of(column, (b) => median(pick(b))), 0, ' %')
      return `CPU, server ${share((b) => b.wrk.serverCpu.bare)} / wrk ${share((b) => b.wrk.generatorCpu.bare)}`
    }
    say(`| ${name} | bare Hono | ${rps(before, 'bare')} | ${cpu(before)} | ${rps(after, 'bare')} | ${cpu(after)} | |`)
    for (const endpoint of ['user/info', 'topic/list']) {
      say(
        `| ${name} | POST ${endpoint} | ${rps(before, endpoint)} | ${ratio(before, endpoint)} | ${rps(after, endpoint)} | ${ratio(after, endpoint)} | ≥ 0.5× |`
      )
    }
  }
  say()
  say('On a machine this busy the server rarely gets a whole core, so the same figures per CPU-second of the server process')
  say("(req/s ÷ its CPU share, wrk's runs) say what each request costs whatever CPU the server was given; on PostgreSQL they")
  say("leave out the database server's own CPU, so there they flatter the server.")
  say()
  say('| Backend | Endpoint | Before: req per server CPU-s | Before: ÷ bare | After: req per server CPU-s | After: ÷ bare |')
  say('| --- | --- | ---: | ---: | ---: | ---: |')
  for (const backend of ['pglite', 'postgres', 'postgres+redis']) {
    const name = { pglite: 'PGlite (embedded default)', postgres: 'PostgreSQL', 'postgres+redis': 'PostgreSQL + Redis' }[backend]
    const cells = (column, endpoint) => {
      const perCpu = (r) => perCpuSecond(r.rps[backend].wrk)
      return `${show(figure(column.scale, (r) => perCpu(r)[endpoint]))} | ${times(
        figure(column.scale, (r) => perCpu(r)[endpoint] / perCpu(r).bare),
        3
      )}`
    }
    for (const endpoint of ['bare', 'user/info', 'topic/list']) {
      say(`| ${name} | ${endpoint === 'bare' ? 'bare Hono' : `POST ${endpoint}`} | ${cells(before, endpoint)} | ${cells(after, endpoint)} |`)
    }
  }
  say()
  say('user/info and topic/list authenticate (a session) and read the database; the bare endpoint does neither, so each ratio')
  say('is the cost of the middleware, auth, the database and the envelope.')
  say()

  say('## Streaming (`npm run bench:stream`)')
  say()
  say('A fake OpenAI-compatible upstream (`bench/upstream.mjs`, its own process) gives every request its own reply of 500 deltas,')
  say("the first at once and then one every 2 ms. The baseline is a bare relay (`bench/relay.mjs`: pipes the upstream's bytes,")
  say('no auth, parsing or storage), measured in the same run against the same upstream; rounds alternate relay / Lingxi, 3')
  say('rounds each. Each delta carries the CLOCK_MONOTONIC time the upstream wrote it, so its latency to the client is exact')
  say('across processes. Through Lingxi a stream is `topic/message/send` then `sse/subscribe/{requestId}` (both timed in')
  say('"send → first delta"); the streams belong to 20 accounts. CPU is the server process\'s utime + stime (`/proc`, all')
  say('threads) over the round ÷ deltas delivered. Cells: **Lingxi ÷ relay** (Lingxi, relay).')
  say()
  say('| Streams | Measure | Before | After | Goal |')
  say('| ---: | --- | ---: | ---: | ---: |')
  for (const n of [1, 20, 200]) {
    const measure = (label, m, digits, goal) => {
      const cell = (column) => {
        const pick = (who) => figure(column.stream, (r) => r.results[n][who][m])
        const ratio = figure(column.stream, (r) => r.results[n].lingxi[m] / r.results[n].relay[m])
        return `**${times(ratio)}** (${show(pick('lingxi'), digits)}, ${show(pick('relay'), digits)})`
      }
      say(`| ${n} | ${label} | ${cell(before)} | ${cell(after)} | ${goal} |`)
    }
    measure('delta latency, mean ms', 'latencyMeanMs', 2, '≤ 1.1×')
    measure('send → first delta ms', 'firstDeltaMs', 1, '≤ 1.5×')
    measure('deltas/s', 'deltasPerS', 0, '≥ 0.9×')
    measure('CPU µs per delta', 'cpuPerDeltaUs', 0, '≤ 2×')
    measure('delta latency, p99 ms', 'latencyP99Ms', 1, n === 200 ? 'Lingxi ≤ 60 ms' : '')
    const lost = (column) => show(figure(column.stream, (r) => r.results[n].lingxi.lost))
    say(`| ${n} | deltas lost through Lingxi | ${lost(before)} | ${lost(after)} | 0 |`)
  }
  say()

  say('## Independent streams held by one node')
  say()
  say('5,000 separate sends, each its own reply from the fake upstream, never one reply fanned out. The upstream sends each')
  say("reply's first delta at once and holds the rest until every stream is open, then releases them: every stream must get")
  say('all 6 deltas and the final `done` event. Memory per stream = (server RSS with all open − RSS before the first send) ÷')
  say('streams open. The streams belong to 50 accounts (100 each, one topic per stream; a topic streams one reply at a time);')
  say('the bench sets `CHAT_TIMEOUT_MS` and `CHAT_IDLE_TIMEOUT_MS` to 10 minutes so the held replies outlast the opening.')
  say('Opening stops after 240 s (64 sends in flight at a time): streams not open by then count as not opened.')
  say()
  say('| Measure | Before | After | Goal |')
  say('| --- | ---: | ---: | ---: |')
  row('streams opened (of 5,000)', 'scale', (r) => r.held.opened, show, '5,000')
  row(
    'time spent opening',
    'scale',
    (r) => r.held.openS,
    (v) => show(v, 1, ' s')
  )
  row(
    'server RSS with all open',
    'scale',
    (r) => r.held.rssHeldMb,
    (v) => show(v, 0, ' MB')
  )
  row(
    '**memory per stream**',
    'scale',
    (r) => r.held.perStreamKb,
    (v) => `**${show(v, 1, ' KB')}**`,
    '≤ 100 KB'
  )
  row('events lost', 'scale', (r) => r.held.lost, show, '0')
  row('streams without their final event', 'scale', (r) => r.held.withoutFinal, show, '0')
  say()

  say('## Idle memory and restart (embedded default)')
  say()
  say('RSS of a server on a fresh data directory, right after it listens and while nothing uses it; then 5 s after a restart')
  say("on the data it made. `npm run bench -- --idle-minutes 10` for the issue's ten minutes.")
  say()
  say('| Measure | Before | After | Goal |')
  say('| --- | ---: | ---: | ---: |')
  const minutes = (column) =>
    show(
      figure(column.scale, (r) => r.idle.seconds / 60),
      0
    )
  row(
    'RSS right after the first start',
    'scale',
    (r) => r.idle.startMb,
    (v) => show(v, 0, ' MB'),
    '≤ 400 MB'
  )
  row(
    `RSS at the end of the idle period (before: ${minutes(before)} min, after: ${minutes(after)} min)`,
    'scale',
    (r) => r.idle.endMb,
    (v) => show(v, 0, ' MB'),
    '≤ 400 MB, not growing'
  )
  row(
    'RSS 5 s after a later start',
    'scale',
    (r) => r.idle.laterStartMb,
    (v) => show(v, 0, ' MB'),
    '≤ 400 MB'
  )
  row(
    'start to listening, first start',
    'scale',
    (r) => r.idle.startMs,
    (v) => show(v, 0, ' ms')
  )
  row(
    'start to listening, later start',
    'scale',
    (r) => r.idle.laterStartMs,
    (v) => show(v, 0, ' ms')
  )
  row(
    'SIGTERM to exit, idle',
    'scale',
    (r) => r.idle.stopMs,
    (v) => show(v, 0, ' ms')
  )
  say()
  const profiles = { before: load('before', 'profile'), after: load('after', 'profile') }
  if (profiles.before.length + profiles.after.length > 0) {
    say("## Where the server's CPU goes")
    say()
    say('`node bench/profile.mjs`: the server under `--cpu-prof` while autocannon drives POST user/info on PGlite; self time of')
    say("the samples taken during the load (not the start-up), grouped by package; `node: internal` is Node's own JavaScript")
    say('(HTTP, streams, Web Request/Response), `native:` its C++ (`writev`: socket and log writes); `worker:` marks another')
    say('thread of the same process (shares are of the time sampled on all threads, idle included). The ten largest of each column.')
    say()
    const share = (column, name) =>
      show(
        figure(profiles[column], (r) => r.packages[name] ?? 0),
        1,
        ' %'
      )
    const largest = (column) =>
      Object.entries(profiles[column][0]?.packages ?? {})
        .slice(0, 10)
        .map(([name]) => name)
    say('| Where | Before | After |')
    say('| --- | ---: | ---: |')
    for (const name of new Set([...largest('before'), ...largest('after')])) say(`| ${name} | ${share('before', name)} | ${share('after', name)} |`)
    const rps = (column) => show(figure(profiles[column], (r) => r.rps))
    say(`| req/s while profiled | ${rps('before')} | ${rps('after')} |`)
    say()
  }
  // Figures measured by other means than these runs (CPU time per request, heap snapshots, same-run
  // before/after of one change), written by hand: kept through every rewrite.
  const notes = fileURLToPath(new URL('./notes.md', import.meta.url))
  if (existsSync(notes)) say(readFileSync(notes, 'utf8').trimEnd())
  writeFileSync(DOC, `${lines.join('\n')}\n`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeReport()
  console.log(`wrote ${DOC}`)
}
