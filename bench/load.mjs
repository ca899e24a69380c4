// The HTTP load generators of npm run bench, each in a process of its own (never the bench's own
// event loop, which the old hand-rolled loop shared with everything else and which capped it at
// ~3k req/s): wrk (C, one thread) and autocannon (Node).
//
// Each run also reports how busy the generator and the server were (CPU time ÷ wall time, from
// /proc): a server near 100 % of a core while the generator has CPU to spare is the evidence that
// the figure is the server's, not the generator's.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cpuMicros, root } from './lib.mjs'

/** Runs a command to its end; resolves with its output and the CPU time it used (sampled from /proc every 50 ms). */
function measured(command, args) {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let cpu = 0
    const sample = () => {
      try {
        cpu = cpuMicros(child.pid)
      } catch {}
    }
    const sampler = setInterval(sample, 50)
    child.stdout.setEncoding('utf8').on('data', (text) => {
      stdout += text
      // The generators print their result as they finish: the last moment to read their CPU time.
      sample()
    })
    child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text))
    child.on('error', (error) => {
      clearInterval(sampler)
      fail(error)
    })
    // 'close', not 'exit': the output may still be in the pipe when the process exits.
    child.on('close', (code) => {
      clearInterval(sampler)
      if (code === 0) done({ stdout, cpuS: cpu / 1e6 })
      else fail(new Error(`${command} exited with ${code}: ${stderr.slice(0, 500)}`))
    })
  })
}

/** Wraps a generator run with the server's CPU time over the same period. */
async function withServerCpu(serverPid, seconds, run) {
  const before = serverPid ? cpuMicros(serverPid) : 0
  const result = await run()
  if (!result) return result
  const serverCpu = serverPid ? (cpuMicros(serverPid) - before) / 1e6 / seconds : Number.NaN
  return { ...result, serverCpu, generatorCpu: result.cpuS / seconds }
}

/**
 * POSTs `{}` to `url` over `connections` keep-alive connections for `seconds`; returns req/s of
 * answers with status 2xx, and the count of anything else (a failing endpoint must not look fast).
 * `serverPid`: the process whose CPU share is reported.
 */
export function autocannon(url, { token, connections = 64, seconds = 5, serverPid } = {}) {
  const options = {
    url,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: '{}'
  }
  return withServerCpu(serverPid, seconds, async () => {
    const { stdout, cpuS } = await measured(process.execPath, [join(root, 'bench/autocannon-run.mjs'), JSON.stringify(options)])
    const result = JSON.parse(stdout)
    return { rps: result['2xx'] / result.duration, failed: result.non2xx + result.errors + result.timeouts, cpuS }
  })
}

let wrkAvailable
/** The same load from wrk; undefined when wrk is not installed (`apt-get install -y wrk`). */
export async function wrk(url, { token, connections = 64, seconds = 5, serverPid } = {}) {
  if (wrkAvailable === undefined) {
    wrkAvailable = await measured('wrk', ['--version']).then(
      () => true,
      (error) => error.code !== 'ENOENT'
    )
  }
  if (!wrkAvailable) return undefined
  const script = join(tmpdir(), `lingxi-bench-wrk-${process.pid}.lua`)
  writeFileSync(
    script,
    [
      'wrk.method = "POST"',
      'wrk.body = "{}"',
      'wrk.headers["Content-Type"] = "application/json"',
      token ? `wrk.headers["Authorization"] = "Bearer ${token}"` : ''
    ]
      .filter(Boolean)
      .join('\n')
  )
  return withServerCpu(serverPid, seconds, async () => {
    // A 10 s timeout like autocannon's: a slow answer is slow, not a failure.
    const { stdout, cpuS } = await measured('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, url])
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)[1])
    const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)?.slice(1) ?? []
    const failed = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0) + socketErrors.reduce((sum, n) => sum + Number(n), 0)
    // wrk counts every answer in Requests/sec; the failed ones are taken out so it compares with autocannon's 2xx.
    const total = Number(/(\d+) requests in ([\d.]+)s/.exec(stdout)[1])
    return { rps: (rps * (total - failed)) / Math.max(total, 1), failed, cpuS }
  })
}
