// What the proxy suites share: free ports, polling, real server processes (`node server/dist/main.js`)
// and nginx running deploy/nginx.conf with only the lines marked `# test:` replaced.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const serverMain = join(root, 'server/dist/main.js')
export const nginxBin = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p))

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

export async function freePort() {
  const srv = createServer()
  await new Promise((r) => srv.listen(0, '127.0.0.1', r))
  const { port } = srv.address()
  await new Promise((r) => srv.close(r))
  return port
}

export async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`)
    await sleep(50)
  }
}

/**
 * Starts a server process with `env` and resolves once it printed its URL. `onSpawn(node)` runs
 * before the wait, so a caller can register the process for clean-up even if it never starts;
 * `onLine(line)` sees each chunk's lines of stdout (the console SMS lines).
 */
export async function startNode(name, port, env, { onSpawn, onLine } = {}) {
  const started = Date.now()
  const child = spawn(process.execPath, [serverMain], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const node = { name, port, url: `http://127.0.0.1:${port}`, child, out: '', exit: undefined }
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  child.stdout.on('data', (chunk) => {
    node.out += chunk
    if (onLine) for (const line of chunk.split('\n')) onLine(line)
  })
  child.stderr.on('data', (chunk) => (node.out += chunk))
  node.exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      node.exit = { code, signal }
      resolve(node.exit)
    })
  })
  onSpawn?.(node)
  await until(() => node.out.includes('Lingxi is running at') || node.exit, 30_000, `${name} to start`)
  if (node.exit) throw new Error(`${name} did not start:\n${node.out}`)
  node.startMs = Date.now() - started
  return node
}

/** nginx on 127.0.0.1:`port` in front of the nodes on `ports` (one per `# test: node` line), files under `dir`. */
export function startNginx(dir, ports, port) {
  const conf = readFileSync(join(root, 'deploy/nginx.conf'), 'utf8')
  mkdirSync(join(dir, 'tmp'), { recursive: true })
  // Started as root, nginx's workers run as nobody and buffer request bodies over 16 KB in tmp/:
  // the (mkdtemp, owner-only) directories on the way there must let them through.
  chmodSync(dirname(dir), 0o711)
  chmodSync(dir, 0o711)
  chmodSync(join(dir, 'tmp'), 0o777)
  let i = 0
  const text = conf
    .split('\n')
    .map((line) => {
      if (!line.includes('# test:')) return line
      const indent = line.match(/^\s*/)[0]
      const kind = line.split('# test:')[1].trim()
      if (kind === 'pid') return `${indent}pid ${join(dir, 'nginx.pid')};`
      if (kind === 'error_log') return `${indent}error_log ${join(dir, 'error.log')} warn;`
      if (kind === 'access_log') return `${indent}access_log ${join(dir, 'access.log')};`
      if (kind === 'temp') return line.replace(/\/var\/cache\/nginx\/(\w+)/, `${join(dir, 'tmp')}/$1`).replace('# test: temp', '')
      if (kind === 'node') return line.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${ports[i++]}`)
      if (kind === 'listen') return `${indent}listen 127.0.0.1:${port};`
      return line
    })
    .join('\n')
  assert.equal(i, ports.length, 'deploy/nginx.conf names one `# test: node` line per node')
  const file = join(dir, 'nginx.conf')
  writeFileSync(file, text)
  const check = spawnSync(nginxBin, ['-t', '-p', dir, '-c', file], { encoding: 'utf8' })
  assert.equal(check.status, 0, `nginx -t: ${check.stderr}`)
  const child = spawn(nginxBin, ['-p', dir, '-c', file, '-g', 'daemon off; master_process on;'], { stdio: ['ignore', 'inherit', 'inherit'] })
  return child
}
