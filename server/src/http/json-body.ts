import type { Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { EdgeStep } from './edge.js'
import { incomingOf } from './request-header.js'

/**
 * Request bodies read from Node's request itself when the server runs on @hono/node-server.
 *
 * `c.req.text()` and `c.req.raw.body` make the adapter build a whole Web `Request` (its Headers,
 * an AbortController, a ReadableStream over Node's stream): for a body of a few bytes, a large part
 * of what an API request cost (bench/profile.mjs on user/info). Here the size check reads the
 * Content-Length header, and the text is gathered from Node's stream; without Node's request (tests'
 * app.request()), or for a chunked body (no length to check before reading), hono's own way.
 */

/**
 * Refuses a body over `maxSize` bytes (`onError` answers or throws), reading no more of it than
 * hono's bodyLimit would; paths under `except` are left to their routes (signed uploads cap their own).
 */
export function bodyLimitStep(options: { under: string; except?: string; maxSize: number; onError: (c: Context) => Response | Promise<Response> }): EdgeStep {
  const fallback = bodyLimit(options)
  const ignore = async () => {}
  return {
    under: options.under,
    before(c) {
      if (options.except !== undefined && c.req.path.startsWith(options.except)) return undefined
      const incoming = incomingOf(c)
      if (!incoming || incoming.headers['transfer-encoding'] !== undefined) {
        // hono's way reads the whole body first; its answer, if any, is the refusal.
        return (fallback(c, ignore) as Promise<Response | undefined>).then((answer) => answer ?? undefined)
      }
      // HTTP/1.1: without Transfer-Encoding, Content-Length is the body's size (none: no body), and
      // Node's parser delivers no more than it says.
      if (Number(incoming.headers['content-length'] ?? 0) > options.maxSize) return options.onError(c)
      return undefined
    }
  }
}

/** The request body as text (UTF-8), read once; later `c.req.text()` / `c.req.json()` get the same text. */
export function requestText(c: Context): Promise<string> {
  const incoming = incomingOf(c)
  // Untouched by anyone (no reader attached, not ended): read it here. Otherwise hono's way, which
  // also answers from its cache when the body was read before.
  if (!incoming || incoming.readableFlowing !== null || incoming.readableEnded || 'text' in c.req.bodyCache) return c.req.text()
  const text = new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = []
    const done = (error?: Error) => {
      incoming.off('data', onData)
      incoming.off('end', onEnd)
      incoming.off('error', done)
      incoming.off('close', onClose)
      if (error) reject(error)
      else resolve(Buffer.concat(chunks).toString('utf8'))
    }
    const onData = (chunk: Buffer) => chunks.push(chunk)
    const onEnd = () => done()
    const onClose = () => {
      if (!incoming.readableEnded) done(new Error('the client closed the connection before its request body ended'))
    }
    incoming.on('data', onData)
    incoming.on('end', onEnd)
    incoming.on('error', done)
    incoming.on('close', onClose)
  })
  // hono keeps the promise of the text here (its types name the resolved value).
  ;(c.req.bodyCache as Record<string, unknown>).text = text
  return text
}
