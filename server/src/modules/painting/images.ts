import sharp, { type Metadata } from 'sharp'
import { ApiError } from '../../errors.js'
import { contentTypeOfKey, extensionFor, newKey, type Storage } from '../../storage/index.js'
import type { ImageInput } from './providers/provider.js'
import { ProviderError } from './providers/provider.js'

export const THUMB_WIDTH = 160
/** Largest finished image copied from an upstream. */
const MAX_IMAGE_BYTES = 30 * 1024 * 1024
export const FOREIGN_IMAGE_MESSAGE = '图片必须来自灵犀图床，请先上传图片再使用'

export interface StoredImage {
  imageKey: string
  thumbKey: string
  width: number
  height: number
}

/**
 * Copies a finished picture into Lingxi's storage with a 160-wide thumbnail, so the wire only ever
 * carries Lingxi URLs (upstream CDN links expire and are slow from China). `check` sees the bytes
 * first and throws (a ProviderError) to keep them out.
 */
export async function storeImage(
  storage: Storage,
  image: { url: string } | { body: Uint8Array; contentType: string },
  options: { fetch?: typeof fetch; timeoutMs?: number; at?: Date; check?: (body: Uint8Array, mime: string) => Promise<void> } = {}
): Promise<StoredImage> {
  let body: Uint8Array
  if ('url' in image) body = await download(image.url, options.fetch ?? fetch, options.timeoutMs ?? 60_000)
  else body = image.body
  let meta: Metadata
  try {
    meta = await sharp(body).metadata()
  } catch {
    throw new ProviderError('绘画服务返回的图片无法识别')
  }
  // Stored as it came when it is a type Lingxi serves; anything else becomes PNG.
  let ext = meta.format === 'jpeg' ? 'jpg' : meta.format === 'png' || meta.format === 'webp' ? meta.format : null
  if (!ext) {
    body = new Uint8Array(await sharp(body).png().toBuffer())
    ext = 'png'
  }
  // Checked as it will be served, before anything is stored.
  await options.check?.(body, contentTypeOfKey(`x.${ext}`) ?? 'image/png')
  const at = options.at ?? new Date()
  const imageKey = newKey('painting', ext, at)
  const thumbKey = newKey('painting', 'webp', at)
  const thumb = await sharp(body).resize({ width: THUMB_WIDTH }).webp({ quality: 80 }).toBuffer()
  await storage.put(imageKey, body, contentTypeOfKey(imageKey) ?? 'image/png')
  try {
    await storage.put(thumbKey, new Uint8Array(thumb), 'image/webp')
  } catch (error) {
    await storage.delete(imageKey).catch(() => {})
    throw error
  }
  return { imageKey, thumbKey, width: meta.width ?? 0, height: meta.height ?? 0 }
}

export async function deleteImage(storage: Storage, image: Pick<StoredImage, 'imageKey' | 'thumbKey'>): Promise<void> {
  await Promise.all([storage.delete(image.imageKey).catch(() => {}), storage.delete(image.thumbKey).catch(() => {})])
}

async function download(url: string, doFetch: typeof fetch, timeoutMs: number): Promise<Uint8Array> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new ProviderError('绘画服务返回的图片地址无效')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ProviderError('绘画服务返回的图片地址无效')
  let res: Response
  try {
    res = await doFetch(parsed, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' })
  } catch {
    throw new ProviderError('下载绘画结果失败，次数已退回')
  }
  if (!res.ok || !res.body) throw new ProviderError(`下载绘画结果失败（HTTP ${res.status}），次数已退回`)
  const declared = Number(res.headers.get('content-length') ?? '0')
  if (declared > MAX_IMAGE_BYTES) throw new ProviderError('绘画结果图片过大')
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength
    if (size > MAX_IMAGE_BYTES) throw new ProviderError('绘画结果图片过大')
    chunks.push(chunk)
  }
  return new Uint8Array(Buffer.concat(chunks))
}

/**
 * An image the person gives (describe, blend, references, leading prompt URLs): it must be one of
 * Lingxi's own storage URLs, and the file must exist and be a picture.
 */
export async function readOwnImage(storage: Storage, url: string, label = '图片'): Promise<ImageInput> {
  const key = typeof url === 'string' ? storage.keyOf(url.trim()) : null
  if (!key) throw new ApiError(40000001, FOREIGN_IMAGE_MESSAGE)
  const type = contentTypeOfKey(key)
  if (!type?.startsWith('image/')) throw new ApiError(40000001, `${label}必须是图片文件`)
  const file = await storage.get(key)
  if (!file) throw new ApiError(40000001, `${label}不存在或已被删除，请重新上传`)
  return { key, body: file.body, contentType: extensionFor(file.contentType) ? file.contentType : type }
}
