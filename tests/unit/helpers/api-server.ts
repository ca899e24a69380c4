import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request as the server saw it. */
export interface Call {
  method: string
  path: string
  query: URLSearchParams
  authorization: string | undefined
  /** The `X-Lingxi-Request` header, the CSRF guard of a cookie session (ADR 0019). */
  csrf: string | undefined
  body: unknown
}

export interface Reply {
  status?: number
  /** JSON-encoded as the body. */
  body?: unknown
  /** Sent verbatim instead of `body`. */
  raw?: string
  /** Drop the connection without answering. */
  destroy?: boolean
}

export type Handler = (call: Call) => Reply | Promise<Reply>

export const ok = (data: unknown): Reply => ({ body: { code: 2000, message: 'success', data } })
export const fail = (code: number, message: string, status = 400): Reply => ({
  status,
  body: { code, message, data: null }
})

/**
 * A loopback HTTP server speaking the API envelope, with the CORS answers a browser needs (the
 * tests' window lives on another origin, as a partner page would).
 */
export async function startApi(routes: Record<string, Handler> = {}) {
  const calls: Call[] = []
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
    res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept, x-lingxi-request, last-event-id')
    res.setHeader('Access-Control-Allow-Credentials', 'true')
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
    if (req.method === 'OPTIONS') {
      res.statusCode = 204
      res.end()
      return
    }
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const url = new URL(req.url ?? '/', 'http://x')
    let body: unknown
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {
      body = text
    }
    const call: Call = {
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
      csrf: req.headers['x-lingxi-request'] as string | undefined,
      body
    }
    calls.push(call)
    const handler = routes[url.pathname]
    const reply: Reply = handler ? await handler(call) : fail(40400001, `no route ${url.pathname}`, 404)
    if (reply.destroy) {
      res.socket?.destroy()
      return
    }
    res.statusCode = reply.status ?? 200
    res.setHeader('content-type', 'application/json; charset=utf-8')
    res.end(reply.raw ?? JSON.stringify(reply.body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    routes,
    /** The calls to one path. */
    to: (path: string) => calls.filter((c) => c.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

export type Api = Awaited<ReturnType<typeof startApi>>
