import http, { type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { Hono } from 'hono'
import { afterEach, describe, expect, it } from 'vitest'
import type { AuthInfo } from '../src/auth/sessions.js'
import type { AppEnv } from '../src/http/api.js'
import { type EventStreams, frame, type SseSink, sseResponse } from '../src/http/sse.js'
import { waitUntil } from './helpers/chat.js'
import { memoryLogger } from './helpers/harness.js'

describe('SSE frames', () => {
  it('never lets a line break out of a field: data is split into data lines, an event name or id with one is refused', () => {
    expect(frame(1, 'delta', 'a\nb\r\nc\rd')).toBe('id: 1\nevent: delta\ndata: a\ndata: b\ndata: c\ndata: d\n\n')
    expect(frame(2, 'delta', '')).toBe('id: 2\nevent: delta\ndata: \n\n')
    expect(() => frame(3, 'done\ndata: {"status":"complete"}', '{}')).toThrow(TypeError)
    expect(() => frame(3, 'done\r', '{}')).toThrow(TypeError)
    expect(() => frame(3, '', '{}')).toThrow(TypeError)
    expect(() => frame(Number.NaN, 'delta', '{}')).toThrow(TypeError)
    expect(() => frame(1.5, 'delta', '{}')).toThrow(TypeError)
  })
})

describe('SSE writer on a Node server', () => {
  let server: Server | undefined
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
    server = undefined
  })

  function streams(): EventStreams {
    const open = new Set<{ close(): void }>()
    return {
      heartbeatMs: 60_000,
      sessions: { add: () => () => {}, expired: () => false, size: () => 0 },
      logger: memoryLogger(),
      open,
      closeAll: () => {
        for (const s of [...open]) s.close()
      }
    }
  }
  const auth = { sessionId: 1, platform: 'PC', expiresAt: Date.now() + 60_000, account: { id: 'a' } } as AuthInfo

  async function serve(setup: (sink: SseSink, onClose: (fn: () => void) => void) => Promise<void>) {
    const app = new Hono<AppEnv>()
    // A middleware that adds its header after the handler returned, as the edge steps (http/edge.ts) do.
    app.use(async (c, next) => {
      await next()
      c.header('X-After', 'yes')
    })
    const own = streams()
    app.get('/sse', (c) => sseResponse({ streams: own, auth, c, setup }))
    server = createAdaptorServer({ fetch: app.fetch }) as Server
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`, streams: own }
  }

  function get(url: string) {
    const state = { status: 0, headers: {} as http.IncomingHttpHeaders, chunks: [] as string[], ended: false, req: undefined as http.ClientRequest | undefined }
    state.req = http.get(url, (res) => {
      state.status = res.statusCode ?? 0
      state.headers = res.headers
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => state.chunks.push(chunk))
      res.on('end', () => (state.ended = true))
    })
    state.req.on('error', () => {})
    return state
  }

  it("writes straight to Node's response with every header, events of one turn in one write, and ends after what was sent", async () => {
    const { url } = await serve(async (sink) => {
      sink.send(1, 'delta', '{"content":"a"}')
      sink.send(2, 'delta', '{"content":"b"}')
      sink.send(3, 'delta', '{"content":"c"}')
      setTimeout(() => {
        sink.send(4, 'done', '{"status":"complete"}')
        sink.close()
      }, 50)
    })
    const res = get(url)
    await waitUntil(() => res.ended)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(res.headers['x-accel-buffering']).toBe('no')
    expect(res.headers['x-after']).toBe('yes')
    expect(res.headers['x-hono-already-sent']).toBeUndefined()
    expect(res.chunks[0]).toBe(frame(1, 'delta', '{"content":"a"}') + frame(2, 'delta', '{"content":"b"}') + frame(3, 'delta', '{"content":"c"}'))
    expect(res.chunks.join('')).toBe(
      frame(1, 'delta', '{"content":"a"}') +
        frame(2, 'delta', '{"content":"b"}') +
        frame(3, 'delta', '{"content":"c"}') +
        frame(4, 'done', '{"status":"complete"}')
    )
  })

  it('runs the close callbacks once when the client goes away', async () => {
    let closes = 0
    let opened: SseSink | undefined
    const { url, streams: own } = await serve(async (sink, onClose) => {
      opened = sink
      sink.send(1, 'delta', '{}')
      onClose(() => closes++)
    })
    const res = get(url)
    await waitUntil(() => res.chunks.length > 0)
    expect(own.open.size).toBe(1)
    res.req?.destroy()
    await waitUntil(() => closes === 1)
    expect(opened?.closed).toBe(true)
    expect(own.open.size).toBe(0)
    opened?.send(2, 'delta', '{}')
    expect(closes).toBe(1)
  })
})

describe('SSE heartbeat', () => {
  it('beats every open stream from one timer, which stops with the last stream', async () => {
    const open = new Set<{ close(): void }>()
    // A period of its own, so no other stream of this file shares the timer.
    const own: EventStreams = {
      heartbeatMs: 37,
      sessions: { add: () => () => {}, expired: () => false, size: () => 0 },
      logger: memoryLogger(),
      open,
      closeAll: () => {
        for (const s of [...open]) s.close()
      }
    }
    const auth = { sessionId: 1, platform: 'PC', expiresAt: Date.now() + 60_000, account: { id: 'a' } } as AuthInfo
    const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length
    const before = timers()
    const responses = Array.from({ length: 30 }, () => sseResponse({ streams: own, auth, setup: async () => {} }))
    // One interval for all 30, not one each (each was a timer and a closure per stream).
    expect(timers() - before).toBe(1)
    const decoder = new TextDecoder()
    const first = await Promise.all(responses.map(async (r) => decoder.decode((await r.body!.getReader().read()).value)))
    expect(first).toEqual(responses.map(() => ': ping\n\n'))
    const withTimer = timers()
    own.closeAll()
    expect(open.size).toBe(0)
    expect(timers()).toBe(withTimer - 1)
  })
})
