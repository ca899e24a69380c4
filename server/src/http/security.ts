import type { Context } from 'hono'
import type { EdgeStep } from './edge.js'
import { requestHeader } from './request-header.js'

/**
 * Headers of these middlewares are set before the handler runs, so that the answer made by c.json()
 * and the like carries them from the start. Setting one after the answer exists makes Hono copy it
 * (c.header on a finished answer re-creates the Response from its body), which turns
 * @hono/node-server's plain-string answer into a Web Response with a ReadableStream body: 30–40 % of
 * a small JSON route's CPU (docs/benchmarks.md). An answer made without `c` (a `new Response`) does
 * not carry them: `ensure` adds them afterwards, the slow way, only then.
 */
function ensure(c: Context, name: string, value: string): void {
  if (c.res.headers.get(name) !== value) c.header(name, value)
}

const hasOrigin = (vary: string | null) => vary?.split(',').some((part) => part.trim().toLowerCase() === 'origin') === true

const ALLOWED_HEADERS = 'Authorization, Content-Type, Last-Event-ID, X-Lingxi-Request'

/**
 * CORS for the origins in CORS_ORIGINS only. Any other origin gets no CORS header at all,
 * not even on a preflight, so the browser blocks the call. Allowed origins may send credentials
 * (the session cookie, docs/decisions/0019-session-cookie.md): the answer names that one origin,
 * never `*`, and varies by Origin.
 */
export function corsStep(under: string, origins: readonly string[]): EdgeStep {
  const allowed = new Set(origins)
  const allowedOrigin = (c: Context) => {
    const origin = requestHeader(c, 'origin')
    return origin !== undefined && allowed.has(origin) ? origin : undefined
  }
  return {
    under,
    before(c) {
      const origin = allowedOrigin(c)
      if (c.req.method === 'OPTIONS' && requestHeader(c, 'access-control-request-method')) {
        const headers = new Headers({ Vary: 'Origin' })
        if (origin) {
          headers.set('Access-Control-Allow-Origin', origin)
          headers.set('Access-Control-Allow-Credentials', 'true')
          headers.set('Access-Control-Allow-Methods', 'GET, POST, PUT, OPTIONS')
          headers.set('Access-Control-Allow-Headers', ALLOWED_HEADERS)
          headers.set('Access-Control-Max-Age', '600')
        }
        return new Response(null, { status: 204, headers })
      }
      c.header('Vary', 'Origin', { append: true })
      if (origin) {
        c.header('Access-Control-Allow-Origin', origin)
        c.header('Access-Control-Allow-Credentials', 'true')
        c.header('Access-Control-Expose-Headers', 'X-Request-Id')
      }
      return undefined
    },
    after(c) {
      if (!hasOrigin(c.res.headers.get('vary'))) c.header('Vary', 'Origin', { append: true })
      const origin = allowedOrigin(c)
      if (origin) {
        ensure(c, 'Access-Control-Allow-Origin', origin)
        ensure(c, 'Access-Control-Allow-Credentials', 'true')
        ensure(c, 'Access-Control-Expose-Headers', 'X-Request-Id')
      }
    }
  }
}

/** On every response (and `Vary: Accept-Encoding`). The HTML-only headers (CSP, framing) are set where HTML is served. */
export const securityStep: EdgeStep = {
  before(c) {
    // compressStep (http/compress.ts) adds `Vary: Accept-Encoding` to every compressible answer
    // after the handler, which costs the copy described above; named here, it finds it there.
    c.header('Vary', 'Accept-Encoding')
    c.header('X-Content-Type-Options', 'nosniff')
    c.header('Referrer-Policy', 'strict-origin-when-cross-origin')
    return undefined
  },
  after(c) {
    ensure(c, 'X-Content-Type-Options', 'nosniff')
    ensure(c, 'Referrer-Policy', 'strict-origin-when-cross-origin')
  }
}

export const SITE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'self'"
].join('; ')

export const htmlHeaders: Record<string, string> = {
  'Content-Security-Policy': SITE_CSP,
  'X-Frame-Options': 'SAMEORIGIN'
}

/** API answers are per user and per moment: never cached. A handler may choose otherwise (SSE). */
export function noStoreStep(under: string): EdgeStep {
  return {
    under,
    before(c) {
      // Replaced by a handler's own Cache-Control (c.header, or the headers of c.json and the like).
      c.header('Cache-Control', 'no-store')
      return undefined
    },
    after(c) {
      if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store')
    }
  }
}
