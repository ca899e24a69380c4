import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import sharp from 'sharp'
import type { Db } from '../db/database.js'
import { type FileSource, files, type StoredFile } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { Storage } from './storage.js'
import { contentTypeOfKey, extensionFor, newKey } from './keys.js'

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024
/** Longest side and total pixels an image may have (a decompression bomb stops here). */
export const MAX_IMAGE_SIDE = 10_000
export const MAX_IMAGE_PIXELS = 40_000_000
export const THUMB_WIDTH = 160
/** Audio and other non-image files. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024

export const NOT_AN_IMAGE = '文件不是支持的图片格式（仅支持 PNG、JPEG、WebP、GIF）'
export const IMAGE_TOO_LARGE = '图片不能超过 10 MB'

const FORMATS: Record<string, { ext: string; type: string }> = {
  png: { ext: 'png', type: 'image/png' },
  jpeg: { ext: 'jpg', type: 'image/jpeg' },
  webp: { ext: 'webp', type: 'image/webp' },
  gif: { ext: 'gif', type: 'image/gif' }
}

const PREFIX: Record<FileSource, string> = {
  upload: 'images',
  avatar: 'avatars',
  painting: 'paintings',
  music: 'music',
  cover: 'covers'
}

export interface StorageDeps {
  db: Db
  storage: Storage
  now?: () => number
}

export interface SaveImageInput {
  accountId: string
  bytes: Uint8Array
  source: FileSource
  name?: string
  /**
   * A key that already holds these bytes (a completed upload). Kept when its extension matches
   * the real format; otherwise the image is stored under a new key and this one is deleted.
   */
  key?: string
  /** Sees a real image (its bytes and type) before anything is stored; throws to refuse it (moderation). */
  check?: (bytes: Uint8Array, contentType: string) => Promise<void>
}

export interface ImageInfo {
  ext: string
  contentType: string
  width: number
  height: number
}

/** Checks the bytes by content (not by name): png/jpeg/webp/gif, size and dimension limits. */
export async function inspectImage(bytes: Uint8Array): Promise<ImageInfo> {
  if (bytes.byteLength > MAX_IMAGE_BYTES) throw new ApiError(40000003, IMAGE_TOO_LARGE)
  if (bytes.byteLength === 0) throw new ApiError(40000001, '文件是空的')
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata()
  } catch {
    throw new ApiError(40000001, NOT_AN_IMAGE)
  }
  const format = FORMATS[meta.format ?? '']
  if (!format || !meta.width || !meta.height) throw new ApiError(40000001, NOT_AN_IMAGE)
  // Animated images: `height` is one frame's height times the frame count unless pageHeight says.
  const frameHeight = meta.pageHeight ?? meta.height
  const rotated = (meta.orientation ?? 1) >= 5
  const width = rotated ? frameHeight : meta.width
  const height = rotated ? meta.width : frameHeight
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width * height > MAX_IMAGE_PIXELS) {
    throw new ApiError(40000001, `图片尺寸过大（${width}×${height}），宽高不能超过 ${MAX_IMAGE_SIDE} 像素`)
  }
  return { ext: format.ext, contentType: format.type, width, height }
}

/** A THUMB_WIDTH-wide WebP of the first frame, upright. */
export async function makeThumbnail(bytes: Uint8Array): Promise<Uint8Array> {
  try {
    const out = await sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS * 4 })
      .rotate()
      .resize({ width: THUMB_WIDTH, withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer()
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
  } catch {
    throw new ApiError(40000001, '图片已损坏，无法读取')
  }
}

function thumbKeyOf(key: string): string {
  return `${key.slice(0, key.lastIndexOf('.'))}-thumb.webp`
}

/** File names are labels only (never paths): control characters and path parts removed, 100 chars. */
export function cleanName(name: string | undefined): string {
  if (!name) return ''
  const base = name.split(/[\\/]/).pop() ?? ''
  return (
    base
      // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
      .replace(/[\u0000-\u001f\u007f<>"]/g, '')
      .trim()
      .slice(0, 100)
  )
}

/**
 * Checks an image, stores it and a thumbnail, records a `files` row and returns it.
 * Throws ApiError 40000001 (not an image / too big in pixels) or 40000003 (over 10 MB).
 */
export async function saveImage(deps: StorageDeps, input: SaveImageInput): Promise<StoredFile> {
  const info = await inspectImage(input.bytes)
  await input.check?.(input.bytes, info.contentType)
  const thumb = await makeThumbnail(input.bytes)
  const at = new Date(deps.now?.() ?? Date.now())
  const keep = input.key !== undefined && contentTypeOfKey(input.key) === info.contentType
  const key = keep && input.key ? input.key : newKey(PREFIX[input.source], info.ext, at)
  const thumbKey = thumbKeyOf(key)
  if (!keep) await deps.storage.put(key, input.bytes, info.contentType)
  try {
    await deps.storage.put(thumbKey, thumb, 'image/webp')
    const [row] = await deps.db
      .insert(files)
      .values({
        id: randomUUID(),
        accountId: input.accountId,
        key,
        thumbKey,
        name: cleanName(input.name),
        contentType: info.contentType,
        size: input.bytes.byteLength,
        width: info.width,
        height: info.height,
        source: input.source,
        createdAt: at
      })
      .returning()
    if (!row) throw new Error('files insert returned nothing')
    if (input.key !== undefined && !keep) await deps.storage.delete(input.key).catch(() => {})
    return row
  } catch (error) {
    await deps.storage.delete(thumbKey).catch(() => {})
    if (!keep) await deps.storage.delete(key).catch(() => {})
    throw error
  }
}

export interface SaveFileInput {
  accountId: string
  bytes: Uint8Array
  /** e.g. audio/mpeg, audio/wav; must be a type storage serves (see keys.ts). */
  contentType: string
  source: FileSource
  name?: string
}

/** Stores a non-image file as given (audio): no content check beyond type and size. */
export async function saveFile(deps: StorageDeps, input: SaveFileInput): Promise<StoredFile> {
  const ext = extensionFor(input.contentType)
  if (!ext) throw new Error(`saveFile: Lingxi does not store ${input.contentType}`)
  if (input.bytes.byteLength > MAX_FILE_BYTES) throw new ApiError(40000003, '文件不能超过 50 MB')
  const at = new Date(deps.now?.() ?? Date.now())
  const key = newKey(PREFIX[input.source], ext, at)
  const contentType = contentTypeOfKey(key) ?? input.contentType
  await deps.storage.put(key, input.bytes, contentType)
  try {
    const [row] = await deps.db
      .insert(files)
      .values({
        id: randomUUID(),
        accountId: input.accountId,
        key,
        thumbKey: null,
        name: cleanName(input.name),
        contentType,
        size: input.bytes.byteLength,
        width: null,
        height: null,
        source: input.source,
        createdAt: at
      })
      .returning()
    if (!row) throw new Error('files insert returned nothing')
    return row
  } catch (error) {
    await deps.storage.delete(key).catch(() => {})
    throw error
  }
}

/**
 * The `files` row behind a URL of this storage (absolute, or relative `/files/…`), or null when the
 * URL is not ours or names no file. With `accountId`, only that account's files count.
 */
export async function ownFile(db: Db, storage: Storage, url: string, accountId?: string): Promise<StoredFile | null> {
  const key = storage.keyOf(url)
  if (!key) return null
  const where = accountId === undefined ? eq(files.key, key) : and(eq(files.key, key), eq(files.accountId, accountId))
  const [row] = await db.select().from(files).where(where)
  return row ?? null
}

/** Removes a file's objects (original and thumbnail) and its row. */
export async function deleteStoredFile(deps: StorageDeps, row: StoredFile): Promise<void> {
  await deps.db.delete(files).where(eq(files.id, row.id))
  await deps.storage.delete(row.key)
  if (row.thumbKey) await deps.storage.delete(row.thumbKey)
}

/** Absolute URLs of a stored file. */
export function fileUrls(storage: Storage, row: Pick<StoredFile, 'key' | 'thumbKey'>): { url: string; thumbUrl: string } {
  const url = storage.publicUrl(row.key)
  return { url, thumbUrl: row.thumbKey ? storage.publicUrl(row.thumbKey) : url }
}
