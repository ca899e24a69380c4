// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { accountChannelOpen, onAccountEvent } from '../../src/core/account-events'
import { configure } from '../../src/core/config'
import { $token } from '../../src/core/stores'
import { resetCore } from './helpers/reset'

// The account channel (GET /api/v1/ai-chat/sse/subscribe): one connection per page for every
// listener, reopened with the new token, closed when nobody listens. Real SSE over loopback.

let server: ReturnType<typeof createServer>
let base = ''
const open = new Set<ServerResponse>()
const connections: { token: string | undefined; res: ServerResponse }[] = []

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Access-Control-Allow-Origin', '*')
    res.setHeader('Access-Control-Allow-Headers', 'authorization, accept, last-event-id')
    if (req.method === 'OPTIONS') return void res.writeHead(204).end()
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.flushHeaders()
    open.add(res)
    connections.push({ token: req.headers.authorization, res })
    req.on('close', () => open.delete(res))
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
  connections.length = 0
})

const send = (res: ServerResponse, event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)

describe('the account channel', () => {
  it('opens one connection for every listener, delivers by event name, and closes with the last one', async () => {
    $token.set('t1')
    const painting = vi.fn()
    const music = vi.fn()
    const offPainting = onAccountEvent('painting', painting)
    const offMusic = onAccountEvent('music', music)
    await vi.waitFor(() => expect(accountChannelOpen().get()).toBe(true))
    expect(connections).toHaveLength(1)
    expect(connections[0]!.token).toBe('Bearer t1')

    // A chat reply's final event on the channel does not end it (unlike a reply's own stream).
    send(connections[0]!.res, 'done', { requestId: 'r1', status: 'complete' })
    send(connections[0]!.res, 'painting', { taskId: 'a', progress: 50 })
    send(connections[0]!.res, 'music', { songId: 's' })
    send(connections[0]!.res, 'painting', { taskId: 'a', progress: 100 })
    await vi.waitFor(() => expect(painting).toHaveBeenCalledTimes(2))
    expect(painting.mock.calls.map((c) => c[0])).toEqual([
      { taskId: 'a', progress: 50 },
      { taskId: 'a', progress: 100 }
    ])
    expect(music).toHaveBeenCalledWith({ songId: 's' })

    offPainting()
    expect(accountChannelOpen().get()).toBe(true)
    offMusic()
    expect(accountChannelOpen().get()).toBe(false)
    await vi.waitFor(() => expect(open.size).toBe(0))
  })

  it('waits for a token, and reconnects with the new one when it changes', async () => {
    const fn = vi.fn()
    const off = onAccountEvent('painting', fn)
    await new Promise((r) => setTimeout(r, 50))
    expect(connections).toHaveLength(0)

    $token.set('t1')
    await vi.waitFor(() => expect(connections).toHaveLength(1))
    $token.set('t2')
    await vi.waitFor(() => expect(connections).toHaveLength(2))
    expect(connections[1]!.token).toBe('Bearer t2')
    await vi.waitFor(() => expect(open.size).toBe(1))

    $token.set(null)
    await vi.waitFor(() => expect(open.size).toBe(0))
    expect(accountChannelOpen().get()).toBe(false)
    off()
  })
})
