import { timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'
import type { HttpBindings } from '@hono/node-server'
import type { App } from '../http/api.js'
import type { Metrics } from './registry.js'

/** IPv4 10/8, 172.16/12, 192.168/16, 127/8, 169.254/16, 100.64/10 (CGNAT); IPv6 ::1, fc00::/7, fe80::/10, and v4-mapped forms. */
export function isInternalAddress(address: string | undefined): boolean {
  if (!address) return false
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address
  if (isIP(v4) === 4) {
    const [a = 0, b = 0] = v4.split('.').map(Number)
    return (
      a === 10 || a === 127 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b < 128)
    )
  }
  if (isIP(address) !== 6) return false
  const lower = address.toLowerCase()
  return lower === '::1' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower)
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * `GET /metrics` (Prometheus text format). With METRICS_TOKEN set, only `Authorization: Bearer
 * <token>` is answered, from anywhere. Without it, only callers whose own socket address is internal
 * (loopback, private ranges): X-Forwarded-For is not looked at, so a request relayed by the public
 * proxy (whose address is internal too) is refused by the X-Forwarded-For it carries.
 */
export function registerMetricsRoute(app: App, metrics: Metrics, token: string | undefined): void {
  app.get('/metrics', async (c) => {
    const headers = { 'Cache-Control': 'no-store' }
    if (token) {
      const given = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? ''
      if (!sameToken(given, token)) return c.text('unauthorized\n', 401, { ...headers, 'WWW-Authenticate': 'Bearer realm="metrics"' })
    } else {
      const socket = (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket
      // Through a proxy: the request came from outside, whatever the proxy's own address.
      if (!isInternalAddress(socket?.remoteAddress) || c.req.header('x-forwarded-for') !== undefined) {
        return c.text('forbidden: set METRICS_TOKEN, or scrape from an internal address\n', 403, headers)
      }
    }
    return c.body(await metrics.text(), 200, { ...headers, 'Content-Type': metrics.contentType })
  })
}
