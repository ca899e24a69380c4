import { mkdtempSync, writeFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { files } from '../src/db/schema.js'
import { createLocalStorage, createS3Storage, createStorage, isValidKey, newKey } from '../src/storage/index.js'
import { ownFile, saveFile, saveImage } from '../src/storage/images.js'
import { parseRange } from '../src/storage/routes.js'
import { type FakeS3, startFakeS3 } from './fakes/s3.js'
import { useHarness } from './helpers/database-hooks.js'

const png = (width = 400, height = 300) =>
  sharp({ create: { width, height, channels: 3, background: '#fbab00' } })
    .png()
    .toBuffer()
    .then((b) => new Uint8Array(b))
const jpeg = (width = 320, height = 200) =>
  sharp({ create: { width, height, channels: 3, background: '#17181c' } })
    .jpeg()
    .toBuffer()
    .then((b) => new Uint8Array(b))

describe('storage keys', () => {
  it('accepts only lower-case relative keys of known types', () => {
    expect(isValidKey('images/2026/05/abc-1.png')).toBe(true)
    expect(isValidKey('music/x_y.mp3')).toBe(true)
    for (const bad of [
      '',
      '/images/a.png',
      '../a.png',
      'images/../a.png',
      'images/./a.png',
      'images//a.png',
      'images/A.png',
      'images\\a.png',
      'images/%2e%2e/a.png',
      'images/.hidden.png',
      'images/a.html',
      'images/a.svg',
      'images/a',
      'images/a.png/',
      `images/${'a'.repeat(400)}.png`
    ]) {
      expect(isValidKey(bad), bad).toBe(false)
    }
    expect(newKey('images', 'png', new Date(Date.UTC(2026, 4, 3)))).toMatch(/^images\/2026\/05\/[0-9a-f-]{36}\.png$/)
  })

  it('parses byte ranges', () => {
    expect(parseRange(undefined, 10)).toBeUndefined()
    expect(parseRange('bytes=0-3', 10)).toEqual({ start: 0, end: 3 })
    expect(parseRange('bytes=5-', 10)).toEqual({ start: 5, end: 9 })
    expect(parseRange('bytes=-4', 10)).toEqual({ start: 6, end: 9 })
    expect(parseRange('bytes=8-100', 10)).toEqual({ start: 8, end: 9 })
    expect(parseRange('bytes=10-', 10)).toBeNull()
    expect(parseRange('bytes=0-1,3-4', 10)).toBeUndefined()
  })
})

describe('local storage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lingxi-files-'))
  const storage = createLocalStorage({ dir, publicUrl: 'https://ai.example.com/' })

  it('puts, gets and deletes; the served type follows the key', async () => {
    const body = new TextEncoder().encode('RIFF....WAVE')
    await storage.put('music/a.wav', body, 'audio/wav')
    expect(await storage.get('music/a.wav')).toEqual({ body, contentType: 'audio/wav' })
    await expect(storage.put('music/b.wav', body, 'text/html')).rejects.toThrow(/served as audio\/wav/)
    await expect(storage.put('../escape.png', body, 'image/png')).rejects.toThrow(/invalid storage key/)
    await storage.delete('music/a.wav')
    await storage.delete('music/a.wav')
    expect(await storage.get('music/a.wav')).toBeNull()
    expect(await storage.get('../../etc/passwd.png')).toBeNull()
  })

  it('recognises only its own URLs', () => {
    expect(storage.publicUrl('images/a.png')).toBe('https://ai.example.com/files/images/a.png')
    expect(storage.keyOf('https://ai.example.com/files/images/a.png')).toBe('images/a.png')
    expect(storage.keyOf('/files/images/a.png')).toBe('images/a.png')
    for (const foreign of [
      'https://evil.example.com/files/images/a.png',
      'https://ai.example.com.evil.com/files/images/a.png',
      'http://ai.example.com/files/images/a.png',
      'https://ai.example.com/files/images/a.png?x=1',
      'https://ai.example.com/files/../secret.png',
      '//ai.example.com/files/images/a.png',
      'files/images/a.png',
      'javascript:alert(1)'
    ]) {
      expect(storage.keyOf(foreign), foreign).toBeNull()
    }
  })

  it('is the default of createStorage, under DATA_DIR/files', () => {
    const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://ai.example.com' })
    const s = createStorage(config)
    expect(s.kind).toBe('local')
    expect(s.publicUrl('covers/x.jpg')).toBe('https://ai.example.com/files/covers/x.jpg')
  })
})

describe('config', () => {
  it('requires the endpoint and both keys with S3_BUCKET', () => {
    expect(() => loadConfig({ S3_BUCKET: 'b' })).toThrow(/S3_ENDPOINT is required when S3_BUCKET is set[\s\S]*S3_ACCESS_KEY_ID/)
    const config = loadConfig({ S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9000/', S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 's' })
    expect(config.storage.s3).toEqual({
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'b',
      region: 'us-east-1',
      accessKeyId: 'a',
      secretAccessKey: 's',
      publicUrl: 'http://127.0.0.1:9000/b'
    })
    expect(loadConfig({}).storage.s3).toBeUndefined()
  })
})

describe('GET /files/{key}', () => {
  const ctx = useHarness()

  async function stored(key: string, body: Uint8Array) {
    const file = join(ctx.h.config.dataDir, 'files', ...key.split('/'))
    await mkdir(join(file, '..'), { recursive: true })
    writeFileSync(file, body)
  }

  it('serves the bytes with the key type, nosniff and a year of immutable cache', async () => {
    const body = await png(20, 10)
    await stored('images/2026/01/a.png', body)
    const res = await ctx.h.app.request('/files/images/2026/01/a.png')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(res.headers.get('content-security-policy')).toContain('sandbox')
    expect(res.headers.get('accept-ranges')).toBe('bytes')
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(body)
    const head = await ctx.h.app.request('/files/images/2026/01/a.png', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(body.byteLength))
  })

  it('answers byte ranges (audio seeking)', async () => {
    const body = new Uint8Array(Array.from({ length: 100 }, (_, i) => i))
    await stored('music/2026/01/a.mp3', body)
    const res = await ctx.h.app.request('/files/music/2026/01/a.mp3', { headers: { Range: 'bytes=10-19' } })
    expect(res.status).toBe(206)
    expect(res.headers.get('content-type')).toBe('audio/mpeg')
    expect(res.headers.get('content-range')).toBe('bytes 10-19/100')
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual(Array.from({ length: 10 }, (_, i) => i + 10))
    const beyond = await ctx.h.app.request('/files/music/2026/01/a.mp3', { headers: { Range: 'bytes=200-' } })
    expect(beyond.status).toBe(416)
    expect(beyond.headers.get('content-range')).toBe('bytes */100')
  })

  it('never lists a folder, never leaves the files folder, never serves unknown types', async () => {
    await stored('images/2026/01/a.png', await png(4, 4))
    writeFileSync(join(ctx.h.config.dataDir, 'outside.png'), 'secret')
    writeFileSync(join(ctx.h.config.dataDir, 'files', 'page.html'), '<script>alert(1)</script>')
    for (const path of [
      '/files/',
      '/files/images',
      '/files/images/2026/01',
      '/files/images/2026/01/',
      '/files/%2e%2e/outside.png',
      '/files/..%2foutside.png',
      '/files/images/..%2f..%2f..%2f..%2foutside.png',
      '/files/page.html',
      '/files/images/2026/01/missing.png',
      '/files/IMAGES/2026/01/a.png'
    ]) {
      const res = await ctx.h.app.request(path)
      // An escaped `..` is refused for every route by the path check (http/path-check.ts), as a 400.
      expect(res.status, path).toBe(path.includes('..%2f') ? 400 : 404)
      expect(await res.text(), path).not.toContain('secret')
    }
  })
})

describe('saveImage / saveFile / ownFile', () => {
  const ctx = useHarness()

  async function account() {
    const { accountId } = await ctx.h.login('13800138000')
    return accountId
  }

  it('stores the original and a 160-wide thumbnail, and records the file', async () => {
    const accountId = await account()
    const deps = { db: ctx.db.db, storage: createStorage(ctx.h.config), now: ctx.h.clock.now }
    const row = await saveImage(deps, { accountId, bytes: await png(400, 300), source: 'painting', name: '../../etc/画.png' })
    expect(row).toMatchObject({ accountId, contentType: 'image/png', width: 400, height: 300, source: 'painting', name: '画.png' })
    expect(row.key).toMatch(/^paintings\/\d{4}\/\d{2}\/[0-9a-f-]{36}\.png$/)
    expect(row.thumbKey).toBe(row.key.replace(/\.png$/, '-thumb.webp'))
    const thumb = await deps.storage.get(row.thumbKey!)
    const meta = await sharp(thumb!.body).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 160, 120])
    expect(await ownFile(ctx.db.db, deps.storage, deps.storage.publicUrl(row.key))).toEqual(row)
    expect(await ownFile(ctx.db.db, deps.storage, `/files/${row.key}`, accountId)).toEqual(row)
    expect(await ownFile(ctx.db.db, deps.storage, `/files/${row.key}`, '00000000-0000-0000-0000-000000000000')).toBeNull()
    expect(await ownFile(ctx.db.db, deps.storage, `https://elsewhere.example.com/files/${row.key}`)).toBeNull()
  })

  it('judges by content: a JPEG named .png is a JPEG; a program or SVG is refused; limits hold', async () => {
    const accountId = await account()
    const deps = { db: ctx.db.db, storage: createStorage(ctx.h.config) }
    const j = await saveImage(deps, { accountId, bytes: await jpeg(), source: 'upload', name: 'photo.png' })
    expect([j.contentType, j.key.endsWith('.jpg')]).toEqual(['image/jpeg', true])
    const elf = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, ...new Array(200).fill(0)])
    await expect(saveImage(deps, { accountId, bytes: elf, source: 'upload', name: 'x.png' })).rejects.toMatchObject({ code: 40000001 })
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>')
    await expect(saveImage(deps, { accountId, bytes: svg, source: 'upload' })).rejects.toMatchObject({ code: 40000001 })
    const big = new Uint8Array(10 * 1024 * 1024 + 1)
    big.set(await png(2, 2))
    await expect(saveImage(deps, { accountId, bytes: big, source: 'upload' })).rejects.toMatchObject({ code: 40000003 })
    await expect(saveImage(deps, { accountId, bytes: await png(10_001, 2), source: 'upload' })).rejects.toMatchObject({
      code: 40000001,
      message: expect.stringContaining('10001×2')
    })
    const rows = await ctx.db.db.select().from(files).where(eq(files.accountId, accountId))
    expect(rows.length).toBe(1)
  })

  it('saveFile stores audio as given', async () => {
    const accountId = await account()
    const deps = { db: ctx.db.db, storage: createStorage(ctx.h.config) }
    const bytes = new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0])
    const row = await saveFile(deps, { accountId, bytes, contentType: 'audio/mpeg', source: 'music', name: 'song.mp3' })
    expect(row).toMatchObject({ contentType: 'audio/mpeg', size: 10, width: null, source: 'music' })
    expect(row.key).toMatch(/^music\/.*\.mp3$/)
    const res = await ctx.h.app.request(`/files/${row.key}`)
    expect(res.headers.get('content-type')).toBe('audio/mpeg')
    await expect(saveFile(deps, { accountId, bytes, contentType: 'text/html', source: 'music' })).rejects.toThrow(/does not store/)
  })
})

describe('S3-compatible storage (fake S3, SigV4 checked)', () => {
  let s3: FakeS3
  beforeAll(async () => {
    s3 = await startFakeS3()
  })
  afterAll(async () => {
    await s3.close()
  })

  it('puts, gets and deletes with signed requests; public URLs are the bucket URL', async () => {
    const storage = createStorage(loadConfig(s3.env()))
    expect(storage.kind).toBe('s3')
    const body = await png(8, 8)
    await storage.put('images/2026/01/a.png', body, 'image/png')
    expect(s3.objects.get('images/2026/01/a.png')?.contentType).toBe('image/png')
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', auth: 'header', status: 200 })
    expect(await storage.get('images/2026/01/a.png')).toEqual({ body, contentType: 'image/png' })
    expect(await storage.get('images/2026/01/none.png')).toBeNull()
    const url = storage.publicUrl('images/2026/01/a.png')
    expect(url).toBe(`${s3.url}/${s3.bucket}/images/2026/01/a.png`)
    expect(storage.keyOf(url)).toBe('images/2026/01/a.png')
    expect(storage.keyOf('/files/images/2026/01/a.png')).toBeNull()
    const anonymous = await fetch(url)
    expect(new Uint8Array(await anonymous.arrayBuffer())).toEqual(body)
    await storage.delete('images/2026/01/a.png')
    expect(s3.objects.has('images/2026/01/a.png')).toBe(false)
  })

  it('a wrong secret is refused by the store', async () => {
    const storage = createS3Storage({ ...loadConfig(s3.env()).storage.s3!, secretAccessKey: 'wrong' })
    await expect(storage.put('images/x.png', new Uint8Array([1]), 'image/png')).rejects.toThrow(/403.*SignatureDoesNotMatch/)
  })

  it('presigned PUTs bind the content type and the exact size', async () => {
    const storage = createStorage(loadConfig(s3.env()))
    const body = await png(8, 8)
    const put = await storage.presignPut!('images/2026/01/p.png', 'image/png', body.byteLength, 600)
    expect(put.headers).toEqual({ 'Content-Type': 'image/png' })
    const wrongType = await fetch(put.url, { method: 'PUT', body: Buffer.from(body), headers: { 'Content-Type': 'text/html' } })
    expect(wrongType.status).toBe(403)
    const bigger = await fetch(put.url, { method: 'PUT', body: Buffer.concat([Buffer.from(body), Buffer.from([0])]), headers: put.headers })
    expect(bigger.status).toBe(403)
    const ok = await fetch(put.url, { method: 'PUT', body: Buffer.from(body), headers: put.headers })
    expect(ok.status).toBe(200)
    expect(s3.objects.get('images/2026/01/p.png')?.body.length).toBe(body.byteLength)
  })
})
