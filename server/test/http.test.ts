import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../src/errors.js'
import { defineRoute } from '../src/http/api.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness({
  env: { CORS_ORIGINS: 'https://partner.example.com,http://localhost:5173' },
  extend(api) {
    defineRoute(api, '/api/v1/test/boom', { tag: 'test', summary: 'throws', body: z.object({}) }, async () => {
      throw new Error('database on fire')
    })
    defineRoute(api, '/api/v1/test/echo', { tag: 'test', summary: 'echo', body: z.object({ n: z.number() }) }, async ({ body }) => body)
  }
})

const SEND = '/api/v1/auth/send-sms-code'

describe('envelope and errors', () => {
  it('answers an unknown route with the 404 envelope', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/nope'],
      ['GET', '/api/v1/nope'],
      ['GET', '/nope'],
      ['POST', '/']
    ] as const) {
      const res = await ctx.h.request(path, { method })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ code: 40400001, message: '接口不存在', data: null })
    }
  })

  it('answers a wrong method on a known API path with an envelope and Allow', async () => {
    const res = await ctx.h.request('/api/v1/auth/login', { method: 'GET' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    expect(res.body).toEqual({ code: 40400001, message: '请求方法不支持，请使用 POST', data: null })
    const put = await ctx.h.request('/config/system.json', { method: 'POST' })
    expect(put.status).toBe(405)
    expect(put.headers.get('allow')).toBe('GET, HEAD')
  })

  it('refuses malformed JSON with 40000002 and changes nothing', async () => {
    const before = await ctx.h.snapshot()
    for (const raw of ['{', '{"enCode": "86",}', 'phone=138', "{'a':1}"]) {
      const res = await ctx.h.post(SEND, raw)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ code: 40000002, message: '请求体不是合法的 JSON', data: null })
    }
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('refuses JSON that is not an object with 40000001', async () => {
    for (const raw of ['[]', '[{"phone":"13800138000"}]', '"13800138000"', 'null', '42', 'true']) {
      const res = await ctx.h.post(SEND, raw)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ code: 40000001, message: '请求体必须是 JSON 对象', data: null })
    }
    expect((await ctx.h.snapshot()).sms).toBe(0)
  })

  it('treats an empty body as {} (then names the missing field)', async () => {
    const res = await ctx.h.request(SEND, { method: 'POST' })
    expect(res.body).toEqual({ code: 40000001, message: '国家区号不能为空', data: null })
  })

  it('refuses a 2 MB body with 40000003 (HTTP 413), with or without Content-Length', async () => {
    const before = await ctx.h.snapshot()
    const big = JSON.stringify({ enCode: '86', phone: '13800138000', pad: 'x'.repeat(2 * 1024 * 1024) })
    const res = await ctx.h.post(SEND, big)
    expect(res.status).toBe(413)
    expect(res.body).toEqual({ code: 40000003, message: '请求体过大，最大 1 MB', data: null })

    // Chunked: no Content-Length, so the limit must count bytes as they arrive.
    const bytes = new TextEncoder().encode(big)
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.subarray(i, i + 64 * 1024))
        controller.close()
      }
    })
    const chunked = await ctx.h.request(SEND, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      body: stream,
      duplex: 'half'
    } as RequestInit)
    expect(chunked.status).toBe(413)
    expect(chunked.body.code).toBe(40000003)
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('accepts a body just under 1 MB', async () => {
    const res = await ctx.h.post('/api/v1/test/echo', JSON.stringify({ n: 1, pad: 'x'.repeat(1024 * 1024 - 100) }))
    expect(res.body).toEqual({ code: 2000, message: '操作成功', data: { n: 1 } })
  })

  it('names the field of a wrong type', async () => {
    const res = await ctx.h.post('/api/v1/test/echo', { n: 'one' })
    expect(res.body).toEqual({ code: 40000001, message: 'n 格式不正确', data: null })
  })

  it('answers an unexpected fault with 50000000 and logs it with the request id', async () => {
    const res = await ctx.h.post('/api/v1/test/boom', {})
    expect(res.status).toBe(500)
    expect(res.body).toEqual({ code: 50000000, message: '系统异常，请稍后重试', data: null })
    const requestId = res.headers.get('x-request-id')
    expect(requestId).toBeTruthy()
    const entry = ctx.h.logger.entries.find((e) => e.level === 'error')
    expect(entry?.fields?.requestId).toBe(requestId)
    expect(String((entry?.fields?.error as Error | undefined)?.message)).toBe('database on fire')
  })

  it('keeps ApiError statuses in step with API.md', async () => {
    expect(new ApiError(50011003, 'x').status).toBe(429)
    expect(new ApiError(50011009, 'x').status).toBe(409)
    expect(new ApiError(40200001, 'x').status).toBe(402)
  })
})

describe('headers', () => {
  it('sets security headers everywhere and no-store on the API', async () => {
    const api = await ctx.h.post(SEND, {})
    expect(api.headers.get('x-content-type-options')).toBe('nosniff')
    expect(api.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
    expect(api.headers.get('cache-control')).toBe('no-store')
    expect(api.headers.get('content-security-policy')).toBeNull()
    const missing = await ctx.h.request('/api/v1/nope')
    expect(missing.headers.get('cache-control')).toBe('no-store')
    const config = await ctx.h.request('/config/system.json')
    expect(config.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('gives CORS headers to allowed origins only', async () => {
    const allowed = await ctx.h.post(SEND, {}, { headers: { Origin: 'https://partner.example.com' } })
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://partner.example.com')
    expect(allowed.headers.get('vary')).toContain('Origin')

    const blocked = await ctx.h.post(SEND, {}, { headers: { Origin: 'https://evil.example.com' } })
    expect(blocked.headers.get('access-control-allow-origin')).toBeNull()
    const config = await ctx.h.request('/config/system.json', { headers: { Origin: 'http://localhost:5173' } })
    expect(config.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
  })

  it('answers preflights for allowed origins with the allowed headers, and others with nothing', async () => {
    const preflight = (origin: string) =>
      ctx.h.app.request('/api/v1/user/info', {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type'
        }
      })
    const ok = await preflight('https://partner.example.com')
    expect(ok.status).toBe(204)
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://partner.example.com')
    expect(ok.headers.get('access-control-allow-methods')).toContain('POST')
    const allowHeaders = ok.headers.get('access-control-allow-headers')?.toLowerCase() ?? ''
    for (const h of ['authorization', 'content-type', 'last-event-id']) expect(allowHeaders).toContain(h)

    const evil = await preflight('https://evil.example.com')
    expect(evil.status).toBe(204)
    for (const [name] of evil.headers) expect(name.startsWith('access-control-')).toBe(false)
  })
})

describe('openapi.json', () => {
  it('lists every API route with its request schema', async () => {
    const res = await ctx.h.app.request('/api/openapi.json')
    expect(res.status).toBe(200)
    const doc = (await res.json()) as {
      openapi: string
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { required?: string[] } }> }; security: unknown[] }>>
    }
    expect(doc.openapi).toBe('3.1.0')
    for (const path of [
      '/api/v1/auth/send-sms-code',
      '/api/v1/auth/login',
      '/api/v1/auth/login-without-code',
      '/api/v1/auth/logout',
      '/api/v1/auth/modify-phone-sms-code',
      '/api/v1/auth/modify-phone',
      '/api/v1/user/info',
      '/api/v1/userPermission'
    ]) {
      expect(doc.paths[path]?.post, path).toBeDefined()
    }
    expect(doc.paths['/config/system.json']?.get).toBeDefined()
    const login = doc.paths['/api/v1/auth/login']?.post
    expect(login?.requestBody?.content['application/json']?.schema.required?.sort()).toEqual(['code', 'enCode', 'phone', 'platform'])
    expect(login?.security).toEqual([])
    expect(doc.paths['/api/v1/user/info']?.post?.security).toEqual([{ bearer: [] }])
  })
})
