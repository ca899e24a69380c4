import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../src/http/api.js'
import { registerHealthRoutes } from '../src/http/health.js'
import { useHarness } from './helpers/database-hooks.js'

describe('health routes of the app', () => {
  // With REDIS_URL (CI's second run) the app is configured with Redis, so /readyz checks it too.
  const ctx = useHarness({ env: process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {} })

  it('/healthz answers JSON 200, never the site, never cached', async () => {
    const res = await ctx.h.app.request('/healthz')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(await res.json()).toEqual({ status: 'ok' })
  })

  it('/readyz checks the database (and Redis when configured) and is 503 once shutdown begins', async () => {
    const ready = await ctx.h.app.request('/readyz')
    expect(ready.status).toBe(200)
    const body = (await ready.json()) as { status: string; checks: Record<string, string> }
    expect(body.status).toBe('ready')
    expect(body.checks.database).toBe('ok')
    expect(body.checks.redis).toBe(process.env.REDIS_URL ? 'ok' : undefined)
    ctx.h.health.stopping()
    const stopping = await ctx.h.app.request('/readyz')
    expect(stopping.status).toBe(503)
    expect(await stopping.json()).toMatchObject({ status: 'stopping' })
    // Alive all the same: an orchestrator must not kill a node that is finishing its requests.
    expect((await ctx.h.app.request('/healthz')).status).toBe(200)
  })
})

describe('readiness checks', () => {
  const app = (checks: Record<string, () => Promise<unknown>>) => {
    const hono = new Hono<AppEnv>()
    registerHealthRoutes(hono, { checks, timeoutMs: 100 })
    return hono
  }

  it('names a part that fails or hangs, without its error text', async () => {
    const res = await app({
      database: () => Promise.reject(new Error('password authentication failed for user "lingxi" secret=abc')),
      redis: () => new Promise(() => {}),
      other: async () => 1
    }).request('/readyz')
    expect(res.status).toBe(503)
    const text = await res.text()
    expect(JSON.parse(text)).toEqual({ status: 'not ready', checks: { database: 'error', redis: 'timeout', other: 'ok' }, failing: ['database', 'redis'] })
    expect(text).not.toContain('secret')
  })
})
