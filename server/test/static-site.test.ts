import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { SITE_CSP } from '../src/http/security.js'
import { useHarness } from './helpers/database-hooks.js'

function buildDist(): string {
  const root = mkdtempSync(join(tmpdir(), 'lingxi-dist-'))
  const files: Record<string, string> = {
    'cdn/loader.js': 'console.log("loader")',
    'cdn/chat-3f9a2b7c.js': `export const chat = ${JSON.stringify('x'.repeat(4000))}`,
    'cdn/chat-3f9a2b7c.js.map': '{"version":3,"sources":[],"mappings":""}',
    // KaTeX at a stable URL for the npm package (scripts/vendor-chunks.mjs): a facade of the hashed chunk
    'cdn/vendor/katex.js': 'export{default}from"../chunks/katex-BoDF2ZxA.js";\n',
    'cdn/chunks/katex-BoDF2ZxA.js': 'const k={renderToString:()=>""};export{k as default};',
    'site/index.html': '<!doctype html><title>灵犀</title><div id="app"></div>',
    'site/license.html': '<!doctype html><title>服务条款</title>',
    'site/favicon.svg': '<svg xmlns="http://www.w3.org/2000/svg"></svg>',
    'site/assets/host-a1b2c3d4e5.css': 'body{color:#fbab00}',
    'secret.txt': 'not served'
  }
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

const dist = buildDist()
const ctx = useHarness({ staticRoot: dist })

const get = (path: string, headers: Record<string, string> = {}) => ctx.h.app.request(path, { headers })

describe('static site', () => {
  it('names a script map in a SourceMap header (the scripts carry no sourceMappingURL line), only when there is one', async () => {
    expect((await get('/cdn/chat-3f9a2b7c.js')).headers.get('sourcemap')).toBe('chat-3f9a2b7c.js.map')
    expect((await get('/cdn/loader.js')).headers.get('sourcemap')).toBeNull()
    expect((await get('/cdn/chat-3f9a2b7c.js.map')).headers.get('sourcemap')).toBeNull()
  })

  it('serves CDN chunks: hashed ones cached for a year, the loader revalidated, both open to any origin', async () => {
    const chunk = await get('/cdn/chat-3f9a2b7c.js')
    expect(chunk.status).toBe(200)
    expect(chunk.headers.get('content-type')).toMatch(/^text\/javascript/)
    expect(chunk.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(chunk.headers.get('access-control-allow-origin')).toBe('*')
    expect(chunk.headers.get('content-security-policy')).toBeNull()
    const loader = await get('/cdn/loader.js')
    expect(await loader.text()).toBe('console.log("loader")')
    expect(loader.headers.get('cache-control')).toBe('no-cache')
    expect(loader.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('serves the npm package’s vendor URLs to any origin, revalidated, and the chunk each names immutable', async () => {
    const facade = await get('/cdn/vendor/katex.js', { Origin: 'https://partner.example' })
    expect(facade.status).toBe(200)
    expect(facade.headers.get('content-type')).toMatch(/^text\/javascript/)
    expect(facade.headers.get('access-control-allow-origin')).toBe('*')
    expect(facade.headers.get('access-control-allow-credentials')).toBeNull()
    // un-hashed: a new build's facade names the new chunk at once
    expect(facade.headers.get('cache-control')).toBe('no-cache')
    const target = /from"\.\.\/(chunks\/[\w-]+\.js)"/.exec(await facade.text())?.[1]
    const chunk = await get(`/cdn/${target}`, { Origin: 'https://partner.example' })
    expect(chunk.status).toBe(200)
    expect(chunk.headers.get('content-type')).toMatch(/^text\/javascript/)
    expect(chunk.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(chunk.headers.get('access-control-allow-origin')).toBe('*')
    const again = await get('/cdn/vendor/katex.js', { 'If-None-Match': facade.headers.get('etag')! })
    expect(again.status).toBe(304)
    expect(again.headers.get('content-type')).toMatch(/javascript/)
    expect(again.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('answers a vendor name it does not have with the 404 envelope, and never leaves the folder', async () => {
    for (const path of ['/cdn/vendor/mermaid.js', '/cdn/vendor/', '/cdn/vendor/katex.js.map']) {
      const res = await get(path)
      expect(res.status, path).toBe(404)
      expect(await res.json()).toEqual({ code: 40400001, message: '接口不存在', data: null })
    }
    for (const path of ['/cdn/vendor/katex.js/..%2f..%2f..%2fsecret.txt', '/cdn/vendor/%2e%2e/%2e%2e/secret.txt', '/cdn/vendor/..%5c..%5csecret.txt']) {
      const res = await get(path)
      expect([400, 404], path).toContain(res.status)
      expect(await res.text(), path).not.toContain('not served')
    }
    const post = await ctx.h.app.request('/cdn/vendor/katex.js', { method: 'POST', body: 'x' })
    expect(await post.text()).not.toContain('export{default}')
  })

  it('serves site files with their types, and HTML with CSP and framing rules', async () => {
    const license = await get('/license.html')
    expect(license.status).toBe(200)
    expect(license.headers.get('content-type')).toMatch(/^text\/html/)
    expect(license.headers.get('content-security-policy')).toBe(SITE_CSP)
    expect(license.headers.get('x-frame-options')).toBe('SAMEORIGIN')
    expect((await get('/favicon.svg')).headers.get('content-type')).toMatch(/^image\/svg\+xml/)
    const css = await get('/assets/host-a1b2c3d4e5.css')
    expect(css.headers.get('content-type')).toMatch(/^text\/css/)
    expect(css.headers.get('cache-control')).toContain('immutable')
  })

  it('falls back to index.html for page paths', async () => {
    for (const path of ['/', '/chat', '/404', '/orders/ordersDetail/12/34', '/usercenter?id=card', '/some/unknown/path']) {
      const res = await get(path)
      expect(res.status, path).toBe(200)
      expect(await res.text()).toContain('<div id="app">')
      expect(res.headers.get('content-security-policy')).toBe(SITE_CSP)
      expect(res.headers.get('cache-control')).toBe('no-cache')
    }
  })

  it('does not fall back for the API, config, CDN or missing assets', async () => {
    for (const path of ['/api/v1/nope', '/cdn/missing.js', '/config/nope.json', '/assets/missing-12345678.js', '/favicon.ico']) {
      const res = await get(path)
      expect(res.status, path).toBe(404)
      expect(await res.json()).toEqual({ code: 40400001, message: '接口不存在', data: null })
    }
  })

  it('never serves files outside cdn/ and site/', async () => {
    for (const path of [
      '/../secret.txt',
      '/..%2fsecret.txt',
      '/cdn/..%2f..%2fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/cdn/%2e%2e/secret.txt',
      '/..%5csecret.txt'
    ]) {
      const res = await get(path)
      expect(await res.text(), path).not.toContain('not served')
    }
  })

  it('compresses text responses', async () => {
    const res = await get('/cdn/chat-3f9a2b7c.js', { 'Accept-Encoding': 'gzip' })
    expect(res.headers.get('content-encoding')).toBe('gzip')
    const body = gunzipSync(Buffer.from(await res.arrayBuffer())).toString()
    expect(body).toContain('export const chat')
  })

  it('answers HEAD and conditional requests', async () => {
    const head = await ctx.h.app.request('/cdn/loader.js', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String('console.log("loader")'.length))
    const etag = head.headers.get('etag')!
    const notModified = await get('/cdn/loader.js', { 'If-None-Match': etag })
    expect(notModified.status).toBe(304)
    // a 304 without the script's type would make browsers block the cached script (ORB + nosniff)
    expect(notModified.headers.get('content-type')).toMatch(/javascript/)
  })
})
