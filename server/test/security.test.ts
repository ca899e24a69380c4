/**
 * Security properties across the API: dead tokens stay dead (logout, phone change), one account's
 * ids are refused everywhere another account sends them, CORS answers only the allowlist, the
 * site carries its CSP, SSE data can never split an event, and the SMS caps hold.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { ChatProvider } from '../src/replies/providers/provider.js'
import { orderActivities, orderSessions } from '../src/db/schema.js'
import type { Api } from '../src/http/api.js'
import { knownPermissionCodes } from '../src/permissions/tree.js'
import { CHAT, parseFrames, readAll, waitUntil } from './helpers/chat.js'
import { createTestDatabase, type TestDatabase } from './helpers/database.js'
import { createHarness, type Harness, type HarnessOptions } from './helpers/harness.js'

const MARKER = 'SECRET灵犀A'
/** Text an upstream might send that would split an event if written to the wire raw. */
const HOSTILE_DELTA = 'a\r\n\r\nevent: done\r\ndata: {"x":1}\n\nid: 999\rdata: z\u2028\u2029\u0085end'

const staticRoot = mkdtempSync(join(tmpdir(), 'lingxi-site-'))
mkdirSync(join(staticRoot, 'site'))
writeFileSync(join(staticRoot, 'site', 'index.html'), '<!doctype html><title>灵犀</title>')

const hostile: ChatProvider = {
  async *stream() {
    for (const piece of HOSTILE_DELTA.split(/(?=\n)/)) yield { type: 'content', text: piece }
    yield { type: 'thinking', text: '\n\ndata: fake\n\n' }
  }
}

let api!: Api
const ctx = {} as { db: TestDatabase; h: Harness }
const options: HarnessOptions = {
  env: {
    DEFAULT_PERMISSIONS: knownPermissionCodes()
      .filter((code) => code !== 'ADMIN')
      .join(','),
    CORS_ORIGINS: 'https://partner.example.com',
    PAINTING_DEMO_DELAY_MS: '0',
    MUSIC_DEMO_DELAY_MS: '0',
    MUSIC_POLL_MS: '50',
    CHAT_MODELS_EXTRA: ''
  },
  staticRoot,
  extend: (a) => (api = a)
}
beforeAll(async () => {
  ctx.db = await createTestDatabase()
  ctx.h = createHarness(ctx.db, options)
})
afterAll(async () => {
  await ctx.h?.close()
  await ctx.db?.destroy()
})

let phones = 13700000000
const user = async () => {
  const { accessToken, accountId } = await ctx.h.login(String(phones++))
  return { token: accessToken, accountId }
}
const INFO = '/api/v1/user/info'

describe('tokens', () => {
  it('are refused after logout, on every kind of route', async () => {
    const me = await user()
    const other = await ctx.h.login(String(phones - 1)) // the same account on a second device
    expect((await ctx.h.post(INFO, {}, { token: me.token })).body.code).toBe(2000)
    expect((await ctx.h.post('/api/v1/auth/logout', {}, { token: me.token })).body.code).toBe(2000)
    for (const path of [INFO, `${CHAT}/topic/list`, '/api/v1/painting/task/list', '/api/v1/music/song/list', '/api/v1/auth/logout']) {
      const res = await ctx.h.post(path, {}, { token: me.token })
      expect(res.status, path).toBe(401)
      expect(res.body.code, path).toBe(50011006)
    }
    const sse = await ctx.h.app.request(`${CHAT}/sse/subscribe`, { headers: { Authorization: `Bearer ${me.token}` } })
    expect(sse.status).toBe(401)
    // The other device's session is its own.
    expect((await ctx.h.post(INFO, {}, { token: other.accessToken })).body.code).toBe(2000)
  })

  it('are refused after a phone change, on every device', async () => {
    const me = await user()
    const second = await ctx.h.login(String(phones - 1))
    const NEW = String(phones++)
    expect((await ctx.h.post('/api/v1/auth/modify-phone-sms-code', { enCode: '86', phone: NEW }, { token: me.token })).body.code).toBe(2000)
    const res = await ctx.h.post<any>('/api/v1/auth/modify-phone', { enCode: '86', phone: NEW, code: ctx.h.lastCode(NEW) }, { token: me.token })
    expect(res.body.code).toBe(2000)
    for (const token of [me.token, second.accessToken]) {
      expect((await ctx.h.post(INFO, {}, { token })).body.code).toBe(50011006)
      const sse = await ctx.h.app.request(`${CHAT}/sse/subscribe`, { headers: { Authorization: `Bearer ${token}` } })
      expect(sse.status).toBe(401)
    }
    expect((await ctx.h.post(INFO, {}, { token: res.body.data.accessToken })).body.code).toBe(2000)
  })

  it('forged, truncated and wrongly spelled tokens are refused', async () => {
    const me = await user()
    for (const authorization of [
      `Bearer ${me.token.slice(0, -1)}`,
      `Bearer ${me.token}x`,
      `Basic ${me.token}`,
      'Bearer ',
      `Bearer ${me.token} ${me.token}`,
      `Bearer ${"' or 1=1 --"}`
    ]) {
      const res = await ctx.h.request<any>(INFO, { method: 'POST', headers: { Authorization: authorization, 'Content-Type': 'application/json' }, body: '{}' })
      expect(res.body.code, authorization).not.toBe(2000)
      expect(res.status).toBe(401)
    }
  })
})

// ---- another account's ids -------------------------------------------------------------

type Json = Record<string, unknown>
const ID_NAME = /(^id$|Id$|Ids$|^key$|^keys$|[uU]rl$|[uU]rls$|^images$)/

/** A minimal valid-looking value for a JSON Schema node (ids are filled in separately). */
function filler(node: Json, root: Json): unknown {
  if (typeof node.$ref === 'string') {
    let t: unknown = root
    for (const part of node.$ref.slice(2).split('/')) t = (t as Json)?.[part]
    return filler((t as Json) ?? {}, root)
  }
  if ('const' in node) return node.const
  if (Array.isArray(node.enum)) return node.enum[0]
  const alt = (node.anyOf ?? node.oneOf) as Json[] | undefined
  if (alt?.[0]) return filler(alt.find((a) => a.type !== 'null') ?? alt[0], root)
  const type = Array.isArray(node.type) ? node.type[0] : node.type
  if (type === 'string') return '安全测试'
  if (type === 'integer' || type === 'number') return typeof node.minimum === 'number' ? node.minimum : 1
  if (type === 'boolean') return false
  if (type === 'array') return []
  if (type === 'object') {
    const out: Json = {}
    for (const [k, v] of Object.entries((node.properties ?? {}) as Record<string, Json>)) out[k] = filler(v, root)
    return out
  }
  return null
}

type Rows<T> = { rows?: T[] } | T[]
const rowsOf = <T>(r: Rows<T>): T[] => (Array.isArray(r) ? r : (r.rows ?? []))

/** Every row that belongs to the account, table by table, as text. */
async function ownRows(accountId: string): Promise<Record<string, string[]>> {
  const tables = rowsOf(
    (await ctx.db.db.execute(
      sql.raw("select table_name as t from information_schema.columns where table_schema = current_schema() and column_name = 'account_id' order by 1")
    )) as unknown as Rows<{ t: string }>
  ).map((r) => r.t)
  const out: Record<string, string[]> = {}
  for (const t of [...tables, 'accounts']) {
    const where = t === 'accounts' ? 'id' : 'account_id'
    const rows = rowsOf(
      (await ctx.db.db.execute(
        sql.raw(`select x::text as r from "${t}" x where ${where} = '${accountId.replace(/'/g, "''")}' order by 1`)
      )) as unknown as Rows<{ r: string }>
    )
    out[t] = rows.map((r) => r.r)
  }
  return out
}

/** The account's private identifiers: ids, request ids, storage keys and file URLs of its rows. */
async function privateIds(accountId: string): Promise<string[]> {
  const cols = rowsOf(
    (await ctx.db.db.execute(
      sql.raw(`select c.table_name as t, c.column_name as c from information_schema.columns c
        join information_schema.columns a on a.table_schema = c.table_schema and a.table_name = c.table_name and a.column_name = 'account_id'
        where c.table_schema = current_schema() and c.data_type = 'text'
          and (c.column_name in ('id', 'request_id', 'key', 'task_id') or c.column_name like '%url')`)
    )) as unknown as Rows<{ t: string; c: string }>
  )
  const ids = new Set<string>()
  for (const { t, c } of cols) {
    const rows = rowsOf(
      (await ctx.db.db.execute(sql.raw(`select "${c}" as v from "${t}" where account_id = '${accountId}' and "${c}" is not null`))) as unknown as Rows<{
        v: string
      }>
    )
    for (const r of rows) if (r.v && r.v.length >= 8) ids.add(r.v)
  }
  return [...ids]
}

describe("another account's ids", () => {
  it('are refused (or find nothing) on every route that takes an id, and nothing of theirs changes', { timeout: 120_000 }, async () => {
    const a = await user()
    const b = await user()
    const post = (path: string, body: unknown, token = a.token) => ctx.h.post<any>(path, body, { token })

    // A's things: a topic with a reply, a role, a painting, a song, an upload, an order.
    const topic = await post(`${CHAT}/topic/create`, {})
    const sent = await post(`${CHAT}/topic/message/send`, { topicId: topic.body.data.topicId, content: MARKER })
    expect(sent.body.code).toBe(2000)
    await ctx.h.chat.idle()
    expect((await post(`${CHAT}/role-play/save`, { name: MARKER, systemPrompt: MARKER, tagIds: [] })).body.code).toBe(2000)
    const task = await post('/api/v1/painting/imagine', { prompt: MARKER })
    expect(task.body.code).toBe(2000)
    expect((await post('/api/v1/music/generate', { prompt: MARKER })).body.code).toBe(2000)
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c00' } })
      .png()
      .toBuffer()
    const ticket = await post('/api/v1/oss/upload/getOssSTS', { fileName: 'a.png', contentType: 'image/png', size: png.byteLength })
    expect(ticket.body.code, JSON.stringify(ticket.body)).toBe(2000)
    const put = await ctx.h.app.request(ticket.body.data.uploadUrl, {
      method: 'PUT',
      body: png as unknown as RequestInit['body'],
      headers: ticket.body.data.headers
    })
    expect(put.status).toBe(200)
    expect((await post('/api/v1/oss/upload/complete', { key: ticket.body.data.key })).body.code).toBe(2000)
    const now = ctx.h.clock.now()
    const activityId = randomUUID()
    const sessionId = randomUUID()
    await ctx.db.db.insert(orderActivities).values({
      id: activityId,
      title: '活动',
      brief: '简介',
      platform: 'weibo',
      rewardFen: 100,
      budgetFen: 10_000,
      startTime: new Date(now - 3_600_000),
      endTime: new Date(now + 86_400_000),
      createdAt: new Date(now)
    })
    await ctx.db.db.insert(orderSessions).values({
      id: sessionId,
      activityId,
      num: 1,
      name: '第 1 场',
      startTime: new Date(now - 3_600_000),
      endTime: new Date(now + 86_400_000),
      places: 5,
      placesLeft: 5,
      createdAt: new Date(now)
    })
    const order = await post('/api/v1/orders/take', { activitySessionId: sessionId })
    expect(order.body.code).toBe(2000)
    expect((await post('/api/v1/orders/draft', { orderId: order.body.data.orderId, draft: MARKER })).body.code).toBe(2000)
    // A's background work (the demo painter and composer) ends before A's rows are compared.
    const settled = async () => {
      const open = rowsOf(
        (await ctx.db.db.execute(
          sql.raw(`select (select count(*) from music_tasks where account_id = '${a.accountId}' and finished_at is null)
            + (select count(*) from painting_tasks where account_id = '${a.accountId}' and status not in ('SUCCESS', 'FAILURE', 'TIMEOUT', 'INTERRPUT')) as n`)
        )) as unknown as Rows<{ n: string | number }>
      )
      return Number(open[0]?.n) === 0
    }
    await waitUntil(settled, 20_000)
    // …and so do its chat replies (one may still be streaming on a loaded machine).
    await ctx.h.chat.idle()

    const ids = await privateIds(a.accountId)
    expect(ids.length).toBeGreaterThanOrEqual(8)
    const before = await ownRows(a.accountId)

    // B sends A's ids to every route whose body names an id, key or URL.
    let tried = 0
    const accepted: string[] = []
    for (const doc of api.docs.filter((d) => d.method === 'post' && d.body && d.auth)) {
      const root = z.toJSONSchema(doc.body!, { io: 'input', unrepresentable: 'any' }) as Json
      const props = (root.properties ?? {}) as Record<string, Json>
      const idKeys = Object.keys(props).filter((k) => ID_NAME.test(k))
      if (idKeys.length === 0 || doc.path.includes('/auth/')) continue
      const base = filler(root, root) as Json
      for (const key of idKeys) {
        for (const id of ids) {
          const isArray = props[key]!.type === 'array'
          const res = await ctx.h.post<any>(doc.path, { ...base, [key]: isArray ? [id] : id }, { token: b.token })
          tried++
          expect(res.status, `${doc.path} ${key}`).toBeLessThan(500)
          const data = JSON.stringify(res.body.data ?? null)
          expect(data.includes(MARKER), `${doc.path} ${key}=${id} leaked A's text: ${data.slice(0, 200)}`).toBe(false)
          expect(data.includes(id), `${doc.path} ${key}=${id} answered with A's id: ${data.slice(0, 200)}`).toBe(false)
          if (res.body.code === 2000) accepted.push(`${doc.path} ${key}`)
        }
      }
    }
    // SSE by A's request id.
    const sse = await ctx.h.app.request(`${CHAT}/sse/subscribe/${sent.body.data.requestId}`, { headers: { Authorization: `Bearer ${b.token}` } })
    expect(sse.status).toBe(404)
    await sse.body?.cancel()

    await ctx.h.chat.idle()
    // Nothing of A's changed, and nothing of B's points at A's things.
    expect(await ownRows(a.accountId)).toEqual(before)
    const mine = JSON.stringify(await ownRows(b.accountId))
    for (const id of ids) expect(mine.includes(id), `B's rows hold A's id ${id}`).toBe(false)
    expect(mine.includes(MARKER)).toBe(false)
    console.log(
      `cross-account: ${ids.length} private ids of A × routes = ${tried} requests by B; accepted without leaking (lists, filters): ${[...new Set(accepted)].join(', ') || 'none'}`
    )
    expect(tried).toBeGreaterThan(50)
  })
})

describe('CORS', () => {
  it('answers only allowlisted origins, preflight and actual request', async () => {
    for (const [origin, allowed] of [
      ['https://partner.example.com', true],
      ['https://evil.example.com', false],
      ['https://partner.example.com.evil.com', false],
      ['null', false],
      ['http://partner.example.com', false]
    ] as const) {
      const pre = await ctx.h.app.request(INFO, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' }
      })
      expect(pre.headers.get('access-control-allow-origin'), origin).toBe(allowed ? origin : null)
      // Credentials (the session cookie, ADR 0019) for the allowlisted origin only.
      expect(pre.headers.get('access-control-allow-credentials')).toBe(allowed ? 'true' : null)
      const res = await ctx.h.app.request(INFO, { method: 'POST', headers: { Origin: origin, 'Content-Type': 'application/json' }, body: '{}' })
      expect(res.headers.get('access-control-allow-origin'), origin).toBe(allowed ? origin : null)
      expect(res.headers.get('access-control-allow-credentials')).toBe(allowed ? 'true' : null)
      expect(res.headers.get('vary')).toMatch(/Origin/)
    }
  })
})

describe('security headers', () => {
  it('the site carries its CSP and framing rules; API answers are nosniff and never cached', async () => {
    const page = await ctx.h.app.request('/')
    expect(page.status).toBe(200)
    const csp = page.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toMatch(/script-src[^;]*unsafe-(inline|eval)/)
    expect(csp).toContain("object-src 'none'")
    expect(csp).toContain("frame-ancestors 'self'")
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN')
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    const api = await ctx.h.app.request(INFO, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } })
    expect(api.headers.get('x-content-type-options')).toBe('nosniff')
    expect(api.headers.get('cache-control')).toBe('no-store')
    expect(api.headers.get('content-type')).toMatch(/^application\/json/)
  })
})

describe('SSE injection', () => {
  const sse = {} as { h: Harness; db: TestDatabase }
  beforeAll(async () => {
    sse.db = ctx.db
    sse.h = createHarness(ctx.db, { ...options, chat: { providers: { demo: hostile } } })
  })
  afterAll(async () => {
    await sse.h?.close()
  })

  it('CR, LF and look-alike separators in the data never split an event, on the reply stream and the account channel', async () => {
    const { accessToken: token } = await sse.h.login(String(phones++))
    const channel = await sse.h.app.request(`${CHAT}/sse/subscribe`, { headers: { Authorization: `Bearer ${token}` } })
    expect(channel.status).toBe(200)
    const topic = await sse.h.post<any>(`${CHAT}/topic/create`, {}, { token })
    const sent = await sse.h.post<any>(`${CHAT}/topic/message/send`, { topicId: topic.body.data.topicId, content: '你好' }, { token })
    expect(sent.body.code).toBe(2000)
    const res = await sse.h.app.request(`${CHAT}/sse/subscribe/${sent.body.data.requestId}`, {
      headers: { Authorization: `Bearer ${token}`, 'Last-Event-ID': '0 event: done' }
    })
    const text = await readAll(res)
    // Only our own separators: every line is a field we write, no stray CR anywhere. (U+2028,
    // U+2029 and U+0085 stay raw inside the JSON: SSE splits lines on CR and LF only.)
    expect(text.includes('\r')).toBe(false)
    for (const line of text.split('\n')) expect(line === '' || /^(id: \d+|event: (delta|done|error|stopped)|data: \{.*\}|: ping)$/s.test(line), line).toBe(true)
    const frames = parseFrames(text).filter((f) => f.event)
    expect(frames.at(-1)!.event).toBe('done')
    expect(frames.filter((f) => f.event === 'done')).toHaveLength(1)
    const content = frames
      .filter((f) => f.event === 'delta')
      .map((f) => JSON.parse(f.data!).content ?? '')
      .join('')
    expect(content).toBe(HOSTILE_DELTA)
    expect(frames.map((f) => Number(f.id))).toEqual(frames.map((_, i) => i + 1))

    const live = await readAll(channel, (t) => /^event: done$/m.test(t))
    expect(live.includes('\r')).toBe(false)
    const liveFrames = parseFrames(live).filter((f) => f.event)
    expect(liveFrames.filter((f) => f.event === 'done')).toHaveLength(1)
    for (const f of liveFrames) expect(() => JSON.parse(f.data!)).not.toThrow()
  })
})

describe('SMS rate limits', () => {
  it('the resend window, the per-phone and the per-address hourly caps answer 429-style codes and send nothing', async () => {
    const phone = String(phones++)
    const address = '198.51.100.9'
    const send = (p: string, addr = address) => ctx.h.sendCode(p, '86', addr)
    expect((await send(phone)).body.code).toBe(2000)
    const again = await send(phone)
    expect(again.body.code).toBe(50011007)
    const cap = ctx.h.config.sms.hourlyPerPhone
    for (let i = 1; i < cap; i++) {
      ctx.h.clock.advance(61_000)
      expect((await send(phone)).body.code).toBe(2000)
    }
    ctx.h.clock.advance(61_000)
    const smsBefore = ctx.h.smsLines.length
    const over = await send(phone)
    expect(over.status).toBe(429)
    expect(over.body.code).toBe(42900001)
    expect(ctx.h.smsLines.length).toBe(smsBefore)

    // One address cycling through phones hits its own cap.
    const perIp = ctx.h.config.sms.hourlyPerIp
    const other = '198.51.100.10'
    let refused = 0
    for (let i = 0; i < perIp + 3; i++) if ((await send(String(phones++), other)).body.code === 42900001) refused++
    expect(refused).toBe(3)
  })
})
