// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/core/api'
import { configure } from '../../src/core/config'
import { retryDelay, subscribe } from '../../src/core/sse'
import { $token } from '../../src/core/stores'
import { resetCore } from './helpers/reset'

// A loopback server writing real SSE frames, the way the Lingxi server answers
// GET /api/v1/ai-chat/sse/subscribe/{requestId} (docs/chat-wire.md, Streams).

type Handler = (req: IncomingMessage, res: ServerResponse, connection: number) => void | Promise<void>

let server: ReturnType<typeof createServer>
let base = ''
let handler: Handler = (_req, res) => void res.end()
let seen: { path: string; headers: IncomingMessage['headers'] }[] = []

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const fast = () => 5

function open(res: ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  res.flushHeaders()
}

/** Writes each piece as its own chunk, a little apart, so the client reads them separately. */
async function trickle(res: ServerResponse, pieces: (string | Buffer)[]) {
  for (const piece of pieces) {
    res.write(piece)
    await sleep(15)
  }
}

const frame = (id: number, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`

beforeAll(async () => {
  server = createServer(async (req, res) => {
    res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
    res.setHeader('Access-Control-Allow-Headers', 'authorization, accept, last-event-id, cache-control, content-type, x-lingxi-request')
    res.setHeader('Access-Control-Allow-Credentials', 'true')
    if (req.method === 'OPTIONS') {
      res.statusCode = 204
      res.end()
      return
    }
    seen.push({ path: req.url ?? '', headers: req.headers })
    await handler(req, res, seen.length)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
)
beforeEach(() => {
  resetCore()
  configure({ apiBase: base })
  seen = []
})

function collect() {
  const events: [string, unknown, string | undefined][] = []
  return { events, onEvent: (name: string, data: unknown, id: string | undefined) => events.push([name, data, id]) }
}

describe('subscribe', () => {
  it('GETs the stream with the bearer token, delivers parsed events in order and resolves on the terminal one', async () => {
    $token.set('tok-sse')
    handler = (_req, res) => {
      open(res)
      res.write(frame(1, 'delta', { content: '你' }) + frame(2, 'delta', { thinking: '想' }))
      res.write(frame(3, 'done', { status: 'complete', usage: { promptTokens: 1, completionTokens: 2, charged: 3 }, messageId: 'm1' }))
      // The server closes after the terminal event; anything after it is not delivered.
      res.end(frame(4, 'delta', { content: 'late' }))
    }
    const { events, onEvent } = collect()
    await subscribe('/ai-chat/sse/subscribe/r1', { onEvent })
    expect(seen[0]!.path).toBe('/api/v1/ai-chat/sse/subscribe/r1')
    expect(seen[0]!.headers.authorization).toBe('Bearer tok-sse')
    // the CSRF header a cookie session needs goes with every stream (ADR 0019)
    expect(seen[0]!.headers['x-lingxi-request']).toBe('1')
    expect(seen[0]!.headers.accept).toBe('text/event-stream')
    expect(seen[0]!.headers['last-event-id']).toBeUndefined()
    expect(events).toEqual([
      ['delta', { content: '你' }, '1'],
      ['delta', { thinking: '想' }, '2'],
      ['done', { status: 'complete', usage: { promptTokens: 1, completionTokens: 2, charged: 3 }, messageId: 'm1' }, '3']
    ])
  })

  it('reassembles frames split at awkward places (mid-line, mid-character, CRLF) and skips heartbeats', async () => {
    const bytes = Buffer.from('data: {"content":"灵犀"}\n\n')
    const cut = bytes.indexOf(Buffer.from('犀')) + 1 // inside the three bytes of 犀
    handler = async (_req, res) => {
      open(res)
      await trickle(res, [
        ': ping\n\n',
        'id: 1\nev',
        'ent: delta\n',
        bytes.subarray(0, cut),
        bytes.subarray(cut, cut + 1),
        bytes.subarray(cut + 1, bytes.length - 1),
        '\n',
        ': ping\n\n',
        'id: 2\r\nevent: delta\r\ndata: {"content":"a\\nb"}\r\n\r',
        '\nid: 3\nevent: stopped\ndata: {"status":"interrput","messageId":"m"}\n',
        '\n'
      ])
      res.end()
    }
    const { events, onEvent } = collect()
    await subscribe('/s', { onEvent })
    expect(events).toEqual([
      ['delta', { content: '灵犀' }, '1'],
      ['delta', { content: 'a\nb' }, '2'],
      ['stopped', { status: 'interrput', messageId: 'm' }, '3']
    ])
  })

  it('reconnects after a dropped connection with Last-Event-ID and carries on from there', async () => {
    const delays: number[] = []
    handler = async (req, res, n) => {
      if (n === 1) {
        open(res)
        await trickle(res, [frame(1, 'delta', { content: 'a' }), frame(2, 'delta', { content: 'b' })])
        res.socket?.destroy() // the network drops mid-stream
        return
      }
      if (n === 2) {
        req.socket.destroy() // and the first retry finds no server
        return
      }
      const after = Number(req.headers['last-event-id'])
      open(res)
      const rest = [frame(3, 'delta', { content: 'c' }), frame(4, 'done', { status: 'complete' })]
      res.end(rest.slice(after - 2).join(''))
    }
    const { events, onEvent } = collect()
    await subscribe('/s', {
      onEvent,
      backoff: (attempt) => {
        delays.push(attempt)
        return 5
      }
    })
    expect(seen.map((s) => s.headers['last-event-id'])).toEqual([undefined, '2', '2'])
    expect(events.map(([name, data]) => `${name}:${(data as { content?: string }).content ?? ''}`)).toEqual(['delta:a', 'delta:b', 'delta:c', 'done:'])
    // The back-off restarts after a connection that delivered events, and grows while none do.
    expect(delays).toEqual([1, 2])
  })

  it('reconnects when a stream ends before its terminal event, and when a proxy answers an error page', async () => {
    handler = (_req, res, n) => {
      if (n === 1) {
        open(res)
        res.end(frame(1, 'delta', { content: 'x' }))
      } else if (n === 2) {
        res.writeHead(502, { 'content-type': 'text/html' })
        res.end('<html>Bad Gateway</html>')
      } else {
        open(res)
        res.end(frame(2, 'error', { status: 'timeout', code: 50400001, message: '上游超时', messageId: 'm' }))
      }
    }
    const { events, onEvent } = collect()
    await subscribe('/s', { onEvent, backoff: fast })
    expect(seen).toHaveLength(3)
    expect(seen[2]!.headers['last-event-id']).toBe('1')
    expect(events.at(-1)).toEqual(['error', { status: 'timeout', code: 50400001, message: '上游超时', messageId: 'm' }, '2'])
  })

  it.each(['done', 'error', 'stopped'])('ends on the terminal event %s without reconnecting', async (name) => {
    handler = (_req, res) => {
      open(res)
      res.write(frame(1, name, { status: 'x' })) // the connection stays open: the client hangs up
    }
    const { events, onEvent } = collect()
    await subscribe('/s', { onEvent, backoff: fast })
    await sleep(30)
    expect(events.map((e) => e[0])).toEqual([name])
    expect(seen).toHaveLength(1)
  })

  it('sends the given lastEventId on the first connection', async () => {
    handler = (_req, res) => {
      open(res)
      res.end(frame(8, 'done', {}))
    }
    await subscribe('/s', { lastEventId: '7', onEvent: () => {} })
    expect(seen[0]!.headers['last-event-id']).toBe('7')
  })

  it.each([
    [40400001, 404, '消息不存在'],
    [50011005, 401, '登录已过期']
  ])('throws ApiError %i when the server answers the envelope instead of a stream', async (code, status, message) => {
    handler = (_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ code, message, data: null }))
    }
    const error = await subscribe('/s', { onEvent: () => {}, backoff: fast }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ code, message })
    expect(seen).toHaveLength(1)
  })

  it('rejects with the abort, mid-stream and while waiting to reconnect', async () => {
    handler = (_req, res) => {
      open(res)
      res.write(frame(1, 'delta', { content: 'a' }))
    }
    const controller = new AbortController()
    const { events, onEvent } = collect()
    const pending = subscribe('/s', { onEvent, signal: controller.signal })
    await vi.waitFor(() => expect(events).toHaveLength(1))
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })

    handler = (req) => void req.socket.destroy()
    const waiting = new AbortController()
    const started = Date.now()
    const second = subscribe('/s', { onEvent, signal: waiting.signal, backoff: () => 60_000 })
    await vi.waitFor(() => expect(seen.length).toBe(2))
    waiting.abort()
    await expect(second).rejects.toMatchObject({ name: 'AbortError' })
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('backs off 1 s, 2 s, 4 s … up to 10 s', () => {
    expect([1, 2, 3, 4, 5, 6, 20].map(retryDelay)).toEqual([1000, 2000, 4000, 8000, 10000, 10000, 10000])
  })
})
