import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'

/** Node's request behind the context, when the app runs on @hono/node-server (not in tests' app.request()). */
export function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming as IncomingMessage | undefined
  return typeof incoming?.on === 'function' && typeof incoming.headers === 'object' ? incoming : undefined
}

/**
 * A request header, as `c.req.header(name)` answers it, read from Node's raw header list when there
 * is one: on @hono/node-server the first `c.req.header()` builds a Web `Headers` of every header
 * (about 6 % of user/info's CPU, docs/benchmarks.md), and the generic middleware and the
 * authentication read only a few. The same answer: every value of the name, case-insensitively, in
 * order, joined by ", " — by "; " for Cookie, as undici's Headers joins it (Node's own `headers`
 * object would keep only the first Authorization).
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const raw = incomingOf(c)?.rawHeaders
  if (!raw) return c.req.header(name)
  const wanted = name.toLowerCase()
  const separator = wanted === 'cookie' ? '; ' : ', '
  let value: string | undefined
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i]!
    if (key.length !== wanted.length || key.toLowerCase() !== wanted) continue
    value = value === undefined ? raw[i + 1]! : `${value}${separator}${raw[i + 1]!}`
  }
  return value
}
