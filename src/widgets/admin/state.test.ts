// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../core/api'
import { configure } from '../../core/config'
import { $token } from '../../core/stores'
import { changes } from './audit'
import { adminCall, grantsText, yuan } from './state'

// The console's calls against a loopback fake of the operator API, and what it shows of the audit log.

let seen: { path: string; headers: IncomingMessage['headers']; body: string }[] = []
let answer: object = { code: 2000, message: '操作成功', data: { list: [] } }
let server: ReturnType<typeof createServer>

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = ''
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => {
      if (req.method !== 'OPTIONS') seen.push({ path: req.url ?? '', headers: req.headers, body })
      res.writeHead(200, {
        'content-type': 'application/json',
        'access-control-allow-origin': '*',
        'access-control-allow-headers': 'Authorization, Content-Type, X-Lingxi-Request'
      })
      res.end(JSON.stringify(answer))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(() => {
  seen = []
  answer = { code: 2000, message: '操作成功', data: { list: [] } }
})

describe('adminCall', () => {
  it('posts JSON to /api/admin/<path> with the bearer a script set, and unwraps the envelope', async () => {
    $token.set('tok-123')
    expect(await adminCall('users/search', { query: '138' })).toEqual({ list: [] })
    expect(seen[0]?.path).toBe('/api/admin/users/search')
    expect(seen[0]?.headers.authorization).toBe('Bearer tok-123')
    expect(seen[0]?.headers['x-lingxi-request']).toBe('1')
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ query: '138' })
  })

  it('sends no bearer for a cookie session, and throws the server’s refusal as ApiError', async () => {
    $token.set('session:abc')
    answer = { code: 40300001, message: '您没有使用「运营后台」的权限', data: null }
    const error = await adminCall('audit').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).message).toBe('您没有使用「运营后台」的权限')
    expect(seen[0]?.headers.authorization).toBeUndefined()
  })
})

describe('what the console shows', () => {
  it('grants and amounts', () => {
    expect(grantsText({ tokens: 500000, mj: 0, suno: 5 })).toBe('对话额度 500,000 · 音乐次数 5')
    expect(grantsText({})).toBe('—')
    expect(yuan(2990)).toBe('¥29.90')
  })

  it('an audit line’s changes: the fields that differ, codes added and removed', () => {
    expect(changes({ priceFen: 1990, name: '月卡', updateTime: 'a' }, { priceFen: 2990, name: '月卡', updateTime: 'b' })).toEqual(['priceFen: 1990 → 2990'])
    expect(changes(['AI_TOOLS_CHAT', 'AI_TOOLS_ROLE'], ['AI_TOOLS_CHAT', 'ADMIN'])).toEqual(['+ADMIN', '−AI_TOOLS_ROLE'])
    expect(changes(null, { count: 3 })).toEqual(['count: 3'])
    expect(changes({ tokens: 1 }, { tokens: 2 })).toEqual(['tokens: 1 → 2'])
  })
})
