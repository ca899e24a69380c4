// Issue 13, item 4: a single node on PostgreSQL killed (kill -9) mid-reply and started again under
// the same NODE_ID ends its own orphaned reply at start — not after its lease runs out (60 s here) —
// free of charge, with the tokens it held given back. A real server process, a real kill -9.
// Needs DATABASE_URL (skipped without it, unless MULTINODE_REQUIRED=1) and the built server.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import postgres from 'postgres'
import { freePort, startNode, until } from './helpers.mjs'

const { DATABASE_URL } = process.env
if (!DATABASE_URL && process.env.MULTINODE_REQUIRED === '1') throw new Error('the restart test needs DATABASE_URL')
const skip = DATABASE_URL ? false : 'needs DATABASE_URL'

const run = randomBytes(4).toString('hex')
const work = mkdtempSync(join(tmpdir(), 'lingxi-restart-'))
const dbName = `lingxi_rs_${run}`
const smsLines = []
let dbUrl
let admin
let port
const started = []

function env() {
  return {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: join(work, 'data'),
    DATABASE_URL: dbUrl,
    REDIS_URL: '',
    NODE_ID: `restart-${run}`,
    // Far longer than the test: only the node's own sweep at start can end the reply in time.
    CHAT_LEASE_MS: '60000',
    CHAT_DEMO_DELAY_MS: '100',
    UPLOAD_SECRET: `restart-${run}`,
    SMS_PROVIDER: 'console',
    STATIC_ROOT: join(work, 'no-site'),
    NODE_ENV: 'test'
  }
}

const start = (name) =>
  startNode(name, port, env(), {
    onSpawn: (node) => started.push(node),
    onLine: (line) => line.startsWith('[sms]') && smsLines.push(line)
  })

async function post(base, path, body, token) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body)
  })
  return { status: res.status, body: await res.json() }
}

describe('a node restarted after kill -9 ends its own orphans at start', { skip, timeout: 120_000 }, () => {
  before(async () => {
    const server = postgres(DATABASE_URL, { max: 1, onnotice: () => {} })
    await server.unsafe(`create database "${dbName}"`)
    await server.end()
    const url = new URL(DATABASE_URL)
    url.pathname = `/${dbName}`
    dbUrl = url.toString()
    admin = postgres(dbUrl, { max: 1, onnotice: () => {} })
    port = await freePort()
  })

  after(async () => {
    for (const node of started) if (!node.exit) node.child.kill('SIGKILL')
    await Promise.all(started.map((n) => n.exited))
    await admin?.end()
    if (dbUrl) {
      const server = postgres(DATABASE_URL, { max: 1, onnotice: () => {} })
      await server.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => {})
      await server.end()
    }
    rmSync(work, { recursive: true, force: true })
  })

  it('the reply streaming at the kill is interrput as soon as the node listens again, free, its hold back', async () => {
    const first = await start('first run')
    const phone = '13700000001'
    assert.equal((await post(first.url, '/api/v1/auth/send-sms-code', { enCode: '86', phone, smsType: 'LOGIN', imgVerifyState: 1 })).body.code, 2000)
    const code = await until(() => smsLines.map((l) => l.match(new RegExp(`^\\[sms\\] \\+86 ${phone} (\\d{4})`))).find(Boolean)?.[1], 5000, 'the SMS code')
    const login = await post(first.url, '/api/v1/auth/login', { enCode: '86', phone, code, platform: 'PC' })
    assert.equal(login.body.code, 2000, JSON.stringify(login.body))
    const token = login.body.data.accessToken
    const [{ tokens: before }] = await admin`select balance as tokens from allowances where account_id = ${login.body.data.accountId} and kind = 'tokens'`

    const topic = await post(first.url, '/api/v1/ai-chat/topic/create', {}, token)
    const sent = await post(first.url, '/api/v1/ai-chat/topic/message/send', { topicId: topic.body.data.topicId, content: '请详细介绍一下灵犀' }, token)
    assert.equal(sent.body.code, 2000, JSON.stringify(sent.body))
    const { replyId, requestId } = sent.body.data
    // Some text was saved, and tokens are held, when the process dies.
    await until(async () => (await admin`select content from chat_messages where id = ${replyId}`)[0]?.content.length > 0, 20_000, 'a saved part of the reply')
    const [held] = await admin`select status, held, node_id from chat_messages where id = ${replyId}`
    assert.equal(held.status, 'streaming')
    assert.ok(Number(held.held) > 0, 'the reply holds tokens')
    assert.equal(held.node_id, `restart-${run}`)
    first.child.kill('SIGKILL')
    await first.exited

    const second = await start('second run')
    // At once: the lease (60 s) has not run out, yet the node knew the reply was its own.
    const [row] = await admin`select status, held, charged, content from chat_messages where id = ${replyId}`
    assert.equal(row.status, 'interrput')
    assert.equal(Number(row.held), 0)
    assert.equal(Number(row.charged), 0)
    assert.ok(row.content.length > 0, 'what was saved is kept')
    const [{ tokens: after }] = await admin`select balance as tokens from allowances where account_id = ${login.body.data.accountId} and kind = 'tokens'`
    assert.equal(Number(after), Number(before), 'the held tokens came back, nothing was charged')
    // A client that reloads sees the reply ended, not a spinner.
    const res = await fetch(`${second.url}/api/v1/ai-chat/sse/subscribe/${requestId}`, { headers: { Authorization: `Bearer ${token}` } })
    const text = await res.text()
    assert.match(text, /event: stopped/)
    second.child.kill('SIGTERM')
    await second.exited
  })
})
