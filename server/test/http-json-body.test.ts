import { mkdtempSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { type RunningServer, startServer } from '../src/server.js'
import { memoryLogger } from './helpers/harness.js'

// On the real node server, JSON bodies are read from Node's request (http/json-body.ts), not
// through a Web Request: every way a body arrives must still read the same.

let server: RunningServer

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-json-body-'))
  const config = { ...loadConfig({ DATA_DIR: dataDir, PORT: '1', STATIC_ROOT: join(dataDir, 'no-dist') }), port: 0 }
  server = await startServer({ config, logger: memoryLogger() })
})

afterAll(async () => {
  await server?.close()
})

/** POSTs `parts` (written one by one, a little apart); chunked when no Content-Length is given. */
function post(
  path: string,
  parts: (string | Buffer)[],
  headers: Record<string, string> = {}
): Promise<{ status: number; body: { code: number; message: string } }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.on('error', reject)
    const write = async () => {
      for (const part of parts) {
        req.write(part)
        await new Promise((r) => setTimeout(r, 20))
      }
      req.end()
    }
    void write()
  })
}

const SEND = '/api/v1/auth/send-sms-code'
// A body whose phone is not a phone: the answer names it, so the body was read whole and parsed.
const BODY = JSON.stringify({ enCode: '86', phone: '12' })

describe('JSON bodies read from Node’s request', () => {
  it('with Content-Length, in one write or in several (a multi-byte character split between them)', async () => {
    const whole = await post(SEND, [BODY], { 'Content-Length': String(Buffer.byteLength(BODY)) })
    expect(whole.body.code).toBe(50011008)
    expect(whole.body.message).toContain('手机号')
    const text = JSON.stringify({ enCode: '86', phone: '12', note: '灵犀' })
    const bytes = Buffer.from(text)
    const cut = bytes.indexOf(Buffer.from('灵')) + 1
    const split = await post(SEND, [bytes.subarray(0, cut), bytes.subarray(cut)], {
      'Content-Length': String(bytes.length)
    })
    expect(split.body).toEqual(whole.body)
  })

  it('chunked (no Content-Length), and empty', async () => {
    const chunked = await post(SEND, [BODY.slice(0, 5), BODY.slice(5)])
    expect(chunked.body.code).toBe(50011008)
    expect(chunked.body.message).toContain('手机号')
    const empty = await post(SEND, [], { 'Content-Length': '0' })
    expect(empty.body).toEqual({ code: 40000001, message: '国家区号不能为空', data: null })
  })

  it('not JSON, or over 1 MB by its Content-Length: refused as before', async () => {
    const bad = await post(SEND, ['{"enCode":'], { 'Content-Length': '10' })
    expect(bad.body.code).toBe(40000002)
    const big = 'x'.repeat(1024 * 1024 + 1)
    const over = await post(SEND, [big], { 'Content-Length': String(big.length) })
    expect(over.status).toBe(413)
    expect(over.body.code).toBe(40000003)
  })
})
