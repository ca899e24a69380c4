import { randomUUID } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { AppContext, AppEnv } from '../http/api.js'
import { clientAddress } from '../http/client-address.js'
import { type RequestContext, requestContext } from '../logger.js'
import type { Metrics } from './registry.js'
import { requestHeader } from '../http/request-header.js'

/** One access-log line: what docs/deployment.md ("Access log") lists. */
export interface AccessEntry {
  time: string
  level: 'info'
  msg: 'request'
  requestId: string
  method: string
  /** The route's pattern (`/api/v1/files/:id`), `(site)` for the site and files, `(none)` when nothing matched. */
  route: string
  path: string
  status: number
  /** To the response head (an event stream: until it opened). */
  durationMs: number
  /** The body's length when known (Content-Length); null for streams and compressed bodies. */
  bytes: number | null
  accountId: string | null
  client: string
}

export interface RequestTrackingOptions {
  metrics: Metrics
  /** Proxies in front (TRUST_PROXY): X-Request-Id is taken from the request only when at least one. */
  trustProxy: number
  /** Where access-log lines go; none: no access log (ACCESS_LOG=off). */
  accessLog?: (entry: AccessEntry) => void
}

/** A request id a proxy may hand on: short, and nothing a log line could be broken with. */
const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Lines waiting for the end of this turn of the event loop; written at once above this size. */
const ACCESS_FLUSH_BYTES = 64 * 1024
let pendingLines = ''
let flushScheduled = false
let exitHooked = false

function flushAccessLog(): void {
  flushScheduled = false
  if (pendingLines === '') return
  const text = pendingLines
  pendingLines = ''
  process.stdout.write(text)
}

/**
 * The access log on stdout, one JSON object a line. Writing to stdout is synchronous (a file, a
 * pipe or a terminal): one write a request was a system call a request (5 % of user/info's CPU,
 * bench/profile.mjs). The lines of one turn of the event loop go out together, at its end (as
 * pino's buffered destination does); what is still waiting when the process exits is written then.
 */
export const stdoutAccessLog = (entry: AccessEntry) => {
  pendingLines += `${JSON.stringify(entry)}\n`
  if (pendingLines.length >= ACCESS_FLUSH_BYTES) return flushAccessLog()
  if (flushScheduled) return
  flushScheduled = true
  setImmediate(flushAccessLog)
  if (!exitHooked) {
    exitHooked = true
    process.once('exit', flushAccessLog)
  }
}

function routeOf(c: AppContext): string {
  const route = matchedRoutes(c)[c.req.routeIndex]
  // Handlers are registered for a method; middleware (the site, the not-found answer) for ALL.
  if (!route || route.method === 'ALL') return c.res.status === 404 || c.res.status === 405 ? '(none)' : '(site)'
  return route.path
}

/**
 * The outermost middleware: gives the request its id (X-Request-Id, answered on every response, event
 * streams included), runs it inside the log context (logger.ts), then counts it and writes its
 * access-log line. /metrics itself is counted but not logged (scrapes would fill the log).
 */
export function trackRequests(options: RequestTrackingOptions): MiddlewareHandler<AppEnv> {
  const { metrics, trustProxy, accessLog } = options
  return async (c, next) => {
    const started = performance.now()
    const given = trustProxy > 0 ? requestHeader(c, 'x-request-id') : undefined
    const requestId = given && ACCEPTED_ID.test(given) ? given : randomUUID()
    c.set('requestId', requestId)
    // Before the handler, so that every answer made through the context carries it at no cost.
    c.header('X-Request-Id', requestId)
    const context: RequestContext = { requestId }
    await requestContext.run(context, next)
    // An answer built as a bare Response (a file, an event stream, whose head is written with these
    // headers at its first flush: http/sse.ts) gets it now.
    if (!c.res.headers.has('x-request-id')) c.header('X-Request-Id', requestId)
    const seconds = (performance.now() - started) / 1000
    const route = routeOf(c)
    const status = c.res.status
    metrics.requests.inc({ method: c.req.method, route, status })
    metrics.duration.observe({ method: c.req.method, route, status }, seconds)
    if (!accessLog || route === '/metrics') return
    const length = c.res.headers.get('content-length')
    accessLog({
      time: new Date().toISOString(),
      level: 'info',
      msg: 'request',
      requestId,
      method: c.req.method,
      route,
      path: c.req.path,
      status,
      durationMs: Math.round(seconds * 10_000) / 10,
      bytes: length === null ? null : Number(length),
      accountId: c.get('auth')?.account.id ?? context.accountId ?? null,
      client: clientAddress(c, trustProxy)
    })
  }
}
