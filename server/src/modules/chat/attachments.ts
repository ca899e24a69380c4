import { randomUUID } from 'node:crypto'
import { and, asc, eq, inArray, isNotNull, isNull, lt, or } from 'drizzle-orm'
import sharp from 'sharp'
import { requireAuth, checkPermission, type Api } from '../../http/api.js'
import type { Db, Tx } from '../../db/database.js'
import { type ChatAttachment, chatAttachments } from '../../db/schema.js'
import { ApiError, envelope } from '../../errors.js'
import type { Kv } from '../../kv/kv.js'
import { countTokens, imageTokens, VISION_SIDE } from '../../replies/context.js'
import type { ModelEntry } from '../../replies/models.js'
import { ATTACHED_TEXT } from '../../replies/providers/demo.js'
import type { TurnFile } from '../../replies/providers/provider.js'
import type { Storage } from '../../storage/index.js'
import { newKey } from '../../storage/keys.js'
import { cleanName, inspectImage, makeThumbnail } from '../../storage/images.js'
import { extractText, sniff } from './attachments-extract.js'
import { CHAT_BASE, CHAT_PERMISSION } from './topic-routes.js'
import { type Attachment, attachmentSchema, type Message } from './wire.js'
import { readCapped } from '../../storage/uploads.js'
import type { AttachmentLimits } from '../../config.js'
import { rateLimit } from '../../http/rate-limit.js'

/**
 * Files in chat messages (docs/chat-wire.md, "Attachments"): uploaded before the message is sent,
 * checked by their bytes, stored through the configured storage (local disk or S3), served back
 * from this API to their owner alone, and linked to the user message they were sent with. Images
 * go to vision models as `image_url` parts (data: URLs); documents' text goes into the prompt and
 * is counted, and charged, like the rest of it.
 */

/**
 * The upload. Under the prefix of signed uploads, whose routes read their own capped bodies, so the
 * 1 MB limit of JSON calls (app.ts) does not apply; the bytes are the request body.
 */
export const ATTACHMENT_UPLOAD_PATH = '/api/v1/oss/upload/put/chat-attachment'
export const ATTACHMENT_FILE_PREFIX = `${CHAT_BASE}/attachment/file/`
export const ATTACHMENT_NOT_FOUND = '附件不存在或已删除'

const MB = 1024 * 1024
const HOUR = 3_600_000
/** An upload never sent is removed after this long. */
export const UNSENT_TTL_MS = 24 * HOUR

const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`

export function toAttachment(row: ChatAttachment): Attachment {
  return {
    attachmentId: row.id,
    kind: row.kind,
    name: row.name,
    contentType: row.contentType.split(';')[0]!.trim(),
    size: row.size,
    width: row.width,
    height: row.height,
    pages: row.pages,
    chars: row.text === null ? null : [...row.text].length,
    clipped: row.clipped === 1,
    url: `${ATTACHMENT_FILE_PREFIX}${row.id}`,
    thumbUrl: row.thumbKey ? `${ATTACHMENT_FILE_PREFIX}${row.id}?thumb=1` : null,
    createTime: row.createdAt.getTime()
  }
}

/** `filename*` of RFC 6266 / 5987: any name, safely quoted. */
function disposition(type: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\;]/g, '_') || 'file'
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

/** Removes attachments whose message is gone (topic or message deleted) and uploads never sent; returns how many. */
export async function sweepAttachments(deps: { db: Db; storage: Storage; now: () => number }, limit = 50): Promise<number> {
  const { db, storage } = deps
  const stale = new Date(deps.now() - UNSENT_TTL_MS)
  const rows = await db
    .delete(chatAttachments)
    .where(
      inArray(
        chatAttachments.id,
        db
          .select({ id: chatAttachments.id })
          .from(chatAttachments)
          .where(and(isNull(chatAttachments.messageId), or(isNotNull(chatAttachments.sentAt), lt(chatAttachments.createdAt, stale))))
          .limit(limit)
      )
    )
    .returning({ key: chatAttachments.key, thumbKey: chatAttachments.thumbKey })
  if (rows.length === 0) return 0
  // An edited question's copy names the same files: their bytes stay while any row names them.
  const kept = await db
    .select({ key: chatAttachments.key })
    .from(chatAttachments)
    .where(
      inArray(
        chatAttachments.key,
        rows.map((r) => r.key)
      )
    )
  const shared = new Set(kept.map((r) => r.key))
  for (const row of rows) {
    if (shared.has(row.key)) continue
    await storage.delete(row.key).catch(() => {})
    if (row.thumbKey) await storage.delete(row.thumbKey).catch(() => {})
  }
  return rows.length
}

/** Gives an edited question the files of the version it replaces: new rows, the same stored bytes. */
export async function copyAttachments(tx: Tx, rows: readonly ChatAttachment[], messageId: string, at: Date): Promise<void> {
  if (rows.length === 0) return
  await tx.insert(chatAttachments).values(rows.map(({ id: _id, seq: _seq, ...row }) => ({ ...row, id: randomUUID(), messageId, sentAt: at, createdAt: at })))
}

export function registerAttachmentRoutes(api: Api, deps: { kv: Kv; limits: AttachmentLimits }): void {
  const { db, storage } = api
  const { limits } = deps
  const largest = Math.max(limits.imageBytes, limits.documentBytes)

  api.docs.push({
    method: 'post',
    path: ATTACHMENT_UPLOAD_PATH,
    tag: 'chat',
    summary:
      'Upload one chat attachment: the file’s bytes as the body (any Content-Type; the server sniffs the content), its name in `name`. Images ≤ 10 MB, documents (PDF, DOCX, UTF-8 text) ≤ 20 MB by default',
    auth: true,
    bodyContentType: 'application/octet-stream',
    parameters: [{ name: 'name', in: 'query', description: 'The file’s name, a label only (shown, and in Content-Disposition)' }],
    response: attachmentSchema
  })
  api.app.post(ATTACHMENT_UPLOAD_PATH, async (c) => {
    const auth = await requireAuth(api, c)
    await checkPermission(api, auth, CHAT_PERMISSION)
    const accountId = auth.account.id
    const now = api.now()
    const tooLarge = `文件太大：图片不能超过 ${mb(limits.imageBytes)}，文档不能超过 ${mb(limits.documentBytes)}`
    const declared = Number(c.req.header('content-length') ?? Number.NaN)
    if (Number.isFinite(declared) && declared > largest) throw new ApiError(40000003, tooLarge)
    const count = await rateLimit(deps.kv, `chat-attachments:${accountId}`, limits.perHour, HOUR, '上传附件')
    const bytes = await readCapped(c.req.raw.body, largest, tooLarge)
    if (bytes.byteLength === 0) throw new ApiError(40000001, '文件是空的')
    const name = cleanName(c.req.query('name') ?? '') || '附件'
    const at = new Date(now)
    const id = randomUUID()
    const sniffed = sniff(bytes)
    const stored: string[] = []
    try {
      let row: Omit<typeof chatAttachments.$inferInsert, 'id' | 'accountId' | 'name' | 'size' | 'createdAt'>
      if (sniffed.kind === 'image') {
        if (bytes.byteLength > limits.imageBytes) throw new ApiError(40000003, `图片不能超过 ${mb(limits.imageBytes)}`)
        const info = await inspectImage(bytes)
        const thumb = await makeThumbnail(bytes)
        const key = newKey('chat', info.ext, at)
        const thumbKey = `${key.slice(0, key.lastIndexOf('.'))}-thumb.webp`
        await storage.put(key, bytes, info.contentType)
        stored.push(key)
        await storage.put(thumbKey, thumb, 'image/webp')
        stored.push(thumbKey)
        row = { kind: 'image', contentType: info.contentType, key, thumbKey, width: info.width, height: info.height }
      } else {
        if (bytes.byteLength > limits.documentBytes) throw new ApiError(40000003, `文档不能超过 ${mb(limits.documentBytes)}`)
        const extracted = await extractText(sniffed.format, bytes, limits)
        const key = newKey('chat', sniffed.ext, at)
        await storage.put(key, bytes, sniffed.contentType)
        stored.push(key)
        row = {
          kind: 'document',
          contentType: sniffed.contentType,
          key,
          text: extracted.text,
          textTokens: await countTokens(extracted.text),
          pages: extracted.pages,
          clipped: extracted.clipped ? 1 : 0
        }
      }
      const [saved] = await db
        .insert(chatAttachments)
        .values({ ...row, id, accountId, name, size: bytes.byteLength, createdAt: at })
        .returning()
      // Now and then, the leftovers of deleted topics and of uploads never sent.
      if (count % 10 === 1) void sweepAttachments({ db, storage, now: api.now }).catch(() => {})
      return c.json(envelope(2000, '操作成功', toAttachment(saved!)))
    } catch (error) {
      for (const key of stored) await storage.delete(key).catch(() => {})
      throw error
    }
  })

  api.docs.push({
    method: 'get',
    path: `${ATTACHMENT_FILE_PREFIX}{attachmentId}`,
    tag: 'chat',
    summary: 'A chat attachment’s file, to its owner only (another account: 40400001); `?thumb=1`: an image’s thumbnail',
    auth: true,
    parameters: [{ name: 'thumb', in: 'query', description: '1: the image’s small WebP thumbnail' }],
    responses: {
      200: {
        description: 'The file as uploaded, typed by its content, with Content-Disposition (images inline, documents as a download)',
        contentType: '*/*'
      }
    }
  })
  api.app.get(`${ATTACHMENT_FILE_PREFIX}:attachmentId`, async (c) => {
    const auth = await requireAuth(api, c)
    const id = c.req.param('attachmentId')
    const [row] = await db
      .select()
      .from(chatAttachments)
      .where(and(eq(chatAttachments.id, id), eq(chatAttachments.accountId, auth.account.id)))
    // Sent with a message that is gone (its topic deleted): gone with it, whatever the sweep has done yet.
    if (!row || (row.sentAt !== null && row.messageId === null)) throw new ApiError(40400001, ATTACHMENT_NOT_FOUND)
    const thumb = c.req.query('thumb') === '1' && row.thumbKey !== null
    const object = await storage.get(thumb ? row.thumbKey! : row.key)
    if (!object) throw new ApiError(40400001, ATTACHMENT_NOT_FOUND)
    const name = thumb ? `${row.name.replace(/\.[^.]*$/, '')}-thumb.webp` : row.name
    return new Response(object.body as unknown as ConstructorParameters<typeof Response>[0], {
      status: 200,
      headers: {
        'Content-Type': thumb ? 'image/webp' : row.contentType,
        'Content-Length': String(object.body.byteLength),
        // Images show in the page; documents are downloaded, never opened as a page of this origin.
        'Content-Disposition': disposition(row.kind === 'image' ? 'inline' : 'attachment', name),
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'Cross-Origin-Resource-Policy': 'same-site',
        'Cache-Control': 'private, no-store'
      }
    })
  })
}

/**
 * The account's unsent attachments of these ids, in upload order; 40400001 when any is unknown,
 * another account's, or already sent with a message.
 */
export async function unsentAttachments(db: Db, accountId: string, ids: readonly string[]): Promise<ChatAttachment[]> {
  if (ids.length === 0) return []
  const unique = [...new Set(ids)]
  const rows = await db
    .select()
    .from(chatAttachments)
    .where(
      and(inArray(chatAttachments.id, unique), eq(chatAttachments.accountId, accountId), isNull(chatAttachments.messageId), isNull(chatAttachments.sentAt))
    )
    .orderBy(asc(chatAttachments.seq))
  if (rows.length !== unique.length) throw new ApiError(40400001, '附件不存在、已过期或已经发送过，请重新上传')
  return rows
}

/** Links the attachments to their message in the send's transaction; refuses when one was taken meanwhile. */
export async function linkAttachments(tx: Tx, rows: readonly ChatAttachment[], messageId: string, at: Date): Promise<void> {
  if (rows.length === 0) return
  const linked = await tx
    .update(chatAttachments)
    .set({ messageId, sentAt: at })
    .where(
      and(
        inArray(
          chatAttachments.id,
          rows.map((r) => r.id)
        ),
        isNull(chatAttachments.messageId),
        isNull(chatAttachments.sentAt)
      )
    )
    .returning({ id: chatAttachments.id })
  if (linked.length !== rows.length) throw new ApiError(40400001, '附件已经随另一条消息发送，请重新上传')
}

export async function attachmentsOf(db: Db, messageId: string): Promise<ChatAttachment[]> {
  return db.select().from(chatAttachments).where(eq(chatAttachments.messageId, messageId)).orderBy(asc(chatAttachments.seq))
}

/** The messages with their attachments filled in (user messages that have any). */
export async function withAttachments(db: Db, messages: Message[]): Promise<Message[]> {
  const ids = messages.filter((m) => m.role === 'user').map((m) => m.messageId)
  if (ids.length === 0) return messages
  const rows = await db.select().from(chatAttachments).where(inArray(chatAttachments.messageId, ids)).orderBy(asc(chatAttachments.seq))
  if (rows.length === 0) return messages
  const by = new Map<string, Attachment[]>()
  for (const row of rows) by.set(row.messageId!, [...(by.get(row.messageId!) ?? []), toAttachment(row)])
  return messages.map((m) => (by.has(m.messageId) ? { ...m, attachments: by.get(m.messageId) } : m))
}

export const NO_VISION = (model: Pick<ModelEntry, 'name'>) => `模型「${model.name}」不能识别图片：请移除图片，或在对话设置里换用支持识图的模型`

/** Refuses images for a model that cannot see them (checked before anything is held or sent). */
export function checkVision(model: Pick<ModelEntry, 'name' | 'vision'>, rows: readonly ChatAttachment[]): void {
  if (!model.vision && rows.some((r) => r.kind === 'image')) throw new ApiError(40000001, NO_VISION(model))
}

export interface AttachmentTurn {
  /** Appended to the question: each document's text between markers the model can read. */
  text: string
  /** data: URLs of the images, for the upstream (none for the demo model, which only describes them). */
  images: string[]
  files: TurnFile[]
  /** The images' prompt tokens (OpenAI's high-detail count); the text is counted with the question. */
  imageTokens: number
}

const firstLineOf = (text: string) => (text.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 200)

/** A JPEG of the image within VISION_SIDE px: smaller than most originals, and read by every vision upstream. */
async function dataUrl(storage: Storage, row: ChatAttachment): Promise<string> {
  const object = await storage.get(row.key)
  if (!object) throw new ApiError(40400001, `附件「${row.name}」的文件已丢失，请重新上传`)
  const jpeg = await sharp(object.body, { limitInputPixels: 40_000_000 * 4 })
    .rotate()
    .resize({ width: VISION_SIDE, height: VISION_SIDE, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 85 })
    .toBuffer()
  return `data:image/jpeg;base64,${jpeg.toString('base64')}`
}

/** What a message's attachments add to its turn of the prompt. */
export async function attachmentTurn(storage: Storage, model: Pick<ModelEntry, 'provider'>, rows: readonly ChatAttachment[]): Promise<AttachmentTurn> {
  const turn: AttachmentTurn = { text: '', images: [], files: [], imageTokens: 0 }
  for (const row of rows) {
    if (row.kind === 'image') {
      turn.imageTokens += imageTokens(row.width ?? 0, row.height ?? 0)
      if (model.provider !== 'demo') turn.images.push(await dataUrl(storage, row))
      turn.files.push({ kind: 'image', name: row.name, size: row.size, width: row.width, height: row.height })
      continue
    }
    const text = row.text ?? ''
    const about = [row.pages ? `${row.pages} 页` : null, row.clipped ? '内容过长，只给出了开头部分' : null].filter(Boolean).join('，')
    turn.text += `${ATTACHED_TEXT}${row.name}${about ? `（${about}）` : ''}】\n${text || '（没有可提取的文字）'}\n【附件结束】`
    turn.files.push({ kind: 'document', name: row.name, size: row.size, pages: row.pages, chars: [...text].length, firstLine: firstLineOf(text) })
  }
  return turn
}
