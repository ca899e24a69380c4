import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename, join, resolve, sep } from 'node:path'
import { Readable } from 'node:stream'
import type { Context, MiddlewareHandler } from 'hono'
import { getMimeType } from 'hono/utils/mime'
import { htmlHeaders } from './security.js'

// Build tools name chunks "<name>-<hash>.<ext>"; such a file never changes, so caches may keep it.
const HASHED = /[-.][A-Za-z0-9_]{8,}\.[a-z0-9]+$/
const IMMUTABLE = 'public, max-age=31536000, immutable'

async function fileAt(root: string, urlPath: string): Promise<{ path: string; size: number; mtime: Date } | undefined> {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return undefined
  }
  if (decoded.includes('\0') || decoded.split('/').some((part) => part === '..')) return undefined
  const path = resolve(join(root, decoded))
  if (path !== root && !path.startsWith(root + sep)) return undefined
  try {
    const info = await stat(path)
    return info.isFile() ? { path, size: info.size, mtime: info.mtime } : undefined
  } catch {
    return undefined
  }
}

function send(c: Context, file: { path: string; size: number; mtime: Date }, headers: Record<string, string>): Response {
  const etag = `W/"${file.size.toString(16)}-${file.mtime.getTime().toString(16)}"`
  const type = getMimeType(file.path) ?? 'application/octet-stream'
  // The 304 carries the real type too: left alone it would get text/plain, which browsers merge
  // into the cached response and then refuse as a cross-origin script (ORB, with nosniff).
  const common = { ETag: etag, 'Last-Modified': file.mtime.toUTCString(), 'Content-Type': type, ...headers }
  if (c.req.header('if-none-match') === etag) return c.body(null, 304, common)
  const full = { ...common, 'Content-Length': String(file.size) }
  if (c.req.method === 'HEAD') return c.body(null, 200, full)
  return c.body(Readable.toWeb(createReadStream(file.path)) as ReadableStream, 200, full)
}

const isHtml = (path: string) => path.endsWith('.html')

/**
 * The frontend build: dist/cdn/* at /cdn/* (widget bundles, loaded cross-origin by partner
 * pages) and dist/site/* at /, with dist/site/index.html for any other page path so the
 * client router can handle it.
 */
export function staticSite(staticRoot: string): MiddlewareHandler {
  const cdnRoot = resolve(staticRoot, 'cdn')
  const siteRoot = resolve(staticRoot, 'site')

  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next()
    const path = c.req.path
    if (path.startsWith('/api/') || path.startsWith('/config/') || path === '/api' || path === '/config') return next()

    if (path.startsWith('/cdn/')) {
      const file = await fileAt(cdnRoot, path.slice('/cdn'.length))
      if (!file) return next()
      // The build leaves the `//# sourceMappingURL` line out of its scripts (bytes every partner
      // page would download): developer tools find a script's map through this header instead.
      const map = file.path.endsWith('.js') && (await fileAt(cdnRoot, `${path.slice('/cdn'.length)}.map`))
      return send(c, file, {
        'Cache-Control': HASHED.test(file.path) ? IMMUTABLE : 'no-cache',
        // Module scripts are fetched in CORS mode; these files are public and carry no credentials.
        'Access-Control-Allow-Origin': '*',
        ...(map ? { SourceMap: `${basename(file.path)}.map` } : {})
      })
    }

    const file = await fileAt(siteRoot, path)
    if (file) {
      const html = isHtml(file.path)
      return send(c, file, {
        'Cache-Control': !html && HASHED.test(file.path) ? IMMUTABLE : 'no-cache',
        ...(html ? htmlHeaders : {})
      })
    }
    // A missing asset (known extension) is a 404, not the app shell under the wrong type.
    const last = path.slice(path.lastIndexOf('/') + 1)
    if (last.includes('.') && getMimeType(last) !== undefined) return next()
    const index = await fileAt(siteRoot, '/index.html')
    if (!index) return next()
    return send(c, index, { 'Cache-Control': 'no-cache', ...htmlHeaders })
  }
}
