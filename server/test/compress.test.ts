import http, { type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync, inflateSync } from 'node:zlib'
import { createAdaptorServer } from '@hono/node-server'
import { describe, expect, it } from 'vitest'
import { chooseEncoding } from '../src/http/compress.js'
import { useHarness } from './helpers/database-hooks.js'

/** A JSON answer of about `n` KB (topics-like rows, so that it compresses as real answers do). */
const rows = (n: number) =>
  Array.from({ length: n * 8 }, (_, i) => ({ topicId: `t-${i.toString(36).padStart(8, '0')}`, name: `新对话 ${i}`, topFlag: i % 2, model: 'gpt-4o' }))

const ctx = useHarness({
  extend(api) {
    api.app.get('/test/json/:kb', (c) => c.json({ code: 2000, message: '操作成功', data: rows(Number(c.req.param('kb'))) }))
    api.app.get('/test/text', (c) => c.text('文'.repeat(2000)))
    api.app.get('/test/bytes', (c) => c.body(new TextEncoder().encode('a'.repeat(5000)), 200, { 'Content-Type': 'text/plain' }))
    api.app.get('/test/no-transform', (c) => c.json(rows(4), 200, { 'Cache-Control': 'no-transform' }))
    api.app.get('/test/png', (c) => c.body(new Uint8Array(5000), 200, { 'Content-Type': 'image/png' }))
    // A stream of unknown length: passed on as it comes, never held back to be compressed.
    api.app.get('/test/stream', (c) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`data: ${'x'.repeat(2000)}\n\n`))
          // …and stays open: a compressing or buffering middleware would never let the first event out.
        }
      })
      return c.body(body, 200, { 'Content-Type': 'text/plain; charset=utf-8' })
    })
    api.app.get('/test/events', (c) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`event: delta\ndata: ${'y'.repeat(2000)}\n\n`))
        }
      })
      return c.body(body, 200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' })
    })
  }
})

const get = (path: string, headers: Record<string, string> = {}) => ctx.h.app.request(path, { headers })
const GZIP = { 'Accept-Encoding': 'gzip, deflate, br' }

/** The first chunk of a body, or undefined when nothing came within `ms`. */
async function firstChunk(res: Response, ms = 2000): Promise<string | undefined> {
  const reader = res.body!.getReader()
  const timer = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))
  const chunk = await Promise.race([reader.read().then((r) => (r.value ? new TextDecoder().decode(r.value) : undefined)), timer])
  await reader.cancel()
  return chunk
}

describe('response compression', () => {
  it('leaves a small JSON answer (user/info) as it is, even when gzip is accepted', async () => {
    const { accessToken } = await ctx.h.login('13800138000')
    const res = await ctx.h.post('/api/v1/user/info', {}, { token: accessToken, headers: GZIP })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(res.headers.get('vary')).toMatch(/Accept-Encoding/i)
    expect(res.body).toMatchObject({ code: 2000 })
    const small = await get('/test/json/0', GZIP)
    expect(small.headers.get('content-encoding')).toBeNull()
  })

  it('gzips a large JSON answer, which decodes to the very bytes of the answer', async () => {
    const plain = await get('/test/json/8')
    const text = await plain.text()
    expect(Buffer.byteLength(text)).toBeGreaterThan(1024)
    expect(plain.headers.get('content-encoding')).toBeNull()
    const res = await get('/test/json/8', GZIP)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-encoding')).toBe('gzip')
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('vary')).toMatch(/Accept-Encoding/i)
    expect(res.headers.get('x-request-id')).toBeTruthy()
    const zipped = Buffer.from(await res.arrayBuffer())
    expect(zipped.length).toBeLessThan(Buffer.byteLength(text))
    expect(gunzipSync(zipped).toString()).toBe(text)
  })

  it('compresses a body larger than the main-thread limit on the thread pool, to the same bytes', async () => {
    const text = await (await get('/test/json/64')).text()
    expect(Buffer.byteLength(text)).toBeGreaterThan(16 * 1024)
    const res = await get('/test/json/64', { 'Accept-Encoding': 'gzip' })
    expect(res.headers.get('content-encoding')).toBe('gzip')
    expect(gunzipSync(Buffer.from(await res.arrayBuffer())).toString()).toBe(text)
  })

  it('compresses text and bytes answers; uses deflate when only deflate is accepted', async () => {
    const text = await get('/test/text', { 'Accept-Encoding': 'deflate' })
    expect(text.headers.get('content-encoding')).toBe('deflate')
    expect(inflateSync(Buffer.from(await text.arrayBuffer())).toString()).toBe('文'.repeat(2000))
    const bytes = await get('/test/bytes', GZIP)
    expect(bytes.headers.get('content-encoding')).toBe('gzip')
    expect(gunzipSync(Buffer.from(await bytes.arrayBuffer())).toString()).toBe('a'.repeat(5000))
  })

  it('leaves alone what must not or need not be compressed', async () => {
    // No Accept-Encoding, gzip refused, Cache-Control: no-transform, a type that does not compress, HEAD.
    expect((await get('/test/json/8')).headers.get('content-encoding')).toBeNull()
    expect((await get('/test/json/8', { 'Accept-Encoding': 'gzip;q=0, deflate;q=0' })).headers.get('content-encoding')).toBeNull()
    expect((await get('/test/json/8', { 'Accept-Encoding': 'br' })).headers.get('content-encoding')).toBeNull()
    expect((await get('/test/no-transform', GZIP)).headers.get('content-encoding')).toBeNull()
    expect((await get('/test/png', GZIP)).headers.get('content-encoding')).toBeNull()
    const head = await ctx.h.app.request('/test/json/8', { method: 'HEAD', headers: GZIP })
    expect(head.headers.get('content-encoding')).toBeNull()
    // An error envelope is small: as it is.
    const missing = await get('/api/v1/nothing', GZIP)
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-encoding')).toBeNull()
    expect(await missing.json()).toEqual({ code: 40400001, message: '接口不存在', data: null })
  })

  it('never holds back a stream of unknown length (event streams above all): its first event comes at once, uncompressed', async () => {
    for (const path of ['/test/stream', '/test/events']) {
      const res = await get(path, GZIP)
      expect(res.headers.get('content-encoding'), path).toBeNull()
      expect(await firstChunk(res), path).toMatch(/^(data|event): /)
    }
  })

  it('chooses the encoding by the q-values', () => {
    expect(chooseEncoding(undefined)).toBeUndefined()
    expect(chooseEncoding('gzip, deflate, br, zstd')).toBe('gzip')
    expect(chooseEncoding('deflate;q=1, gzip;q=0.5')).toBe('deflate')
    expect(chooseEncoding('gzip;q=0.2, deflate;q=0.8')).toBe('deflate')
    expect(chooseEncoding('*')).toBe('gzip')
    expect(chooseEncoding('*;q=0.5, gzip;q=0')).toBe('deflate')
    expect(chooseEncoding('identity')).toBeUndefined()
    expect(chooseEncoding('br')).toBeUndefined()
  })
})

describe('response compression on a real socket (@hono/node-server)', () => {
  async function raw(url: string, headers: Record<string, string>) {
    return new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get(url, { headers }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }))
        })
        .on('error', reject)
    })
  }

  it('sends a compressed JSON answer whole, with its Content-Length (not chunked), and a small one as it is', async () => {
    const server = createAdaptorServer({ fetch: ctx.h.app.fetch }) as Server
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const text = (await raw(`${url}/test/json/8`, {})).body.toString()
      const big = await raw(`${url}/test/json/8`, { 'Accept-Encoding': 'gzip' })
      expect(big.headers['content-encoding']).toBe('gzip')
      expect(big.headers['transfer-encoding']).toBeUndefined()
      expect(Number(big.headers['content-length'])).toBe(big.body.length)
      expect(gunzipSync(big.body).toString()).toBe(text)
      const small = await raw(`${url}/test/json/0`, { 'Accept-Encoding': 'gzip' })
      expect(small.headers['content-encoding']).toBeUndefined()
      expect(Number(small.headers['content-length'])).toBe(small.body.length)
      expect(JSON.parse(small.body.toString())).toMatchObject({ code: 2000, data: [] })
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
