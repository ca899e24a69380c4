import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { files, pendingUploads } from '../src/db/schema.js'
import { type FakeS3, startFakeS3 } from './fakes/s3.js'
import { useHarness } from './helpers/database-hooks.js'
import type { Harness } from './helpers/harness.js'

const png = (width = 400, height = 300) =>
  sharp({ create: { width, height, channels: 4, background: '#fbab00' } })
    .png()
    .toBuffer()
const gif = () =>
  sharp({ create: { width: 30, height: 20, channels: 3, background: '#00f' } })
    .gif()
    .toBuffer()

interface Ticket {
  provider: 'local' | 's3'
  uploadUrl: string
  method: 'PUT'
  headers: Record<string, string>
  expiresAt: number
  key: string
  fileUrl: string
}

function uploads(ctx: { h: Harness }) {
  async function ticket(token: string, body: Record<string, unknown>) {
    return ctx.h.post<Ticket>('/api/v1/oss/upload/getOssSTS', body, { token })
  }
  async function put(t: Ticket, bytes: Buffer | Uint8Array, headers: Record<string, string> = t.headers, url = t.uploadUrl) {
    const res = await ctx.h.app.request(url, { method: 'PUT', body: bytes as unknown as RequestInit['body'], headers })
    return { status: res.status, body: (await res.json()) as { code: number; message: string } }
  }
  async function complete(token: string, key: string) {
    return ctx.h.post<any>('/api/v1/oss/upload/complete', { key }, { token })
  }
  async function upload(token: string, bytes: Buffer, fileName = 'a.png', contentType = 'image/png', purpose?: string) {
    const t = await ticket(token, { fileName, contentType, size: bytes.byteLength, ...(purpose ? { purpose } : {}) })
    expect(t.body.code, JSON.stringify(t.body)).toBe(2000)
    const p = await put(t.body.data, bytes)
    expect(p.body.code, JSON.stringify(p.body)).toBe(2000)
    return complete(token, t.body.data.key)
  }
  return { ticket, put, complete, upload }
}

function filesOnDisk(h: Harness): string[] {
  const root = join(h.config.dataDir, 'files')
  try {
    return (readdirSync(root, { recursive: true }) as string[]).filter((f) => /\.[a-z0-9]+$/.test(f)).sort()
  } catch {
    return []
  }
}

describe('uploads to local storage', () => {
  const ctx = useHarness({ env: { PUBLIC_URL: 'https://ai.example.com' } })
  const u = uploads(ctx)

  it('ticket → PUT → complete gives an Image with a thumbnail, served at /files', async () => {
    const { accessToken: token } = await ctx.h.login('13800138000')
    const bytes = await png()
    const t = await u.ticket(token, { fileName: 'logo.png', contentType: 'image/png', size: bytes.byteLength })
    expect(t.body.code).toBe(2000)
    const ticket = t.body.data
    expect(ticket).toMatchObject({ provider: 'local', method: 'PUT', headers: { 'Content-Type': 'image/png' } })
    expect(ticket.key).toMatch(/^images\/\d{4}\/\d{2}\/[0-9a-f-]{36}\.png$/)
    expect(ticket.uploadUrl).toMatch(new RegExp(`^/api/v1/oss/upload/put/${ticket.key}\\?expires=\\d+&sig=[A-Za-z0-9_-]{43}$`))
    expect(ticket.expiresAt).toBe(ctx.h.clock.now() + 600_000)
    expect(ticket.fileUrl).toBe(`https://ai.example.com/files/${ticket.key}`)
    expect((await u.put(ticket, bytes)).body.code).toBe(2000)
    const done = await u.complete(token, ticket.key)
    expect(done.body.code).toBe(2000)
    expect(done.body.data).toMatchObject({
      url: ticket.fileUrl,
      thumbUrl: ticket.fileUrl.replace(/\.png$/, '-thumb.webp'),
      name: 'logo.png',
      contentType: 'image/png',
      size: bytes.byteLength,
      width: 400,
      height: 300,
      createTime: ctx.h.clock.now()
    })
    const served = await ctx.h.app.request(`/files/${ticket.key}`)
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true)
    const thumb = await ctx.h.app.request(new URL(done.body.data.thumbUrl).pathname)
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(160)
    // Completing twice does nothing more.
    expect((await u.complete(token, ticket.key)).body.code).toBe(40400001)
    expect(await ctx.db.db.select().from(pendingUploads)).toEqual([])
  })

  it('refuses wrong types, oversized files and renamed programs, leaving nothing behind', async () => {
    const { accessToken: token } = await ctx.h.login('13800138000')
    const before = await ctx.h.snapshot()
    for (const [body, code, message] of [
      [{ fileName: 'a.svg', contentType: 'image/svg+xml', size: 10 }, 40000001, '只能上传 PNG、JPEG、WebP 或 GIF 图片'],
      [{ fileName: 'a.html', contentType: 'text/html', size: 10 }, 40000001, '只能上传'],
      [{ fileName: 'a.png', contentType: 'image/png', size: 10 * 1024 * 1024 + 1 }, 40000003, '图片不能超过 10 MB'],
      [{ fileName: 'a.png', contentType: 'image/png', size: 0 }, 40000001, 'size 不能小于 1'],
      [{ fileName: 'a.png', contentType: 'image/png', size: 1.5 }, 40000001, 'size 必须是整数'],
      [{ fileName: '', contentType: 'image/png', size: 10 }, 40000001, 'fileName 不能为空'],
      [{ fileName: 'a.png', contentType: 'image/png', size: 10, purpose: 'root' }, 40000001, 'purpose 只能是']
    ] as const) {
      const res = await u.ticket(token, body)
      expect(res.body.code, JSON.stringify(body)).toBe(code)
      expect(res.body.message).toContain(message)
    }
    // A Windows program renamed to .png, declared as image/png.
    const exe = Buffer.concat([Buffer.from('MZ\x90\x00\x03\x00\x00\x00This program cannot be run in DOS mode.'), Buffer.alloc(400)])
    const renamed = await u.upload(token, exe, 'holiday.png')
    expect(renamed.body).toMatchObject({ code: 40000001, message: '文件不是支持的图片格式（仅支持 PNG、JPEG、WebP、GIF）' })
    // An HTML page declared as a GIF.
    const html = Buffer.from('<!doctype html><script>alert(document.cookie)</script>')
    expect((await u.upload(token, html, 'x.gif', 'image/gif')).body.code).toBe(40000001)
    expect(filesOnDisk(ctx.h)).toEqual([])
    expect(await ctx.db.db.select().from(files)).toEqual([])
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('caps the PUT at the declared size, streamed', async () => {
    const { accessToken: token } = await ctx.h.login('13800138000')
    const bytes = await png()
    const t = (await u.ticket(token, { fileName: 'a.png', contentType: 'image/png', size: bytes.byteLength - 1 })).body.data
    const res = await u.put(t, bytes)
    expect(res.status).toBe(413)
    expect(res.body.code).toBe(40000003)
    // Without a Content-Length (chunked), the stream is cut at the cap all the same.
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array(bytes))
        c.close()
      }
    })
    const chunked = await ctx.h.app.request(t.uploadUrl, { method: 'PUT', body: stream, headers: t.headers, duplex: 'half' } as RequestInit)
    expect(chunked.status).toBe(413)
    expect(filesOnDisk(ctx.h)).toEqual([])
    // Bigger than 1 MB is fine (the JSON body limit does not apply to uploads).
    const large = await sharp({ create: { width: 1200, height: 1200, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
      .png()
      .toBuffer()
    expect(large.byteLength).toBeGreaterThan(1024 * 1024)
    const ok = await u.upload(token, large, 'noise.png')
    expect(ok.body.code).toBe(2000)
  })

  it('refuses expired, tampered and foreign signatures, and other accounts’ keys', async () => {
    const a = await ctx.h.login('13800138000')
    const b = await ctx.h.login('13900139000')
    const bytes = await png(50, 50)
    const t = (await u.ticket(a.accessToken, { fileName: 'a.png', contentType: 'image/png', size: bytes.byteLength })).body.data
    const url = new URL(t.uploadUrl, 'http://x')
    const sig = url.searchParams.get('sig')!
    const tampered = [
      t.uploadUrl.replace(sig, `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`),
      t.uploadUrl.replace(/expires=\d+/, `expires=${t.expiresAt + 3_600_000}`),
      t.uploadUrl.replace(/sig=[^&]+/, ''),
      t.uploadUrl.replace(
        t.key,
        t.key.replace(/[0-9a-f](?=\.png$)/, (c) => (c === '0' ? '1' : '0'))
      ),
      t.uploadUrl.replace(t.key, `../${t.key}`)
    ]
    for (const bad of tampered) {
      const res = await u.put(t, bytes, t.headers, bad)
      // `../` is resolved by URL parsing before routing: no such route (404).
      expect([res.status, res.body.code], bad).toEqual(bad.includes('../') ? [404, 40400001] : [403, 40300001])
    }
    expect(filesOnDisk(ctx.h)).toEqual([])
    const wrongType = await u.put(t, bytes, { 'Content-Type': 'text/html' })
    expect(wrongType.body.code).toBe(40000001)
    expect((await u.put(t, bytes)).body.code).toBe(2000)
    // Account B cannot complete A's upload, nor see it.
    expect((await u.complete(b.accessToken, t.key)).body.code).toBe(40400001)
    expect((await u.complete(a.accessToken, '../../upload-secret')).body.code).toBe(40400001)
    expect((await u.complete(a.accessToken, t.key)).body.code).toBe(2000)
    // An expired link.
    const late = (await u.ticket(a.accessToken, { fileName: 'b.png', contentType: 'image/png', size: bytes.byteLength })).body.data
    ctx.h.clock.advance(600_001)
    const expired = await u.put(late, bytes)
    expect([expired.status, expired.body.code, expired.body.message]).toEqual([403, 40300001, '上传链接已过期，请重新上传'])
  })

  it('keeps the file name as a label only; path tricks never reach the key', async () => {
    const { accessToken: token } = await ctx.h.login('13800138000')
    const bytes = await png(10, 10)
    for (const fileName of ['../../../../etc/passwd.png', '..\\..\\boot.ini.png', '/abs/path.png', 'x/../../y.png']) {
      const done = await u.upload(token, bytes, fileName)
      expect(done.body.code, fileName).toBe(2000)
      expect(done.body.data.url).toMatch(/\/files\/images\/\d{4}\/\d{2}\/[0-9a-f-]{36}\.png$/)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL must not survive in a name
      expect(done.body.data.name).not.toMatch(/[\\/\u0000]/)
    }
    expect(filesOnDisk(ctx.h).every((f) => f.startsWith('images/'))).toBe(true)
    // A NUL anywhere in a request body is refused before any route runs (PostgreSQL text cannot hold it).
    const nul = await u.ticket(token, { fileName: 'a\u0000b.png', contentType: 'image/png', size: bytes.length })
    expect([nul.body.code, nul.body.message]).toEqual([40000001, '请求内容不能包含空字符（U+0000）'])
  })

  it('a JPEG declared as PNG is stored as the JPEG it is', async () => {
    const { accessToken: token } = await ctx.h.login('13800138000')
    const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#123' } })
      .jpeg()
      .toBuffer()
    const done = await u.upload(token, bytes, 'photo.png', 'image/png')
    expect(done.body.data).toMatchObject({ contentType: 'image/jpeg', width: 64, height: 48 })
    expect(done.body.data.url).toMatch(/\.jpg$/)
    expect(filesOnDisk(ctx.h).filter((f) => f.endsWith('.png'))).toEqual([])
    const g = await u.upload(token, await gif(), 'anim.gif', 'image/gif')
    expect(g.body.data).toMatchObject({ contentType: 'image/gif', width: 30, height: 20 })
  })

  it('needs a login, and AI_TOOLS_IMAGE for the image host (avatars need only a login)', async () => {
    expect((await u.ticket('nope', { fileName: 'a.png', contentType: 'image/png', size: 10 })).body.code).toBe(50011005)
    const { accessToken: token, accountId } = await ctx.h.login('13800138000')
    const { accounts } = await import('../src/db/schema.js')
    await ctx.db.db
      .update(accounts)
      .set({ permissionCodes: ['AI_TOOLS_CHAT'] })
      .where(eq(accounts.id, accountId))
    const refused = await u.ticket(token, { fileName: 'a.png', contentType: 'image/png', size: 10 })
    expect(refused.body.code).toBe(40300001)
    expect((await u.ticket(token, { fileName: 'a.png', contentType: 'image/png', size: 10, purpose: 'avatar' })).body.code).toBe(2000)
    expect((await ctx.h.post('/api/v1/images/list', {}, { token })).body.code).toBe(40300001)
  })
})

describe('image host', () => {
  const ctx = useHarness()
  const u = uploads(ctx)

  it('lists my uploads newest first, paged; deletes file and thumbnail; others see nothing', async () => {
    const a = await ctx.h.login('13800138000')
    const b = await ctx.h.login('13900139000')
    const ids: string[] = []
    for (let i = 1; i <= 3; i++) {
      const done = await u.upload(a.accessToken, await png(10 * i, 10), `${i}.png`)
      ids.push(done.body.data.imageId)
    }
    await u.upload(a.accessToken, await png(5, 5), 'me.png', 'image/png', 'avatar')
    const page1 = await ctx.h.post<any>('/api/v1/images/list', { pageNum: 1, pageSize: 2 }, { token: a.accessToken })
    expect(page1.body.data).toMatchObject({ total: 3, pageNum: 1, pageSize: 2 })
    expect(page1.body.data.list.map((i: any) => i.name)).toEqual(['3.png', '2.png'])
    const page2 = await ctx.h.post<any>('/api/v1/images/list', { pageNum: 2, pageSize: 2 }, { token: a.accessToken })
    expect(page2.body.data.list.map((i: any) => i.name)).toEqual(['1.png'])
    expect((await ctx.h.post<any>('/api/v1/images/list', {}, { token: b.accessToken })).body.data).toMatchObject({ total: 0, list: [] })
    expect((await ctx.h.post('/api/v1/images/list', { pageSize: 101 }, { token: a.accessToken })).body.code).toBe(40000001)

    expect((await ctx.h.post('/api/v1/images/del', { imageId: ids[0] }, { token: b.accessToken })).body.code).toBe(40400001)
    const diskBefore = filesOnDisk(ctx.h).length
    expect((await ctx.h.post('/api/v1/images/del', { imageId: ids[0] }, { token: a.accessToken })).body).toMatchObject({ code: 2000, data: true })
    expect(filesOnDisk(ctx.h).length).toBe(diskBefore - 2)
    const gone = page2.body.data.list[0]
    expect((await ctx.h.app.request(new URL(gone.url).pathname)).status).toBe(404)
    expect((await ctx.h.app.request(new URL(gone.thumbUrl).pathname)).status).toBe(404)
    expect((await ctx.h.post('/api/v1/images/del', { imageId: ids[0] }, { token: a.accessToken })).body.code).toBe(40400001)
  })
})

describe('uploads to S3-compatible storage (fake S3)', () => {
  let s3: FakeS3
  beforeAll(async () => {
    s3 = await startFakeS3()
  })
  afterAll(async () => {
    await s3.close()
  })
  const ctx = useHarness(() => ({ env: s3.env() }))
  const u = uploads(ctx)

  it('hands out a presigned PUT; complete checks the object and makes the thumbnail in the bucket', async () => {
    const { accessToken: token } = await ctx.h.login('13800138000')
    const bytes = await png(200, 100)
    const t = (await u.ticket(token, { fileName: 's3.png', contentType: 'image/png', size: bytes.byteLength })).body.data
    expect(t.provider).toBe('s3')
    expect(t.uploadUrl.startsWith(`${s3.url}/${s3.bucket}/${t.key}?`)).toBe(true)
    expect(t.fileUrl).toBe(`${s3.url}/${s3.bucket}/${t.key}`)
    const put = await fetch(t.uploadUrl, { method: 'PUT', body: bytes, headers: t.headers })
    expect(put.status).toBe(200)
    const done = await u.complete(token, t.key)
    expect(done.body.data).toMatchObject({ url: t.fileUrl, width: 200, height: 100 })
    expect(s3.objects.has(t.key.replace(/\.png$/, '-thumb.webp'))).toBe(true)
    // A program uploaded through a presigned URL is deleted on complete.
    const exe = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.alloc(100)])
    const t2 = (await u.ticket(token, { fileName: 'x.png', contentType: 'image/png', size: exe.byteLength })).body.data
    expect((await fetch(t2.uploadUrl, { method: 'PUT', body: exe, headers: t2.headers })).status).toBe(200)
    expect(s3.objects.has(t2.key)).toBe(true)
    expect((await u.complete(token, t2.key)).body.code).toBe(40000001)
    expect(s3.objects.has(t2.key)).toBe(false)
    // The local PUT route is not open when S3 is configured.
    expect((await u.put(t2, exe, t2.headers, `/api/v1/oss/upload/put/${t2.key}?expires=1&sig=x`)).status).toBe(403)
  })
})

describe('abandoned uploads', () => {
  const ctx = useHarness()
  const u = uploads(ctx)

  it('are swept (row and bytes) once well past their expiry', async () => {
    const { accessToken: token } = await ctx.h.login('13800138000')
    const bytes = await png(20, 20)
    const t = (await u.ticket(token, { fileName: 'a.png', contentType: 'image/png', size: bytes.byteLength })).body.data
    expect((await u.put(t, bytes)).body.code).toBe(2000)
    expect(filesOnDisk(ctx.h)).toEqual([t.key])
    ctx.h.clock.advance(30 * 60_000)
    const other = await ctx.h.login('13900139000')
    expect((await u.ticket(other.accessToken, { fileName: 'b.png', contentType: 'image/png', size: 10 })).body.code).toBe(2000)
    expect(filesOnDisk(ctx.h)).toEqual([])
    expect((await ctx.db.db.select().from(pendingUploads)).map((r) => r.accountId)).toEqual([other.accountId])
    expect((await u.complete(token, t.key)).body.code).toBe(40400001)
  })
})
