import { createHmac, timingSafeEqual } from 'node:crypto'
import { and, eq, inArray, lt } from 'drizzle-orm'
import { z } from 'zod'
import type { Config } from '../config.js'
import { type FileSource, pendingUploads } from '../db/schema.js'
import { ApiError, envelope } from '../errors.js'
import { type Api, checkPermission, defineRoute } from '../http/api.js'
import { oneOf, requiredText, wholeNumber } from '../http/fields.js'
import type { Kv } from '../kv/kv.js'
import { assertTexts, blockedMessage, CONTENT_BLOCKED, type Moderator, NO_MODERATION } from '../moderation/index.js'
import { extensionFor, isValidKey, newKey } from './keys.js'
import { cleanName, IMAGE_TOO_LARGE, MAX_IMAGE_BYTES, saveImage } from './images.js'
import { uploadSecret } from './secret.js'
import { toImage } from './to-wire.js'
import { imageSchema, uploadTicketSchema } from './wire.js'

export const UPLOAD_TTL_MS = 10 * 60_000
/** A finished PUT may be completed this long after its URL expired. */
const COMPLETE_GRACE_MS = 10 * 60_000
export const UPLOADS_PER_HOUR = 200
export const PUT_PREFIX = '/api/v1/oss/upload/put/'

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif']
const BAD_LINK = '上传链接无效或已过期，请重新上传'

const SOURCE: Record<string, FileSource> = { image: 'upload', avatar: 'avatar', painting: 'painting' }

function sign(secret: string, parts: { accountId: string; key: string; contentType: string; size: number; expires: number }): string {
  return createHmac('sha256', secret)
    .update(['lingxi-upload-v1', parts.accountId, parts.key, parts.contentType, parts.size, parts.expires].join('\n'))
    .digest('base64url')
}

function sameSig(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** Reads a body of at most `max` bytes; past that it stops reading and answers 40000003. */
export async function readCapped(body: ReadableStream<Uint8Array> | null, max: number, tooLarge: string): Promise<Uint8Array> {
  if (!body) return new Uint8Array()
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > max) {
      await reader.cancel().catch(() => {})
      throw new ApiError(40000003, tooLarge)
    }
    chunks.push(value)
  }
  const out = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
  }
  return out
}

/**
 * `oss/upload/getOssSTS`, the local signed PUT and `oss/upload/complete` (docs/tools-wire.md).
 * A ticket is a pending_uploads row plus, for local storage, an HMAC over account, key, type,
 * size and expiry; completion checks the bytes with sharp and records the file.
 */
export function registerUploadRoutes(api: Api, deps: { config: Config; kv: Kv; moderator?: Moderator }): void {
  const { storage, db } = api
  let secret: string | undefined
  const getSecret = () => (secret ??= uploadSecret(deps.config))

  /** Abandoned tickets (never completed): their rows and any uploaded bytes go, a few at a time. */
  async function sweep(now: number) {
    const oldest = db
      .select({ key: pendingUploads.key })
      .from(pendingUploads)
      .where(lt(pendingUploads.expiresAt, new Date(now - COMPLETE_GRACE_MS)))
      .limit(20)
    const stale = await db.delete(pendingUploads).where(inArray(pendingUploads.key, oldest)).returning({ key: pendingUploads.key })
    for (const row of stale) await storage.delete(row.key).catch(() => {})
  }

  defineRoute(
    api,
    '/api/v1/oss/upload/getOssSTS',
    {
      tag: 'files',
      summary: 'Short-lived credentials to upload one image',
      auth: true,
      body: z.object({
        fileName: requiredText('fileName', { max: 255 }),
        contentType: requiredText('contentType', { max: 100 }),
        size: wholeNumber('size', 1, Number.MAX_SAFE_INTEGER),
        purpose: oneOf('purpose', ['image', 'avatar', 'painting']).default('image')
      }),
      response: uploadTicketSchema
    },
    async ({ auth, body }) => {
      if (body.purpose === 'image') {
        await checkPermission(api, auth, 'AI_TOOLS_IMAGE')
        // The image host shows the name to everyone who opens the link.
        await assertTexts(deps.moderator ?? NO_MODERATION, auth.account.id, [
          { kind: 'name', text: body.fileName, source: 'image-host.upload', what: '文件名' }
        ])
      }
      const contentType = body.contentType.toLowerCase() === 'image/jpg' ? 'image/jpeg' : body.contentType.toLowerCase()
      const ext = extensionFor(contentType)
      if (!IMAGE_TYPES.includes(contentType) || !ext) throw new ApiError(40000001, '只能上传 PNG、JPEG、WebP 或 GIF 图片')
      if (body.size > MAX_IMAGE_BYTES) throw new ApiError(40000003, IMAGE_TOO_LARGE)
      const accountId = auth.account.id
      const now = api.now()
      const count = await deps.kv.incr(`uploads:${accountId}`, 3_600_000)
      if (count > UPLOADS_PER_HOUR) {
        const wait = Math.max(1, Math.ceil((await deps.kv.ttl(`uploads:${accountId}`)) / 60_000))
        throw new ApiError(42900001, `上传过于频繁，请 ${wait} 分钟后再试`)
      }
      await sweep(now)
      // The key is ours alone: the client's file name is kept as a label, never as a path.
      const key = newKey('images', ext, new Date(now))
      const expires = now + UPLOAD_TTL_MS
      await db.insert(pendingUploads).values({
        key,
        accountId,
        name: cleanName(body.fileName),
        contentType,
        size: body.size,
        purpose: body.purpose,
        expiresAt: new Date(expires),
        createdAt: new Date(now)
      })
      const fileUrl = storage.publicUrl(key)
      if (storage.presignPut) {
        const put = await storage.presignPut(key, contentType, body.size, UPLOAD_TTL_MS / 1000)
        return { provider: 's3', uploadUrl: put.url, method: 'PUT', headers: put.headers, expiresAt: expires, key, fileUrl }
      }
      const sig = sign(getSecret(), { accountId, key, contentType, size: body.size, expires })
      return {
        provider: 'local',
        uploadUrl: `${PUT_PREFIX}${key}?expires=${expires}&sig=${sig}`,
        method: 'PUT',
        headers: { 'Content-Type': contentType },
        expiresAt: expires,
        key,
        fileUrl
      }
    }
  )

  api.docs.push({
    method: 'put',
    path: `${PUT_PREFIX}{key}`,
    tag: 'files',
    summary: 'Upload the bytes of a local-storage ticket (its uploadUrl, as is); at most the declared size, then oss/upload/complete',
    auth: false,
    bodyContentType: 'image/*',
    parameters: [
      { name: 'key', in: 'path', description: 'The ticket’s key; contains `/` (images/2025/01/…), sent as is' },
      { name: 'expires', in: 'query', required: true, description: 'From the ticket’s uploadUrl: its expiry, epoch ms' },
      { name: 'sig', in: 'query', required: true, description: 'From the ticket’s uploadUrl: the signature that stands in for the login' }
    ],
    response: z.null()
  })
  api.app.put(`${PUT_PREFIX}*`, async (c) => {
    const key = c.req.path.slice(PUT_PREFIX.length)
    const expires = Number(c.req.query('expires'))
    const sig = c.req.query('sig') ?? ''
    if (storage.kind !== 'local' || !isValidKey(key) || !Number.isSafeInteger(expires) || sig === '') throw new ApiError(40300001, BAD_LINK)
    if (expires < api.now()) throw new ApiError(40300001, '上传链接已过期，请重新上传')
    const [row] = await db.select().from(pendingUploads).where(eq(pendingUploads.key, key))
    const expected = row
      ? sign(getSecret(), { accountId: row.accountId, key, contentType: row.contentType, size: row.size, expires: row.expiresAt.getTime() })
      : ''
    if (!row || row.expiresAt.getTime() !== expires || !sameSig(sig, expected)) throw new ApiError(40300001, BAD_LINK)
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase()
    if (type && type !== row.contentType) throw new ApiError(40000001, `Content-Type 必须是 ${row.contentType}`)
    const tooLarge = `文件大小超过申请上传时声明的 ${row.size} 字节`
    const declared = Number(c.req.header('content-length') ?? Number.NaN)
    if (Number.isFinite(declared) && declared > row.size) throw new ApiError(40000003, tooLarge)
    const bytes = await readCapped(c.req.raw.body, row.size, tooLarge)
    if (bytes.byteLength === 0) throw new ApiError(40000001, '文件是空的')
    await storage.put(key, bytes, row.contentType)
    return c.json(envelope(2000, '操作成功', null))
  })

  defineRoute(
    api,
    '/api/v1/oss/upload/complete',
    {
      tag: 'files',
      summary: 'Check an uploaded image by content, make its thumbnail and record it',
      auth: true,
      body: z.object({ key: requiredText('key', { max: 300 }) }),
      response: imageSchema
    },
    async ({ auth, body }) => {
      const accountId = auth.account.id
      const gone = new ApiError(40400001, '上传记录不存在或已过期，请重新上传')
      if (!isValidKey(body.key)) throw gone
      // Taking the row is the claim: of two completes of one key, one proceeds.
      const [row] = await db
        .delete(pendingUploads)
        .where(and(eq(pendingUploads.key, body.key), eq(pendingUploads.accountId, accountId)))
        .returning()
      if (!row) throw gone
      try {
        if (row.expiresAt.getTime() + COMPLETE_GRACE_MS < api.now()) throw gone
        const object = await storage.get(row.key)
        if (!object) throw new ApiError(40000001, '文件尚未上传完成，请重新上传')
        if (object.body.byteLength > row.size) throw new ApiError(40000003, `文件大小超过申请上传时声明的 ${row.size} 字节`)
        const file = await saveImage(
          { db, storage, now: api.now },
          {
            accountId,
            bytes: object.body,
            source: SOURCE[row.purpose] ?? 'upload',
            name: row.name,
            key: row.key,
            check: async (bytes, mime) => {
              const result = await (deps.moderator ?? NO_MODERATION).checkImage({ bytes, mime, source: `upload.${row.purpose}`, accountId })
              if (result.verdict === 'block') throw new ApiError(CONTENT_BLOCKED, blockedMessage('图片'))
            }
          }
        )
        return toImage(storage, file)
      } catch (error) {
        // A rejected upload leaves nothing behind.
        await storage.delete(row.key).catch(() => {})
        throw error
      }
    }
  )
}
