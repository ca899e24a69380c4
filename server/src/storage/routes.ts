import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { Readable } from 'node:stream'
import type { Api } from '../http/api.js'
import { isFileBlocked } from '../moderation/takedowns.js'
import type { Storage } from './storage.js'
import { contentTypeOfKey, isValidKey } from './keys.js'

const FILE_HEADERS = {
  'Cache-Control': 'public, max-age=31536000, immutable',
  'X-Content-Type-Options': 'nosniff',
  // A stored file is never a document: nothing in it runs, even if opened directly.
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Accept-Ranges': 'bytes'
}

function notFound(): Response {
  return new Response('Not Found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' } })
}

/** A file of an item an operator took down (moderation/takedowns.ts): gone, and not to be cached. */
function gone(): Response {
  return new Response('该内容已被下架', { status: 410, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' } })
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` of a file of `size` bytes; null when unsatisfiable, undefined when absent or multi-range. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | undefined {
  if (!header) return undefined
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match) return undefined
  const [, a = '', b = ''] = match
  if (a === '' && b === '') return undefined
  let start: number
  let end: number
  if (a === '') {
    const n = Number(b)
    if (n === 0) return null
    start = Math.max(0, size - n)
    end = size - 1
  } else {
    start = Number(a)
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1)
  }
  if (start >= size || start > end) return null
  return { start, end }
}

/**
 * `GET /files/{key}` for local storage: the stored bytes with the type of the key's extension,
 * a year of immutable caching and byte ranges (audio seeking). Unknown keys, directories and
 * anything that is not a valid key answer 404; there is no listing.
 */
export function registerFileRoutes(api: Api, storage: Storage & { path?: (key: string) => string }): void {
  api.docs.push({
    method: 'get',
    path: '/files/{key}',
    tag: 'files',
    summary: 'A stored file (local storage), with byte ranges; no listing',
    auth: false,
    parameters: [
      { name: 'key', in: 'path', description: 'The storage key; contains `/` (images/2025/01/x.png), sent as is' },
      { name: 'Range', in: 'header', description: 'One range: bytes=a-b, bytes=a- or bytes=-n; anything else is ignored (the whole file)' }
    ],
    responses: {
      200: {
        description: 'The whole file, typed by its extension (image/png, audio/mpeg…); cached a year (immutable)',
        contentType: '*/*',
        headers: { 'Accept-Ranges': 'bytes' }
      },
      206: { description: 'The requested byte range', contentType: '*/*', headers: { 'Content-Range': 'bytes a-b/size' } },
      404: { description: 'No such file (or storage is not local, or the key is not valid)', contentType: 'text/plain' },
      410: { description: 'The file of an item an operator took down (served again if restored)', contentType: 'text/plain' },
      416: { description: 'Range not satisfiable; no body', headers: { 'Content-Range': 'bytes */size' } }
    }
  })
  api.app.get('/files/*', async (c) => {
    const key = c.req.path.slice('/files/'.length)
    const type = contentTypeOfKey(key)
    if (storage.kind !== 'local' || !storage.path || !isValidKey(key) || !type) return notFound()
    if (await isFileBlocked(api.db, key)) return gone()
    const file = storage.path(key)
    let size: number
    try {
      const info = await stat(file)
      if (!info.isFile()) return notFound()
      size = info.size
    } catch {
      return notFound()
    }
    const range = parseRange(c.req.header('range'), size)
    if (range === null) {
      return new Response(null, { status: 416, headers: { ...FILE_HEADERS, 'Content-Range': `bytes */${size}` } })
    }
    const { start, end } = range ?? { start: 0, end: size - 1 }
    const headers: Record<string, string> = { ...FILE_HEADERS, 'Content-Type': type, 'Content-Length': String(Math.max(0, end - start + 1)) }
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${size}`
    if (c.req.method === 'HEAD' || size === 0) return new Response(null, { status: range ? 206 : 200, headers })
    const body = Readable.toWeb(createReadStream(file, { start, end })) as unknown as ReadableStream
    return new Response(body, { status: range ? 206 : 200, headers })
  })
}
