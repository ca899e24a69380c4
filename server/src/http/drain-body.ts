import type { IncomingMessage } from 'node:http'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './api.js'

/** Above nginx's client_max_body_size (12 MB, deploy/nginx.conf): whatever the proxy forwards is read to the end. */
export const DRAIN_MAX_BYTES = 16 * 1024 * 1024
/** A body still arriving after this long is not waited for. */
export const DRAIN_MAX_MS = 10_000

/**
 * Reads what is left of a request body and throws it away. Resolves true when the body was read to
 * its end (the connection can carry the next request), false when it was too large, too slow or
 * broken off.
 */
export function drainRequestBody(incoming: IncomingMessage, maxBytes = DRAIN_MAX_BYTES, maxMs = DRAIN_MAX_MS): Promise<boolean> {
  if (incoming.readableEnded) return Promise.resolve(true)
  if (incoming.destroyed) return Promise.resolve(false)
  if (Number(incoming.headers['content-length']) > maxBytes) return Promise.resolve(false)
  return new Promise((resolve) => {
    let bytes = 0
    const finish = (drained: boolean) => {
      clearTimeout(timer)
      incoming.off('data', onData)
      incoming.off('end', onEnd)
      incoming.off('close', onClose)
      resolve(drained)
    }
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes > maxBytes) finish(false)
    }
    const onEnd = () => finish(true)
    const onClose = () => finish(incoming.readableEnded)
    const timer = setTimeout(() => finish(false), maxMs)
    // The request's web stream (never read, or read in part) still listens, and pauses the socket
    // whenever its queue is full — that is what stalls the adapter's own drain. It is taken off, so
    // what is left flows here and is dropped.
    incoming.removeAllListeners('data')
    incoming.on('data', onData)
    incoming.on('end', onEnd)
    incoming.on('close', onClose)
    incoming.resume()
  })
}

/**
 * A request answered before its body was read (401 before the body of an anonymous POST, 413 on its
 * declared length, a refused upload) leaves the rest of the body on the connection. Left there,
 * it is never read (see below) and @hono/node-server closes the connection after 500 ms — after
 * nginx has put it back in its keep-alive pool, so the next request nginx sends on it fails with 502. Here the rest is read
 * before the answer goes out, so the connection carries the next request; a body too large or too
 * slow to read is answered with `Connection: close`, so no proxy sends anything more on it.
 */
export const drainBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next()
  const incoming = c.env?.incoming as IncomingMessage | undefined
  // GET and HEAD carry no body (the adapter lets Node discard one); tests call the app without a socket.
  if (c.req.method === 'GET' || c.req.method === 'HEAD' || typeof incoming?.resume !== 'function') return
  if (!(await drainRequestBody(incoming))) c.header('Connection', 'close')
}
