import type { Hono } from 'hono'
import type { AppEnv } from './api.js'

/**
 * What a load balancer and an orchestrator ask (docs/deployment.md, "Operating Lingxi"):
 * - `GET /healthz`: the process is alive and its event loop answers. Nothing else is checked, so a
 *   database outage does not get every node restarted at once.
 * - `GET /readyz`: this node can serve — every check answers within `timeoutMs`, and it is not
 *   shutting down. Otherwise 503, naming the parts that failed.
 * Both are JSON, never cached, and never the site's HTML fallback.
 */
export interface HealthOptions {
  /** The parts to check, by name (database; redis when configured). Each resolves when the part answers. */
  checks: Record<string, () => Promise<unknown>>
  /** How long one check may take (default 2 s). */
  timeoutMs?: number
}

export interface Health {
  /** From now on /readyz answers 503 "stopping" (called when shutdown begins). */
  stopping(): void
}

const NO_STORE = { 'Cache-Control': 'no-store' }

export function registerHealthRoutes(app: Hono<AppEnv>, options: HealthOptions): Health {
  const timeoutMs = options.timeoutMs ?? 2000
  let stopping = false

  app.on(['GET', 'HEAD'], '/healthz', (c) => c.json({ status: 'ok' }, 200, NO_STORE))

  app.on(['GET', 'HEAD'], '/readyz', async (c) => {
    if (stopping) return c.json({ status: 'stopping', failing: [] }, 503, NO_STORE)
    const names = Object.keys(options.checks)
    const outcomes = await Promise.all(names.map((name) => withTimeout(options.checks[name]!(), timeoutMs)))
    const checks: Record<string, string> = {}
    names.forEach((name, i) => {
      checks[name] = outcomes[i]!
    })
    const failing = names.filter((name) => checks[name] !== 'ok')
    return c.json({ status: failing.length ? 'not ready' : 'ready', checks, failing }, failing.length ? 503 : 200, NO_STORE)
  })

  return {
    stopping() {
      stopping = true
    }
  }
}

/** 'ok', or why not: 'timeout' or the error's message (no stack; these answers are public). */
async function withTimeout(check: Promise<unknown>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms)
  })
  try {
    return await Promise.race([check.then(() => 'ok'), timeout])
  } catch {
    return 'error'
  } finally {
    clearTimeout(timer)
  }
}
