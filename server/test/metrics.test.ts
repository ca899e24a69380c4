import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { isInternalAddress } from '../src/metrics/route.js'
import { startFakeOpenAi } from './fakes/openai.js'
import { waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'
import type { Harness } from './helpers/harness.js'

const TOKEN = 'metrics-secret-7f3a'

/** The value of one sample line of the exposition (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const row of text.split('\n')) {
    if (!row.startsWith(`${name}{`) && !row.startsWith(`${name} `)) continue
    if (Object.entries(labels).every(([k, v]) => row.includes(`${k}="${v}"`))) return Number(row.slice(row.lastIndexOf(' ') + 1))
  }
  return undefined
}

async function listen(h: Harness): Promise<{ url: string; server: Server }> {
  const server = createAdaptorServer({ fetch: h.app.fetch }) as Server
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

describe('GET /metrics with METRICS_TOKEN', () => {
  // Before the harness's own beforeEach, which makes the app.
  beforeEach(() => {
    vi.stubEnv('METRICS_TOKEN', TOKEN)
  })
  const ctx = useHarness()
  afterEach(() => vi.unstubAllEnvs())

  it('answers only the bearer token, from anywhere', async () => {
    expect((await ctx.h.app.request('/metrics')).status).toBe(401)
    const wrong = await ctx.h.app.request('/metrics', { headers: { Authorization: 'Bearer metrics-secret-7f3b' } })
    expect(wrong.status).toBe(401)
    expect(await wrong.text()).not.toContain('lingxi_')
    const res = await ctx.h.app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    for (const name of ['process_cpu_user_seconds_total', 'nodejs_eventloop_lag_seconds', 'lingxi_sse_open_streams']) expect(text).toContain(name)
    // Every series the Grafana dashboard (deploy/grafana/lingxi.json) plots is one the server exports.
    const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/lingxi.json', import.meta.url), 'utf8')) as {
      panels: { targets: { expr: string }[] }[]
    }
    const plotted = dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\b(?:lingxi|nodejs|process)_[a-z0-9_]+/g) ?? []))
    expect(plotted.length).toBeGreaterThan(5)
    for (const name of plotted) expect(text, name).toMatch(new RegExp(`^# TYPE ${name.replace(/_(bucket|count|sum)$/, '')} `, 'm'))
  })

  it('counts requests by route pattern and status, never by raw path', async () => {
    await ctx.h.login('13800138000')
    for (const id of ['a1b2c3', 'd4e5f6']) await ctx.h.app.request(`/files/${id}.png`)
    await ctx.h.request('/api/v1/nothing-here')
    const text = await (await ctx.h.app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } })).text()
    expect(sample(text, 'lingxi_http_requests_total', { route: '/api/v1/auth/login', method: 'POST', status: '200' })).toBe(1)
    expect(sample(text, 'lingxi_http_request_duration_seconds_count', { route: '/api/v1/auth/login', status: '200' })).toBe(1)
    expect(sample(text, 'lingxi_http_requests_total', { route: '/files/*', method: 'GET' })).toBe(2)
    expect(text).not.toContain('a1b2c3')
    expect(text).not.toContain('nothing-here')
    expect(sample(text, 'lingxi_http_requests_total', { route: '(none)', status: '404' })).toBe(1)
    // The new account's starting allowance went through the balance log.
    expect(sample(text, 'lingxi_allowance_amount_total', { kind: 'tokens', direction: 'granted' })).toBeGreaterThan(0)
  })
})

describe('GET /metrics without a token', () => {
  const ctx = useHarness()

  it('answers internal addresses only, and nothing relayed by a proxy', async () => {
    const outside = { incoming: { socket: { remoteAddress: '203.0.113.7' } }, outgoing: {} }
    expect((await ctx.h.app.request('/metrics', {}, outside)).status).toBe(403)
    const { url, server } = await listen(ctx.h)
    try {
      const direct = await fetch(`${url}/metrics`)
      expect(direct.status).toBe(200)
      expect(await direct.text()).toContain('lingxi_http_requests_total')
      const relayed = await fetch(`${url}/metrics`, { headers: { 'X-Forwarded-For': '198.51.100.4' } })
      expect(relayed.status).toBe(403)
    } finally {
      await stop(server)
    }
  })

  it('tells internal addresses from public ones', () => {
    for (const a of ['127.0.0.1', '::1', '10.1.2.3', '172.20.0.5', '192.168.1.9', '::ffff:10.0.0.1', 'fd12::1', '100.64.0.1'])
      expect(isInternalAddress(a)).toBe(true)
    for (const a of ['203.0.113.7', '172.32.0.1', '8.8.8.8', '::ffff:8.8.8.8', '2001:db8::1', undefined, 'unknown']) expect(isInternalAddress(a)).toBe(false)
  })

  it('counts open event streams and upstream calls by provider and outcome', async () => {
    const fake = await startFakeOpenAi()
    const { url, server } = await listen(ctx.h)
    const stream = new AbortController()
    try {
      const { accessToken } = await ctx.h.login('13800138001')
      const res = await fetch(`${url}/api/v1/ai-chat/sse/subscribe`, { headers: { Authorization: `Bearer ${accessToken}` }, signal: stream.signal })
      expect(res.status).toBe(200)
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
      await waitUntil(() => ctx.h.streams.open.size === 1)
      // Any outgoing call through fetch is counted: here one to the fake upstream, answered 404.
      await (await fetch(`${fake.url}/v1/no-such-thing`)).text()
      const text = await (await fetch(`${url}/metrics`)).text()
      expect(sample(text, 'lingxi_sse_open_streams')).toBe(1)
      const provider = new URL(fake.url).host
      expect(sample(text, 'lingxi_upstream_requests_total', { provider, outcome: '4xx' })).toBeGreaterThanOrEqual(1)
      expect(sample(text, 'lingxi_upstream_time_to_first_byte_seconds_count', { provider })).toBeGreaterThanOrEqual(1)
      stream.abort()
      await waitUntil(() => ctx.h.streams.open.size === 0)
      const after = await (await fetch(`${url}/metrics`)).text()
      expect(sample(after, 'lingxi_sse_open_streams')).toBe(0)
      expect(sample(after, 'lingxi_http_requests_total', { route: '/api/v1/ai-chat/sse/subscribe', status: '200' })).toBe(1)
    } finally {
      stream.abort()
      await stop(server)
      await fake.close()
    }
  })
})
