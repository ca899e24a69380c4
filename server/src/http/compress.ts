import { promisify } from 'node:util'
import { deflate, deflateSync, gzip, gzipSync } from 'node:zlib'
import type { Context } from 'hono'
import { parseAccept } from 'hono/utils/accept'
import { COMPRESSIBLE_CONTENT_TYPE_REGEX } from 'hono/utils/compress'
import type { EdgeStep } from './edge.js'
import { requestHeader } from './request-header.js'

/**
 * Response compression, in place of hono/compress, which pipes every compressible answer through a
 * CompressionStream: JSON answers carry no Content-Length, so its threshold never applied and each
 * answer of a few hundred bytes went out gzip-streamed (a ReadableStream, a Web stream transform,
 * chunked writes: several times the CPU of the request itself; bench/profile.mjs).
 *
 * Here a body the app holds whole (a string or bytes: c.json, c.text, c.body) is compressed only
 * from `threshold` bytes, at once with node:zlib (up to `syncLimit`; larger ones on libuv's thread
 * pool), and goes out as bytes with a Content-Length. A streamed body of a known length (the site's
 * files) is still compressed as a stream from `streamThreshold` bytes (the 0.9 KB lazy chunks of
 * the embed). A stream of unknown length (event streams above all) and an answer already encoded
 * are never touched. `Vary: Accept-Encoding` is set on every answer by securityStep
 * (http/security.ts) before the handler runs, and added here to a compressible answer made
 * without it.
 */
export interface CompressOptions {
  /** Whole bodies (strings, bytes) from this many bytes; default 1 KB. */
  threshold?: number
  /** Streamed bodies of a known length from this many bytes; default 256. */
  streamThreshold?: number
  /** Whole bodies up to this many bytes are compressed on the main thread; default 16 KB. */
  syncLimit?: number
}

type Encoding = 'gzip' | 'deflate'
type Plain = string | Uint8Array | ArrayBuffer

const CANDIDATES: readonly Encoding[] = ['gzip', 'deflate']
const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i
const VARY_ACCEPT_ENCODING = /(?:^|,)\s*accept-encoding\s*(?:,|$)/i
const TEXT_PLAIN = 'text/plain; charset=UTF-8'
const gzipLater = promisify(gzip)
const deflateLater = promisify(deflate)

/** The encoding to answer in: gzip or deflate by the client's q-values (as hono/compress chooses), else none. */
export function chooseEncoding(header: string | undefined): Encoding | undefined {
  if (!header) return undefined
  const accepts = parseAccept(header)
  const wildcard = accepts.find((a) => a.type === '*')?.q
  let best: { encoding: Encoding; q: number } | undefined
  for (const encoding of CANDIDATES) {
    const q = accepts.find((a) => a.type.toLowerCase() === encoding)?.q ?? wildcard ?? 0
    if (q === 1) return encoding
    if (q > 0 && (!best || q > best.q)) best = { encoding, q }
  }
  return best?.encoding
}

// Clients send a handful of distinct Accept-Encoding values: each is parsed once.
const chosen = new Map<string, Encoding | undefined>()
function encodingFor(header: string | undefined): Encoding | undefined {
  if (!header) return undefined
  if (chosen.has(header)) return chosen.get(header)
  const encoding = chooseEncoding(header)
  if (chosen.size < 256) chosen.set(header, encoding)
  return encoding
}

const byteLength = (body: Plain) => (typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength)
const bytesOf = (body: Plain) => (typeof body === 'string' ? Buffer.from(body) : body instanceof Uint8Array ? body : new Uint8Array(body))

/**
 * While the request is served, c.json, c.text and c.body note the whole body of the Response they
 * make, so that it can be compressed afterwards without reading the Response's stream. Nothing is
 * noted for an answer made another way (`new Response`, or one copied by a later c.header): it is
 * then treated as a stream.
 */
function notePlainBodies(c: Context, plain: WeakMap<Response, Plain>): void {
  const body = c.body
  const note = (res: Response, data: unknown) => {
    if (typeof data === 'string' || data instanceof Uint8Array || data instanceof ArrayBuffer) plain.set(res, data)
    return res
  }
  const made = (data: unknown, arg?: unknown, headers?: unknown) => note((body as (...args: unknown[]) => Response)(data, arg, headers), data)
  c.body = made as typeof c.body
  // As hono makes them: a default Content-Type that the caller's headers replace.
  c.json = ((object: unknown, arg?: unknown, headers?: Record<string, string | string[]>) =>
    made(JSON.stringify(object), arg, { 'Content-Type': 'application/json', ...headers })) as typeof c.json
  c.text = ((text: string, arg?: unknown, headers?: Record<string, string | string[]>) =>
    made(text, arg, { 'Content-Type': TEXT_PLAIN, ...headers })) as typeof c.text
}

async function compressed(body: Plain, encoding: Encoding, syncLimit: number): Promise<Uint8Array> {
  const bytes = bytesOf(body)
  if (bytes.byteLength <= syncLimit) return encoding === 'gzip' ? gzipSync(bytes) : deflateSync(bytes)
  return encoding === 'gzip' ? gzipLater(bytes) : deflateLater(bytes)
}

/** The whole bodies noted by notePlainBodies, by the Response made of them (one map: each Response is its request's own). */
const plainBodies = new WeakMap<Response, Plain>()

export function compressStep(options: CompressOptions = {}): EdgeStep {
  const threshold = options.threshold ?? 1024
  const streamThreshold = options.streamThreshold ?? 256
  const syncLimit = options.syncLimit ?? 16 * 1024
  const encodingOf = (c: Context) => (c.req.method === 'HEAD' ? undefined : encodingFor(requestHeader(c, 'accept-encoding')))
  return {
    before(c) {
      if (encodingOf(c)) notePlainBodies(c, plainBodies)
      return undefined
    },
    after(c) {
      const res = c.res
      const headers = res.headers
      const type = headers.get('Content-Type')
      if (!type || !COMPRESSIBLE_CONTENT_TYPE_REGEX.test(type)) return
      const cacheControl = headers.get('Cache-Control')
      if (cacheControl && NO_TRANSFORM.test(cacheControl)) return
      if (res.status === 206 || headers.has('Content-Encoding') || headers.has('Transfer-Encoding')) return
      const vary = headers.get('Vary')
      if (vary !== '*' && !(vary && VARY_ACCEPT_ENCODING.test(vary))) c.header('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding')
      const encoding = encodingOf(c)
      if (!encoding) return
      const whole = plainBodies.get(c.res)
      if (whole !== undefined) {
        if (byteLength(whole) < threshold) return
        return replaceWith(c, whole, encoding, syncLimit)
      }
      // A stream: only one whose length is known (a file), never an event stream or one of unknown length.
      const length = c.res.headers.get('Content-Length')
      if (length === null || Number(length) < streamThreshold || !c.res.body) return
      const streamed = new Response(c.res.body.pipeThrough(new CompressionStream(encoding)), c.res)
      streamed.headers.delete('Content-Length')
      streamed.headers.set('Content-Encoding', encoding)
      weakenEtag(streamed.headers)
      c.res = undefined
      c.res = streamed
      return
    }
  }
}

async function replaceWith(c: Context, whole: Plain, encoding: Encoding, syncLimit: number): Promise<void> {
  const out = new Headers(c.res.headers)
  out.set('Content-Encoding', encoding)
  out.delete('Content-Length')
  weakenEtag(out)
  const status = c.res.status
  const zipped = await compressed(whole, encoding, syncLimit)
  // Replaced, not merged: these headers are already the answer's.
  c.res = undefined
  c.res = new Response(zipped as Uint8Array<ArrayBuffer>, { status, headers: out })
}

function weakenEtag(headers: Headers): void {
  const etag = headers.get('ETag')
  if (etag && !etag.startsWith('W/')) headers.set('ETag', `W/${etag}`)
}
