// CPU time per request, which a busy machine disturbs far less than req/s: two builds of the server
// and the bare Hono endpoint (bench/bare.mjs), each in its own process, driven in interleaved rounds
// by this process (16 keep-alive connections, POST {}); the figure is the server process's utime +
// stime (/proc, all threads, the database worker included) over a round ÷ the round's requests.
// The first round warms up and is not counted. Printed only.
//
//   node bench/cpu-request.mjs --before /tmp/base/server/dist/main.js [--after server/dist/main.js]
//     [--endpoints user/info,ai-chat/topic/list] [--requests 2000] [--rounds 5] [--later-start] [--progress]
//     [--accept-encoding "gzip, deflate, br"]   (as a browser asks: answers above 1 KB come compressed)
//     [--floor]   (also bench/bare.mjs's POST /floor: the least user/info could cost, see there)
import { rmSync } from 'node:fs'
import http from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { cpuMicros, flags, freePort, inParallel, loginMany, median, root, startLingxi, startProcess, stopProcess } from './lib.mjs'

const args = flags()
const builds = Object.fromEntries(
  [
    ['before', args.value('before', undefined)],
    ['after', args.value('after', join(root, 'server/dist/main.js'))]
  ]
    .filter(([, main]) => typeof main === 'string')
    .map(([name, main]) => [name, resolve(main)])
)
const REQUESTS = Number(args.value('requests', 2000))
const ROUNDS = Number(args.value('rounds', 5))
const ENDPOINTS = String(args.value('endpoints', 'user/info')).split(',')
const ACCEPT_ENCODING = args.value('accept-encoding', undefined)

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })
const post = (url, token) =>
  new Promise((done, fail) => {
    const headers = {
      'content-type': 'application/json',
      ...(typeof ACCEPT_ENCODING === 'string' ? { 'accept-encoding': ACCEPT_ENCODING } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {})
    }
    const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
      res.resume()
      res.on('end', () => (res.statusCode === 200 ? done() : fail(new Error(`${url} answered ${res.statusCode}`))))
    })
    req.on('error', fail)
    req.end('{}')
  })

const servers = {}
for (const [name, main] of Object.entries(builds)) {
  const dataDir = join(tmpdir(), `lingxi-cpu-${name}-${process.pid}`)
  let lingxi = await startLingxi({ main, dataDir, phones: 4 })
  const tokens = await loginMany(lingxi.url, 4)
  if (args.has('later-start')) {
    // Measured on a later start (the data directory exists), not the first.
    await stopProcess(lingxi.child)
    lingxi = await startLingxi({ main, dataDir, phones: 4 })
  }
  servers[name] = { ...lingxi, dataDir, tokens }
}
const barePort = await freePort()
const bare = await startProcess('bare', [join(root, 'bench/bare.mjs')], { env: { ...process.env, PORT: String(barePort) }, ready: /bare listening/ })

const floorTokens = ['a', 'b', 'c', 'd'].map((t) => t.repeat(43))
const runs = {}
async function measure(name, pid, url, tokens) {
  const before = cpuMicros(pid)
  await inParallel(REQUESTS, 16, (i) => post(url, tokens?.[i % tokens.length]))
  runs[name] ??= []
  runs[name].push((cpuMicros(pid) - before) / REQUESTS)
  // As it goes, so that a run cut short on a busy machine still leaves its rounds.
  if (args.has('progress')) console.log(`  ${name}: ${runs[name].at(-1).toFixed(0)} µs (load average ${loadavg()[0].toFixed(1)})`)
}
for (let round = 0; round <= ROUNDS; round++) {
  for (const endpoint of ENDPOINTS)
    for (const [name, s] of Object.entries(servers)) await measure(`${name} ${endpoint}`, s.pid, `${s.url}/api/v1/${endpoint}`, s.tokens)
  await measure('bare Hono', bare.pid, `http://127.0.0.1:${barePort}/json`)
  if (args.has('floor')) await measure('floor of user/info', bare.pid, `http://127.0.0.1:${barePort}/floor`, floorTokens)
  if (round === 0) for (const name of Object.keys(runs)) runs[name] = []
}
const bareUs = median(runs['bare Hono'])
console.log(`server CPU µs per request (median of ${ROUNDS} rounds of ${REQUESTS}); bare ÷ it is the ratio to the bare endpoint`)
for (const [name, values] of Object.entries(runs))
  console.log(
    `${name.padEnd(32)} ${median(values).toFixed(0).padStart(6)} µs   ÷ bare ${(bareUs / median(values)).toFixed(3)}   rounds ${values.map((v) => v.toFixed(0)).join(' ')}`
  )
for (const s of Object.values(servers)) {
  await stopProcess(s.child)
  rmSync(s.dataDir, { recursive: true, force: true })
}
await stopProcess(bare)
agent.destroy()
