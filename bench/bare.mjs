// A bare Hono JSON endpoint on @hono/node-server: the baseline of npm run bench (bench/scale.mjs).
//
// POST /floor is the least an authenticated user/info can do with what Lingxi promises of every
// request, written straight into one handler with no middleware chain and nothing general: a request
// id (answered, and in the log context across awaits: AsyncLocalStorage), the security and no-store
// headers, the JSON body read from Node's stream and parsed, the bearer token's sha256 looked up in
// a map (the session cache), the balances from a map, the answer's envelope, the request counted
// and timed (prom-client) and its access-log line (buffered). It is not a server anyone could run;
// it shows how close to the bare endpoint user/info could ever come (bench/cpu-request.mjs --floor).
import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash, randomUUID } from 'node:crypto'
import { openSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

// The server's own prom-client (a dependency of server/, not of this root package).
const { Counter, Histogram, Registry } = createRequire(new URL('../server/package.json', import.meta.url))('prom-client')

const app = new Hono()
app.post('/json', (c) => c.json({ code: 2000, message: '操作成功', data: { ok: true } }))

const context = new AsyncLocalStorage()
const registry = new Registry()
const requests = new Counter({ name: 'requests', help: 'requests', labelNames: ['method', 'route', 'status'], registers: [registry] })
const duration = new Histogram({
  name: 'duration',
  help: 'seconds',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry]
})
const sessions = new Map()
const balances = new Map()
// The log goes where nobody reads it, but with the one write per turn of the event loop that Lingxi makes.
const devNull = openSync('/dev/null', 'w')
let lines = ''
const flush = () => {
  writeSync(devNull, lines)
  lines = ''
}
const bodyOf = (incoming) =>
  new Promise((resolve, reject) => {
    const chunks = []
    incoming.on('data', (chunk) => chunks.push(chunk))
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    incoming.on('error', reject)
  })
app.post('/floor', (c) => {
  const started = performance.now()
  const requestId = randomUUID()
  return context.run({ requestId }, async () => {
    const incoming = c.env.incoming
    const body = JSON.parse((await bodyOf(incoming)) || '{}')
    if (typeof body !== 'object' || body === null) return c.json({ code: 40000001, message: '请求体必须是 JSON 对象', data: null }, 400)
    const token = /^Bearer\s+(.+)$/.exec(incoming.headers.authorization ?? '')?.[1] ?? ''
    const hash = createHash('sha256').update(token).digest('hex')
    let session = sessions.get(hash)
    if (!session) {
      session = {
        accountId: hash.slice(0, 32),
        phone: '13800138000',
        nickName: '用户',
        avatarUrl: '',
        state: 1,
        permissionCodes: ['AI_TOOLS_CHAT', 'AI_TOOLS_MJ']
      }
      sessions.set(hash, session)
      balances.set(session.accountId, { tokens: 100000, mjCount: 10, sunoCount: 10 })
    }
    const answer = c.json({ code: 2000, message: '操作成功', data: { ...session, userId: session.accountId, ...balances.get(session.accountId) } }, 200, {
      'X-Request-Id': requestId,
      Vary: 'Accept-Encoding, Origin',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
      'Cache-Control': 'no-store'
    })
    const labels = { method: 'POST', route: '/floor', status: 200 }
    const seconds = (performance.now() - started) / 1000
    requests.inc(labels)
    duration.observe(labels, seconds)
    const line = {
      time: new Date().toISOString(),
      level: 'info',
      msg: 'request',
      requestId,
      method: 'POST',
      route: '/floor',
      status: 200,
      durationMs: seconds * 1000
    }
    if (lines === '') setImmediate(flush)
    lines += `${JSON.stringify(line)}\n`
    return answer
  })
})

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 8799), hostname: '127.0.0.1' }, () => console.log('bare listening'))
