import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { MAX_PATH_LENGTH } from '../src/http/path-check.js'
import { notifySignature } from '../src/modules/painting/routes.js'
import { startServer } from '../src/server.js'
import { useHarness } from './helpers/database-hooks.js'
import { memoryLogger } from './helpers/harness.js'

// Issue 13, item 8: a bad path parameter (`%00` answered 500) gets the 400 envelope on every route.

const SECRET = 'notify-secret-for-tests'

function buildDist(): string {
  const root = mkdtempSync(join(tmpdir(), 'lingxi-dist-'))
  for (const [path, content] of Object.entries({ 'site/index.html': '<!doctype html><title>灵犀</title>', 'cdn/loader.js': '"loader"' })) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

const ctx = useHarness({ env: { MJ_NOTIFY_SECRET: SECRET }, staticRoot: buildDist() })

const CONTROL = '请求路径不能包含控制字符（如 %00）'
const ENCODING = '请求路径的百分号编码不正确'
const DOTS = '请求路径不能包含 ..'
const LONG = `请求路径过长（最多 ${MAX_PATH_LENGTH} 个字符）`

/** Path parameters as sent (escaped), and the refusal each must get. */
const BAD: [string, string][] = [
  ['%00', CONTROL],
  ['a%00b', CONTROL],
  ['%01', CONTROL],
  ['x%0Ay', CONTROL],
  ['%1B%5B31m', CONTROL],
  ['%7F', CONTROL],
  ['%E0%A4%A', ENCODING],
  ['%', ENCODING],
  ['abc%', ENCODING],
  ['%zz', ENCODING],
  ['%FF', ENCODING],
  ['%C0%AF', ENCODING],
  ['%ED%A0%80', ENCODING],
  ['..%2F..%2Fetc%2Fpasswd', DOTS],
  ['%2e%2e%5Csecret', DOTS],
  ['x'.repeat(MAX_PATH_LENGTH + 1), LONG]
]

/** The route's own reading of its parameter, so that a signed notify hook gets as far as the database. */
const asParam = (raw: string) => {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

type Route = [name: string, request: (bad: string, token: string) => [path: string, init: RequestInit]]

const ROUTES: Route[] = [
  [
    'GET /api/v1/ai-chat/sse/subscribe/{requestId}',
    (bad, token) => [`/api/v1/ai-chat/sse/subscribe/${bad}`, { headers: { Authorization: `Bearer ${token}` } }]
  ],
  [
    'POST /api/v1/painting/notify/{taskId} (validly signed)',
    (bad) => [
      `/api/v1/painting/notify/${bad}?sig=${notifySignature(SECRET, asParam(bad))}`,
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: 'mj-1', status: 'SUCCESS' }) }
    ]
  ],
  ['GET /files/{key}', (bad) => [`/files/images/2026/01/${bad}.png`, {}]],
  [
    'PUT /api/v1/oss/upload/put/{key}',
    (bad) => [
      `/api/v1/oss/upload/put/images/${bad}.png?expires=${Date.now() + 60_000}&sig=x`,
      { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: 'png' }
    ]
  ],
  ['GET /{page} (static site)', (bad) => [`/chat/${bad}`, {}]],
  ['GET /cdn/{file}', (bad) => [`/cdn/${bad}.js`, {}]],
  ['POST /api/v1/{unknown}', (bad, token) => [`/api/v1/user/${bad}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: '{}' }]]
]

describe('bad path parameters', () => {
  it.each(ROUTES)('%s: each answers 40000001 (HTTP 400) naming the problem, and changes nothing', async (_, request) => {
    const { accessToken } = await ctx.h.login('13800138000')
    const before = await ctx.h.snapshot()
    const answers = []
    for (const [bad] of BAD) {
      const [path, init] = request(bad, accessToken)
      const res = await ctx.h.request(path, init).catch((error: unknown) => ({ status: 0, headers: new Headers(), body: String(error) }))
      answers.push({ bad: bad.slice(0, 20), status: res.status, type: res.headers.get('content-type'), body: res.body })
    }
    expect(answers).toEqual(
      BAD.map(([bad, message]) => ({ bad: bad.slice(0, 20), status: 400, type: 'application/json', body: { code: 40000001, message, data: null } }))
    )
    expect(await ctx.h.snapshot()).toEqual(before)
    expect(ctx.h.logger.entries.filter((e) => e.level === 'error')).toEqual([])
  })
})

/** One request written as raw bytes (so nothing on the way re-encodes it); the answer as text. */
function rawRequest(url: string, requestLine: string): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk) => (text += chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.from(text, 'latin1').toString('utf8')))
    const body = JSON.stringify({ id: 'mj-1', status: 'SUCCESS' })
    socket.write(Buffer.from(`${requestLine} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`, 'latin1'))
  })
}

describe('bad path parameters on the running server', () => {
  it('are answered with the envelope, even when the parser refuses them; good escapes still work and the server stays up', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-paths-'))
    const config = { ...loadConfig({ DATA_DIR: dataDir, PORT: '1', STATIC_ROOT: buildDist(), MJ_NOTIFY_SECRET: SECRET }), port: 0 }
    const logger = memoryLogger()
    const server = await startServer({ config, logger })
    try {
      const cases: [string, number, string][] = [
        [`POST /api/v1/painting/notify/%00?sig=${notifySignature(SECRET, '\0')}`, 400, CONTROL],
        ['GET /api/v1/ai-chat/sse/subscribe/%E0%A4%A', 400, ENCODING],
        ['GET /files/%', 400, ENCODING],
        ['GET /files/..%2F..%2Fpasswd', 400, DOTS],
        // Raw bytes Node's HTTP parser refuses itself, before the app.
        ['GET /files/a\u0000b.png', 400, '请求格式不正确（请求行或请求头无效）'],
        ['GET /api/v1/ai-chat/sse/subscribe/a\u0001b', 400, '请求格式不正确（请求行或请求头无效）']
      ]
      for (const [line, status, message] of cases) {
        const answer = await rawRequest(server.url, line)
        const [head = '', body = ''] = answer.split('\r\n\r\n')
        expect(head.split('\r\n')[0], JSON.stringify(line)).toBe(`HTTP/1.1 ${status} Bad Request`)
        expect(head.toLowerCase()).toContain('content-type: application/json')
        expect(JSON.parse(body), JSON.stringify(line)).toEqual({ code: 40000001, message, data: null })
      }
      // Escapes that are not bad (a page path in Chinese, an escaped letter, a query) are left alone.
      const page = await fetch(`${server.url}/chat/%E4%BD%A0%E5%A5%BD%20x`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('灵犀')
      expect((await fetch(`${server.url}/cdn/loader.js`)).status).toBe(200)
      const missing = await fetch(`${server.url}/files/images/2026/01/%61.png`)
      expect([missing.status, await missing.text()]).toEqual([404, 'Not Found'])
      expect((await fetch(`${server.url}/config/system.json?t=%`)).status).toBe(200)
      expect(logger.entries.filter((e) => e.level === 'error')).toEqual([])
    } finally {
      await server.close()
    }
  })
})
