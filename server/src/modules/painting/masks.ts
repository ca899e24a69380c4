import sharp, { type Metadata } from 'sharp'
import { ApiError } from '../../errors.js'
import { newKey, type Storage } from '../../storage/index.js'
import type { ImageInput } from './providers/provider.js'
import { MASK_MAX_BYTES } from './wire.js'

const PNG_DATA_URL = /^data:image\/png;base64,/
const MAX_TEXT = Math.ceil((MASK_MAX_BYTES * 4) / 3) + 4
const tooBig = () => new ApiError(40000001, `蒙版过大（最大 ${Math.round(MASK_MAX_BYTES / 1024)} KB），请缩小画布后重试`)

/**
 * A mask the person painted (vary region, inpaint): a PNG data URL the size of the picture, white
 * where it is redrawn. Checked before anything is charged, normalised to black and white, and kept
 * in storage so a queued job on any node can read it. Refusals are 40000001 with a Chinese message.
 */
export async function storeMask(storage: Storage, text: string, size: { width: number; height: number }, at: Date): Promise<ImageInput> {
  if (!PNG_DATA_URL.test(text)) throw new ApiError(40000001, '蒙版必须是 PNG 图片（data:image/png;base64,…）')
  const base64 = text.replace(PNG_DATA_URL, '')
  if (base64.length > MAX_TEXT) throw tooBig()
  const body = Buffer.from(base64, 'base64')
  if (body.byteLength > MASK_MAX_BYTES) throw tooBig()
  let meta: Metadata
  try {
    meta = await sharp(body).metadata()
  } catch {
    throw new ApiError(40000001, '蒙版必须是 PNG 图片，无法识别所给内容')
  }
  if (meta.format !== 'png') throw new ApiError(40000001, '蒙版必须是 PNG 图片')
  if (meta.width !== size.width || meta.height !== size.height) {
    throw new ApiError(40000001, `蒙版尺寸（${meta.width}×${meta.height}）必须与原图一致（${size.width}×${size.height}）`)
  }
  const clean = await sharp(body).flatten({ background: '#000000' }).greyscale().threshold(128).png().toBuffer()
  const stats = await sharp(clean).stats()
  if ((stats.channels[0]?.max ?? 0) === 0) throw new ApiError(40000001, '蒙版是空的，请先涂抹要重绘的区域')
  const key = newKey('painting', 'png', at)
  await storage.put(key, new Uint8Array(clean), 'image/png')
  return { key, body: new Uint8Array(clean), contentType: 'image/png' }
}
