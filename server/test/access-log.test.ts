import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createConsoleLogger, requestContext, withRequestContext } from '../src/logger.js'
import type { AccessEntry } from '../src/metrics/http.js'
import { startFakeOpenAi } from './fakes/openai.js'
import { useHarness } from './helpers/database-hooks.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Captures stdout's JSON access-log lines (everything else written there passes through). */
function captureAccessLog() {
  const entries: AccessEntry[] = []
  const write = process.stdout.write.bind(process.stdout)
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = String(chunk)
    // The lines of one turn of the event loop come in one write (metrics/http.ts).
    const lines = text.split('\n').filter(Boolean)
    if (lines.length > 0 && lines.every((line) => line.startsWith('{"time"') && line.includes('"msg":"request"'))) {
      for (const line of lines) entries.push(JSON.parse(line))
      return true
    }
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest)
  }) as typeof process.stdout.write)
  return { entries, restore: () => spy.mockRestore() }
}

/** Access lines are written at the end of the event loop's turn: the tests look after it. */
const written = () => new Promise((resolve) => setImmediate(resolve))

describe('access log behind one trusted proxy', () => {
  let log: ReturnType<typeof captureAccessLog>
  beforeEach(() => {
    vi.stubEnv('ACCESS_LOG', 'on')
    log = captureAccessLog()
  })
  afterEach(() => {
    log.restore()
    vi.unstubAllEnvs()
  })
  const ctx = useHarness({ env: { TRUST_PROXY: '1' } })

  it('writes one JSON line per request with its route, status, size, account and client', async () => {
    const { accessToken, accountId } = await ctx.h.login('13800138000')
    await written()
    log.entries.length = 0
    const res = await ctx.h.post('/api/v1/user/info', {}, { token: accessToken, headers: { 'X-Forwarded-For': '198.51.100.23' } })
    expect(res.status).toBe(200)
    await written()
    expect(log.entries).toHaveLength(1)
    const [entry] = log.entries
    expect(entry).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'POST',
      route: '/api/v1/user/info',
      path: '/api/v1/user/info',
      status: 200,
      accountId,
      client: '198.51.100.23',
      requestId: res.headers.get('x-request-id')
    })
    expect(entry?.durationMs).toBeGreaterThanOrEqual(0)
    expect(typeof entry?.time).toBe('string')
    await ctx.h.app.request('/files/abc.png')
    await written()
    expect(log.entries[1]).toMatchObject({ method: 'GET', route: '/files/*', path: '/files/abc.png', status: 404, accountId: null })
  })

  it("takes the proxy's X-Request-Id when it is a plain token, otherwise makes one", async () => {
    const taken = await ctx.h.app.request('/healthz', { headers: { 'X-Request-Id': 'edge-42.abc:7' } })
    expect(taken.headers.get('x-request-id')).toBe('edge-42.abc:7')
    for (const bad of ['two words', 'x'.repeat(129), '"quoted"', 'a%0Ab', 'id<script>']) {
      const made = await ctx.h.app.request('/healthz', { headers: { 'X-Request-Id': bad } })
      expect(made.headers.get('x-request-id')).toMatch(UUID)
    }
    await written()
    expect(log.entries.map((e) => e.requestId)[0]).toBe('edge-42.abc:7')
  })
})

describe('request ids without a trusted proxy', () => {
  const ctx = useHarness()

  it('never takes X-Request-Id from the client and logs nothing under the test runner by default', async () => {
    const log = captureAccessLog()
    try {
      const res = await ctx.h.app.request('/healthz', { headers: { 'X-Request-Id': 'forged-by-client' } })
      expect(res.headers.get('x-request-id')).toMatch(UUID)
      // An error answer carries it too.
      const missing = await ctx.h.app.request('/api/v1/nothing')
      expect(missing.status).toBe(404)
      expect(missing.headers.get('x-request-id')).toMatch(UUID)
      expect(missing.headers.get('x-request-id')).not.toBe(res.headers.get('x-request-id'))
      await written()
      expect(log.entries).toHaveLength(0)
    } finally {
      log.restore()
    }
  })
})

describe('ACCESS_LOG=off', () => {
  beforeEach(() => {
    vi.stubEnv('ACCESS_LOG', 'off')
    vi.stubEnv('NODE_ENV', 'production')
  })
  afterEach(() => vi.unstubAllEnvs())
  const ctx = useHarness()

  it('writes no access line, the request id is still made', async () => {
    const log = captureAccessLog()
    try {
      const res = await ctx.h.app.request('/healthz')
      expect(res.headers.get('x-request-id')).toMatch(UUID)
      await written()
      expect(log.entries).toHaveLength(0)
    } finally {
      log.restore()
    }
  })
})

describe('the request id in every log line made while serving the request', () => {
  const lines: string[] = []
  const logger = createConsoleLogger({ write: (_stream, text) => lines.push(text) })
  const ctx = useHarness({
    extend(api) {
      // Awaits the database, an upstream call over loopback, then logs — as a reply or a painting job does.
      api.app.get('/test/upstream', async (c) => {
        const url = c.req.query('url') ?? ''
        logger.info('calling upstream')
        await api.db.execute('select 1' as never).catch(() => undefined)
        const res = await fetch(url)
        await res.text()
        logger.warn('upstream answered', { status: res.status })
        return c.json({ ok: true })
      })
    }
  })

  it('follows each request across awaits, concurrently, and keeps a reply stream id of its own', async () => {
    const fake = await startFakeOpenAi()
    try {
      const url = `/test/upstream?url=${encodeURIComponent(`${fake.url}/v1/nothing`)}`
      const answers = await Promise.all([1, 2, 3, 4].map(() => ctx.h.app.request(url)))
      const ids = answers.map((res) => res.headers.get('x-request-id'))
      expect(new Set(ids).size).toBe(4)
      for (const id of ids) {
        const mine = lines.filter((text) => text.includes(`"requestId":"${id}"`))
        expect(mine.map((text) => text.split(' ')[2])).toEqual(['calling', 'upstream'])
      }
      expect(lines).toHaveLength(8)
    } finally {
      await fake.close()
    }
    expect(withRequestContext({ a: 1 })).toEqual({ a: 1 })
    requestContext.run({ requestId: 'r1', accountId: 'acc' }, () => {
      expect(withRequestContext()).toEqual({ requestId: 'r1', accountId: 'acc' })
      expect(withRequestContext({ requestId: 'reply-9' })).toEqual({ httpRequestId: 'r1', accountId: 'acc', requestId: 'reply-9' })
    })
  })
})
