import type { Server } from 'node:http'
import { connect } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestHeader } from '../src/http/request-header.js'

// requestHeader (http/request-header.ts) reads Node's raw header list instead of building a Web
// Headers; over a real socket it must answer exactly what c.req.header() answers.
const NAMES = ['authorization', 'Authorization', 'x-lingxi-request', 'origin', 'cookie', 'x-forwarded-for', 'accept-encoding', 'x-absent']
let server: Server
let port: number
beforeAll(async () => {
  const app = new Hono()
  app.get('/h', (c) => {
    // Ours first: c.req.header() builds the Headers, after which nothing would tell the two apart.
    const ours = NAMES.map((name) => requestHeader(c, name) ?? null)
    const hono = NAMES.map((name) => c.req.header(name) ?? null)
    return c.json({ ours, hono })
  })
  server = createAdaptorServer({ fetch: app.fetch }) as Server
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as { port: number }).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** A raw HTTP/1.1 request, so that headers can repeat and keep their case. */
function raw(headers: string[]): Promise<{ ours: unknown[]; hono: unknown[] }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    socket.on('data', (chunk) => (text += chunk))
    socket.on('end', () => resolve(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))))
    socket.on('error', reject)
    socket.end(['GET /h HTTP/1.1', 'Host: x', 'Connection: close', ...headers, '', ''].join('\r\n'))
  })
}

describe('requestHeader', () => {
  it('answers as c.req.header() does: any case, every repeat joined, absent as absent', async () => {
    const answer = await raw([
      'AUTHORIZATION: Bearer one',
      'authorization: Bearer two',
      'X-Lingxi-Request:   1  ',
      'Origin: https://partner.example',
      'Cookie: a=1; lingxi_session=tok',
      'Cookie: b=2',
      'X-Forwarded-For: 203.0.113.7',
      'x-forwarded-for: 10.0.0.1',
      'Accept-Encoding: gzip, br'
    ])
    expect(answer.ours).toEqual(answer.hono)
    // Not Node's own headers object, which keeps only the first Authorization.
    expect(answer.ours[0]).toBe('Bearer one, Bearer two')
    expect(answer.ours[1]).toBe('Bearer one, Bearer two')
    expect(answer.ours.at(-1)).toBeNull()
  })
})
