import { mkdtempSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { type RunningServer, startServer } from '../src/server.js'
import { memoryLogger } from './helpers/harness.js'

// Issue 13, item 9, on the node itself: a request refused before its body was read must leave the
// keep-alive connection able to carry the next request (behind nginx, the next one is someone
// else's). tests/multinode/proxy.test.mjs proves the same through the real nginx.

let server: RunningServer

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-drain-'))
  const config = { ...loadConfig({ DATA_DIR: dataDir, PORT: '1', STATIC_ROOT: join(dataDir, 'no-dist') }), port: 0 }
  server = await startServer({ config, logger: memoryLogger() })
})

afterAll(async () => {
  await server?.close()
})

interface Answer {
  status: number
  head: string
  body: string
}

/**
 * Writes `first` and then, on the same connection, a small GET; collects every response until the
 * server closes the connection (the GET asks it to) or 5 s pass.
 */
function twoOnOneConnection(first: Buffer): Promise<Answer[]> {
  const { hostname, port } = new URL(server.url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => (text += chunk))
    socket.on('error', () => {})
    const done = () => {
      clearTimeout(timer)
      socket.destroy()
      resolve(
        text
          .split(/(?=HTTP\/1\.1 \d{3} )/)
          .filter(Boolean)
          .map((answer) => {
            const [head = '', body = ''] = answer.split('\r\n\r\n')
            return { status: Number(head.slice(9, 12)), head: head.toLowerCase(), body }
          })
      )
    }
    const timer = setTimeout(done, 5000)
    socket.on('close', done)
    socket.write(first)
    socket.write(`GET /config/system.json HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`)
  })
}

function post(path: string, body: Buffer, headers: Record<string, string | number> = { 'Content-Length': body.length }): Buffer {
  const lines = Object.entries({ Host: 'localhost', 'Content-Type': 'application/json', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`)
  return Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\n${lines.join('')}\r\n`), body])
}

function chunked(body: Buffer, size = 64 * 1024): Buffer {
  const parts: Buffer[] = []
  for (let i = 0; i < body.length; i += size) {
    const part = body.subarray(i, i + size)
    parts.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n'))
  }
  return Buffer.concat([...parts, Buffer.from('0\r\n\r\n')])
}

const padded = (bytes: number) => Buffer.from(JSON.stringify({ enCode: '86', phone: '13800138000', pad: 'x'.repeat(bytes) }))

describe('a body refused before it was read', () => {
  it('300 KB while logged out: 401, then the same connection answers the next request', async () => {
    const [refused, next, ...more] = await twoOnOneConnection(post('/api/v1/user/info', padded(300 * 1024)))
    expect(refused?.status).toBe(401)
    expect(JSON.parse(refused?.body ?? '')).toEqual({ code: 50011004, message: '请先登录', data: null })
    expect(refused?.head).not.toContain('connection: close')
    expect(next?.status).toBe(200)
    expect(more).toEqual([])
  })

  it('1.1 MB, declared or chunked (refused part way through): 413, then the same connection answers the next request', async () => {
    const declared = post('/api/v1/auth/send-sms-code', padded(1100 * 1024))
    const streamed = post('/api/v1/auth/send-sms-code', chunked(padded(1100 * 1024)), { 'Transfer-Encoding': 'chunked' })
    for (const request of [declared, streamed]) {
      const [refused, next] = await twoOnOneConnection(request)
      expect(refused?.status).toBe(413)
      expect(JSON.parse(refused?.body ?? '')).toEqual({ code: 40000003, message: '请求体过大，最大 1 MB', data: null })
      expect(refused?.head).not.toContain('connection: close')
      expect(next?.status).toBe(200)
    }
  })

  it('too large to be worth reading (20 MB declared): 413 with Connection: close, so nothing more is sent on it', async () => {
    const [refused, next] = await twoOnOneConnection(post('/api/v1/auth/send-sms-code', padded(1024), { 'Content-Length': 20 * 1024 * 1024 }))
    expect(refused?.status).toBe(413)
    expect(refused?.head).toContain('connection: close')
    expect(next).toBeUndefined()
  })
})
