// Behind the proxy (issue 13, item 9): one real server process (`node server/dist/main.js`, on the
// embedded PGlite, so no PostgreSQL is needed) behind nginx running deploy/nginx.conf, whose upstream
// keeps connections alive. Requests the node refuses before reading their body (a large POST while
// logged out, a body over the 1 MB limit) must leave no connection nginx would reuse half-read or
// closed: small requests sent at the same moment all get their answer, never nginx's 502.
// Run with `node --test tests/multinode/` after `npm run build`. Without nginx or the build the file
// is skipped, unless MULTINODE_REQUIRED=1 (CI), when that is a failure.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { freePort, nginxBin, serverMain, startNginx, startNode, until } from './helpers.mjs'

const missing = [!nginxBin && 'nginx', !existsSync(serverMain) && 'the server build (npm run build)'].filter(Boolean)
if (missing.length && process.env.MULTINODE_REQUIRED === '1') throw new Error(`proxy test needs ${missing.join(', ')}`)
const skip = missing.length ? `needs ${missing.join(', ')}` : false

let work
const smsLines = []
let node
let nginx
let proxyUrl

function nodeEnv(port) {
  const env = { ...process.env }
  // Always the embedded database and in-process queue and bus, whatever the suite runs on elsewhere.
  delete env.DATABASE_URL
  delete env.REDIS_URL
  return {
    ...env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: join(work, 'data'),
    PUBLIC_URL: proxyUrl,
    TRUST_PROXY: '1',
    SMS_PROVIDER: 'console',
    STATIC_ROOT: join(work, 'no-site'),
    NODE_ENV: 'test'
  }
}

/** One request on its own client connection (no client keep-alive): what is measured is nginx's upstream side. */
function call(method, path, { body, token } = {}) {
  const data = body === undefined ? undefined : Buffer.from(body)
  const headers = { 'Content-Type': 'application/json' }
  if (data) headers['Content-Length'] = data.length
  if (token) headers.Authorization = `Bearer ${token}`
  return new Promise((resolve) => {
    const req = httpRequest(`${proxyUrl}${path}`, { method, headers, agent: false, timeout: 30_000 })
    req.on('timeout', () => req.destroy(new Error('timed out')))
    req.on('error', (error) => resolve({ status: 0, text: String(error) }))
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('error', (error) => resolve({ status: 0, text: String(error) }))
      res.on('end', () => {
        let json
        try {
          json = JSON.parse(text)
        } catch {}
        resolve({ status: res.statusCode, json, text })
      })
    })
    req.end(data)
  })
}

async function login() {
  const phone = '13700000001'
  const sent = await call('POST', '/api/v1/auth/send-sms-code', { body: JSON.stringify({ enCode: '86', phone, smsType: 'LOGIN', imgVerifyState: 1 }) })
  assert.equal(sent.json?.code, 2000, sent.text)
  const code = await until(() => smsLines.map((l) => l.match(/^\[sms\] \+86 13700000001 (\d{4})/)).find(Boolean)?.[1], 5000, 'the SMS code')
  const res = await call('POST', '/api/v1/auth/login', { body: JSON.stringify({ enCode: '86', phone, code, platform: 'PC' }) })
  assert.equal(res.json?.code, 2000, res.text)
  return res.json.data.accessToken
}

describe('one node behind nginx (deploy/nginx.conf)', { skip, timeout: 120_000 }, () => {
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'lingxi-proxy-'))
    const [port, proxy] = [await freePort(), await freePort()]
    proxyUrl = `http://127.0.0.1:${proxy}`
    node = await startNode('node', port, nodeEnv(port), {
      onLine: (line) => {
        if (line.startsWith('[sms]')) smsLines.push(line)
      }
    })
    // The config names two nodes; both lines point at the one node here.
    nginx = startNginx(join(work, 'nginx'), [port, port], proxy)
    await until(async () => (await fetch(`${proxyUrl}/api/openapi.json`).catch(() => undefined))?.ok, 10_000, 'nginx')
  })

  after(async () => {
    if (nginx && nginx.exitCode === null && nginx.signalCode === null) {
      const exited = new Promise((resolve) => nginx.once('exit', resolve))
      nginx.kill('SIGTERM')
      await exited
    }
    if (node && !node.exit) node.child.kill('SIGKILL')
    await node?.exited
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('refused large bodies (401 before the body, 413 over the limit) cost no other request a 502', async () => {
    const token = await login()
    const anonymous = JSON.stringify({ pad: 'x'.repeat(300 * 1024) })
    const oversized = JSON.stringify({ enCode: '86', phone: '13800138000', pad: 'x'.repeat(1100 * 1024) })
    const answers = []
    const send = (kind, ...args) => call(...args).then((r) => answers.push({ kind, ...r }))
    const t0 = Date.now()
    // Two bursts, each of 400 small requests with 40 refused large ones spread among them, all at once:
    // the second burst finds nginx's pool full of connections the first one left behind.
    for (let round = 0; round < 2; round++) {
      const burst = []
      for (let i = 0; i < 440; i++) {
        if (i % 11 === 0) burst.push(send('anonymous', 'POST', '/api/v1/user/info', { body: anonymous }))
        else if (i % 11 === 6) burst.push(send('oversized', 'POST', '/api/v1/auth/send-sms-code', { body: oversized }))
        else if (i % 2) burst.push(send('info', 'POST', '/api/v1/user/info', { body: '{}', token }))
        else burst.push(send('config', 'GET', '/config/system.json'))
      }
      await Promise.all(burst)
    }
    const tookMs = Date.now() - t0
    const badGateway = answers.filter((r) => r.status === 502)
    const upstreamErrors = readFileSync(join(work, 'nginx', 'error.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('upstream'))
    console.log(`${answers.length} requests in ${tookMs} ms: ${badGateway.length} answered 502 by nginx`)
    assert.equal(badGateway.length, 0, `${badGateway.length} of ${answers.length} answered 502; nginx said:\n${upstreamErrors.slice(0, 5).join('\n')}`)
    const expected = {
      anonymous: [401, 50011004],
      oversized: [413, 40000003],
      info: [200, 2000],
      config: [200, undefined]
    }
    const wrong = answers.filter((r) => r.status !== expected[r.kind][0] || r.json?.code !== expected[r.kind][1])
    assert.deepEqual(
      wrong.map((r) => `${r.kind}: ${r.status} ${r.text.slice(0, 100)}`),
      [],
      'every request got its own answer'
    )
    assert.deepEqual(upstreamErrors, [], 'nginx logged no upstream error')
    assert.equal(node.exit, undefined, 'the node is still running')
  })
})
