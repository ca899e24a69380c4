// Multi-node proof (issue 7): two real server processes (`node server/dist/main.js`) on one
// PostgreSQL database and one Redis, behind nginx running deploy/nginx.conf. Run with
//   DATABASE_URL=postgres://… REDIS_URL=redis://… node --test tests/multinode/
// (npm run test:multinode builds the server first). Without DATABASE_URL, REDIS_URL or nginx the
// file is skipped, unless MULTINODE_REQUIRED=1 (CI), when that is a failure.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import postgres from 'postgres'
import { freePort, nginxBin, sleep, startNginx as startNginxIn, startNode as spawnNode, until } from './helpers.mjs'

const { DATABASE_URL, REDIS_URL } = process.env
const missing = [!DATABASE_URL && 'DATABASE_URL', !REDIS_URL && 'REDIS_URL', !nginxBin && 'nginx'].filter(Boolean)
if (missing.length && process.env.MULTINODE_REQUIRED === '1') throw new Error(`multi-node test needs ${missing.join(', ')}`)
const skip = missing.length ? `needs ${missing.join(', ')}` : false

const LEASE_MS = 1500

// ---- the cluster --------------------------------------------------------------------------

const run = randomBytes(4).toString('hex')
const work = mkdtempSync(join(tmpdir(), 'lingxi-multinode-'))
const dbName = `lingxi_mn_${run}`
let dbUrl
let admin
const smsLines = []
const nodes = {}
let nginx
let proxyUrl

function nodeEnv(port) {
  return {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    // One files directory stands for the shared storage (S3 in production): a painting job may be
    // drawn on either node, whichever took it from the queue.
    DATA_DIR: join(work, 'data'),
    DATABASE_URL: dbUrl,
    REDIS_URL,
    REDIS_PREFIX: `lingxi_mn_${run}:`,
    UPLOAD_SECRET: `multinode-${run}`,
    PUBLIC_URL: proxyUrl,
    TRUST_PROXY: '1',
    SMS_PROVIDER: 'console',
    CHAT_DEMO_DELAY_MS: '50',
    CHAT_LEASE_MS: String(LEASE_MS),
    PAINTING_DEMO_DELAY_MS: '6000',
    MUSIC_DEMO_DELAY_MS: '1500',
    MUSIC_POLL_MS: '200',
    STATIC_ROOT: join(work, 'no-site'),
    NODE_ENV: 'test'
  }
}

async function startNode(name, port) {
  return spawnNode(name, port, nodeEnv(port), {
    onSpawn: (node) => (nodes[name] = node),
    onLine: (line) => {
      if (line.startsWith('[sms]')) smsLines.push(line)
    }
  })
}

const startNginx = (ports, port) => startNginxIn(join(work, 'nginx'), ports, port)

// ---- clients ------------------------------------------------------------------------------

async function post(base, path, body, token, headers = {}) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body)
  })
  return { status: res.status, body: await res.json() }
}

/**
 * A POST that is provably in flight: on its own connection, with `Expect: 100-continue`, so the
 * server's "100 Continue" shows it has read the request line and headers; the body is sent only
 * when `send()` is called. (A plain fetch started just before a signal may still be queued in the
 * client, or go out on a keep-alive socket the closing server is entitled to drop.)
 */
async function postInFlight(base, path, body, token) {
  const data = Buffer.from(JSON.stringify(body))
  const req = httpRequest(`${base}${path}`, {
    method: 'POST',
    agent: false,
    headers: { 'Content-Type': 'application/json', 'Content-Length': data.length, Expect: '100-continue', Authorization: `Bearer ${token}` }
  })
  const answer = new Promise((resolve, reject) => {
    req.on('error', reject)
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }))
      res.on('error', reject)
    })
  })
  answer.catch(() => {})
  req.flushHeaders()
  await Promise.race([new Promise((resolve) => req.once('continue', resolve)), answer.then(() => assert.fail('answered before the body was sent'))])
  return {
    send: () => {
      req.end(data)
      return answer
    }
  }
}

let phoneSeq = 13600000000 + Math.floor(Math.random() * 1_000_000)
async function login(base) {
  const phone = String(phoneSeq++)
  const sent = await post(base, '/api/v1/auth/send-sms-code', { enCode: '86', phone, smsType: 'LOGIN', imgVerifyState: 1 })
  assert.equal(sent.body.code, 2000, JSON.stringify(sent.body))
  const code = await until(() => smsLines.map((l) => l.match(new RegExp(`^\\[sms\\] \\+86 ${phone} (\\d{4})`))).find(Boolean)?.[1], 5000, 'the SMS code')
  const res = await post(base, '/api/v1/auth/login', { enCode: '86', phone, code, platform: 'PC' })
  assert.equal(res.body.code, 2000, JSON.stringify(res.body))
  return { token: res.body.data.accessToken, accountId: res.body.data.accountId, phone }
}

/** An event-stream reader: frames as they arrive; `next(pred)` waits for one. */
async function sse(base, path, token, headers = {}) {
  const controller = new AbortController()
  const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}`, ...headers }, signal: controller.signal })
  assert.equal(res.status, 200, `${path}: ${res.status}`)
  const stream = { frames: [], ended: false, raw: '', times: [] }
  const decoder = new TextDecoder()
  ;(async () => {
    let buffer = ''
    try {
      for await (const chunk of res.body) {
        const text = decoder.decode(chunk, { stream: true })
        stream.raw += text
        buffer += text
        for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, i)
          buffer = buffer.slice(i + 2)
          const frame = {}
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue
            const j = line.indexOf(': ')
            frame[line.slice(0, j)] = line.slice(j + 2)
          }
          if (frame.event) {
            stream.frames.push(frame)
            stream.times.push(Date.now())
          }
        }
      }
    } catch {}
    stream.ended = true
  })()
  stream.close = () => controller.abort()
  stream.next = (pred, timeoutMs = 15_000, what = 'an event') => until(() => stream.frames.find(pred), timeoutMs, what)
  stream.content = () =>
    stream.frames
      .filter((f) => f.event === 'delta')
      .map((f) => JSON.parse(f.data).content ?? '')
      .join('')
  return stream
}

const CHAT = '/api/v1/ai-chat'
const terminal = (f) => ['done', 'error', 'stopped'].includes(f.event)

async function startReply(base, token, content = '请详细介绍一下灵犀这个产品，越长越好') {
  const topic = await post(base, `${CHAT}/topic/create`, {}, token)
  assert.equal(topic.body.code, 2000, JSON.stringify(topic.body))
  const sent = await post(base, `${CHAT}/topic/message/send`, { topicId: topic.body.data.topicId, content }, token)
  assert.equal(sent.body.code, 2000, JSON.stringify(sent.body))
  return { topicId: topic.body.data.topicId, ...sent.body.data }
}

async function replyRow(replyId) {
  const [row] = await admin`select status, content from chat_messages where id = ${replyId}`
  return row
}

// ---- the proof ------------------------------------------------------------------------------

describe('two nodes behind nginx on PostgreSQL + Redis', { skip, timeout: 240_000 }, () => {
  before(async () => {
    const server = postgres(DATABASE_URL, { max: 1, onnotice: () => {} })
    await server.unsafe(`create database "${dbName}"`)
    await server.end()
    const url = new URL(DATABASE_URL)
    url.pathname = `/${dbName}`
    dbUrl = url.toString()
    admin = postgres(dbUrl, { max: 2, onnotice: () => {} })
    const [a, b, proxy] = [await freePort(), await freePort(), await freePort()]
    proxyUrl = `http://127.0.0.1:${proxy}`
    // One node migrates first; the second finds the schema in place.
    await startNode('A', a)
    await startNode('B', b)
    nginx = startNginx([a, b], proxy)
    await until(async () => (await fetch(`${proxyUrl}/api/openapi.json`).catch(() => undefined))?.ok, 10_000, 'nginx')
  })

  after(async () => {
    nginx?.kill('SIGTERM')
    for (const node of Object.values(nodes)) if (!node.exit) node.child.kill('SIGKILL')
    await Promise.all(Object.values(nodes).map((n) => n.exited))
    await admin?.end()
    if (dbUrl) {
      const server = postgres(DATABASE_URL, { max: 1, onnotice: () => {} })
      await server.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => {})
      await server.end()
    }
    if (REDIS_URL) {
      const { Redis } = await import('ioredis')
      const redis = new Redis(REDIS_URL)
      const keys = await redis.keys(`lingxi_mn_${run}:*`)
      if (keys.length) await redis.del(...keys)
      await redis.quit()
    }
    rmSync(work, { recursive: true, force: true })
  })

  it('streams through nginx without buffering', async () => {
    const me = await login(proxyUrl)
    const reply = await startReply(proxyUrl, me.token)
    const s = await sse(proxyUrl, `${CHAT}/sse/subscribe/${reply.requestId}`, me.token)
    const done = await s.next(terminal, 60_000, 'the end of the reply')
    assert.equal(done.event, 'done')
    const deltas = s.times.length
    assert.ok(deltas > 5, `only ${deltas} events`)
    // Events arrived spread over the reply's duration, not in one buffered lump at the end.
    assert.ok(s.times.at(-1) - s.times[0] > 500, `events arrived within ${s.times.at(-1) - s.times[0]} ms`)
    s.close()
  })

  it('a reply started on node A is followed on node B and resumed there with Last-Event-ID', async () => {
    const { A, B } = nodes
    const me = await login(A.url)
    const reply = await startReply(A.url, me.token)
    const first = await sse(B.url, `${CHAT}/sse/subscribe/${reply.requestId}`, me.token)
    await first.next((f) => Number(f.id) >= 3, 15_000, 'three events on B')
    first.close()
    const seen = first.frames.filter((f) => Number(f.id) <= 3)
    const resumed = await sse(B.url, `${CHAT}/sse/subscribe/${reply.requestId}`, me.token, { 'Last-Event-ID': '3' })
    const end = await resumed.next(terminal, 60_000, 'the end on B')
    assert.equal(end.event, 'done')
    const ids = [...seen, ...resumed.frames].map((f) => Number(f.id))
    assert.deepEqual(
      ids,
      ids.map((_, i) => i + 1),
      'every event once, in order'
    )
    const content = [...seen, ...resumed.frames]
      .filter((f) => f.event === 'delta')
      .map((f) => JSON.parse(f.data).content ?? '')
      .join('')
    const row = await replyRow(reply.replyId)
    assert.equal(row.status, 'complete')
    assert.equal(row.content, content)
  })

  it('logout on node A: the token is refused on its next request on node B (which had it cached) and its stream there ends at once', async () => {
    const { A, B } = nodes
    const me = await login(A.url)
    // Both nodes read the session now and keep it (auth/session-cache.ts).
    for (const node of [A, B]) assert.equal((await post(node.url, '/api/v1/user/info', {}, me.token)).body.code, 2000)
    const channel = await sse(B.url, `${CHAT}/sse/subscribe`, me.token)
    assert.equal((await post(A.url, '/api/v1/auth/logout', {}, me.token)).body.code, 2000)
    assert.equal((await post(B.url, '/api/v1/user/info', {}, me.token)).body.code, 50011006)
    assert.equal((await post(A.url, '/api/v1/user/info', {}, me.token)).body.code, 50011006)
    await until(() => channel.ended, 2000, 'the account channel on B to end')
  })

  it('stop on node B stops the generation running on node A', async () => {
    const { A, B } = nodes
    const me = await login(A.url)
    const reply = await startReply(A.url, me.token)
    const s = await sse(A.url, `${CHAT}/sse/subscribe/${reply.requestId}`, me.token)
    await s.next((f) => f.event === 'delta', 10_000, 'a delta')
    const stopped = await post(B.url, `${CHAT}/topic/message/stop`, { requestId: reply.requestId }, me.token)
    assert.equal(stopped.body.code, 2000, JSON.stringify(stopped.body))
    assert.equal(stopped.body.data.status, 'interrput')
    const end = await s.next(terminal, 10_000, 'the stopped event')
    assert.equal(end.event, 'stopped')
    const row = await replyRow(reply.replyId)
    assert.equal(row.status, 'interrput')
    assert.equal(row.content, s.content(), 'what was streamed is what was saved')
    // Nothing more is generated on A.
    const frames = s.frames.length
    await sleep(800)
    assert.equal(s.frames.length, frames)
  })

  it('SMS resend window and hourly counters are shared by the nodes', async () => {
    const { A, B } = nodes
    const phone = String(phoneSeq++)
    const body = { enCode: '86', phone, smsType: 'LOGIN', imgVerifyState: 1 }
    assert.equal((await post(A.url, '/api/v1/auth/send-sms-code', body)).body.code, 2000)
    const again = await post(B.url, '/api/v1/auth/send-sms-code', body)
    assert.equal(again.body.code, 50011007, JSON.stringify(again.body))
    // Per address, through nginx (X-Forwarded-For, TRUST_PROXY=1): the cap counts requests on both nodes.
    const address = `192.0.2.${Math.floor(Math.random() * 200) + 1}`
    let refused = 0
    for (let i = 0; i < 33; i++) {
      const res = await post(i % 2 ? A.url : B.url, '/api/v1/auth/send-sms-code', { ...body, phone: String(phoneSeq++) }, undefined, {
        'X-Forwarded-For': address
      })
      if (res.body.code === 42900001) refused++
    }
    assert.equal(refused, 3, 'the default cap of 30 per address and hour, counted across nodes')
  })

  it('painting and music progress reach an account channel on the other node', async () => {
    const { A, B } = nodes
    const me = await login(A.url)
    const channel = await sse(B.url, `${CHAT}/sse/subscribe`, me.token)
    await sleep(300)
    const task = await post(A.url, '/api/v1/painting/imagine', { prompt: 'a lighthouse at dawn' }, me.token)
    assert.equal(task.body.code, 2000, JSON.stringify(task.body))
    const painted = await channel.next((f) => f.event === 'painting' && JSON.parse(f.data).status === 'SUCCESS', 30_000, 'painting SUCCESS on B')
    assert.ok(channel.frames.filter((f) => f.event === 'painting').length >= 2, 'progress, not just the end')
    assert.ok(painted)
    const song = await post(A.url, '/api/v1/music/generate', { prompt: '一首关于灯塔的歌' }, me.token)
    assert.equal(song.body.code, 2000, JSON.stringify(song.body))
    await channel.next((f) => f.event === 'music', 30_000, 'music progress on B')
    channel.close()
  })

  it('kill -9 of the generating node mid-stream: the surviving node ends the reply, nothing streamed is lost', async () => {
    const { A, B } = nodes
    const me = await login(B.url)
    const reply = await startReply(A.url, me.token)
    const s = await sse(B.url, `${CHAT}/sse/subscribe/${reply.requestId}`, me.token)
    await s.next((f) => Number(f.id) >= 4, 15_000, 'a few deltas')
    A.child.kill('SIGKILL')
    await A.exited
    const killedAt = Date.now()
    const end = await s.next(terminal, 10 * LEASE_MS + 10_000, 'the end of the orphaned reply')
    const tookMs = Date.now() - killedAt
    assert.ok(['stopped', 'done'].includes(end.event), end.event)
    const row = await replyRow(reply.replyId)
    assert.notEqual(row.status, 'streaming')
    assert.ok(['interrput', 'complete'].includes(row.status))
    const streamed = s.content()
    assert.ok(streamed.length > 0)
    assert.ok(row.content.startsWith(streamed), `saved ${row.content.length} chars, streamed ${streamed.length}`)
    console.log(`kill -9: reply ended ${end.event} after ${tookMs} ms (lease ${LEASE_MS} ms), ${streamed.length} chars kept`)
    // Node A comes back (same port): nginx sends it traffic again.
    const again = await startNode('A', A.port)
    console.log(`restart: node A listening after ${again.startMs} ms`)
  })

  it('kill -9 of the node drawing a picture: the job is taken over from the queue, drawn once, charged once', async () => {
    const { A, B } = nodes
    const me = await login(A.url)
    const [before] = await admin`select balance::int as mj_count from allowances where account_id = ${me.accountId} and kind = 'mj'`
    // Node B is frozen, so the queue can only hand the job to node A.
    B.child.kill('SIGSTOP')
    let taskId
    try {
      const task = await post(A.url, '/api/v1/painting/imagine', { prompt: 'a lighthouse in a storm' }, me.token)
      assert.equal(task.body.code, 2000, JSON.stringify(task.body))
      taskId = task.body.data.taskId
      await until(async () => (await admin`select status from painting_tasks where id = ${taskId}`)[0]?.status === 'IN_PROGRESS', 15_000, 'node A drawing')
    } finally {
      B.child.kill('SIGCONT')
    }
    A.child.kill('SIGKILL')
    await A.exited
    const killedAt = Date.now()
    const [cut] = await admin`select status from painting_tasks where id = ${taskId}`
    assert.equal(cut.status, 'IN_PROGRESS', 'killed mid-drawing')
    const done = await until(
      async () => {
        const [row] = await admin`select status, image_key, charged, refunded from painting_tasks where id = ${taskId}`
        return row && ['SUCCESS', 'FAILURE', 'TIMEOUT', 'INTERRPUT'].includes(row.status) ? row : undefined
      },
      90_000,
      'the task to end on node B'
    )
    assert.equal(done.status, 'SUCCESS')
    assert.ok(done.image_key)
    const [after] = await admin`select balance::int as mj_count from allowances where account_id = ${me.accountId} and kind = 'mj'`
    assert.equal(after.mj_count, before.mj_count - 1, 'charged exactly once')
    const log = (await admin`select amount from balance_log where account_id = ${me.accountId} and kind = 'mj' order by id`).map((l) => Number(l.amount))
    assert.deepEqual(log.slice(1), [-1], 'after the sign-up grant: one charge, no refund')
    const picture = await fetch(`${B.url}/files/${done.image_key}`)
    assert.equal(picture.status, 200)
    console.log(`painting takeover: node B finished the task ${Date.now() - killedAt} ms after node A was killed`)
    await startNode('A', A.port)
  })

  it('SIGTERM: the node stops taking requests, ends its generation as interrput and exits cleanly within 10 s', async () => {
    const { A, B } = nodes
    const me = await login(B.url)
    const reply = await startReply(B.url, me.token)
    const s = await sse(A.url, `${CHAT}/sse/subscribe/${reply.requestId}`, me.token)
    await s.next((f) => f.event === 'delta', 10_000, 'a delta')
    const inflight = await postInFlight(B.url, `${CHAT}/topic/list`, {}, me.token)
    const t0 = Date.now()
    B.child.kill('SIGTERM')
    await until(() => B.out.includes('SIGTERM: shutting down'), 5000, 'node B to begin shutting down')
    const answered = inflight.send()
    const { code } = await B.exited
    const tookMs = Date.now() - t0
    assert.equal(code, 0, B.out.slice(-2000))
    assert.ok(tookMs < 10_000, `exit took ${tookMs} ms`)
    assert.equal((await answered).body.code, 2000, 'the request in flight finished')
    await assert.rejects(fetch(`${B.url}/api/openapi.json`), 'no longer listening')
    const end = await s.next(terminal, 5000, 'the end on the other node')
    assert.equal(end.event, 'stopped')
    const row = await replyRow(reply.replyId)
    assert.equal(row.status, 'interrput')
    assert.equal(row.content, s.content())
    // Through nginx the service goes on: the remaining node answers.
    const info = await post(proxyUrl, '/api/v1/user/info', {}, me.token)
    assert.equal(info.body.code, 2000)
    console.log(`SIGTERM: node B exited 0 in ${tookMs} ms`)
  })
})
