import type { StoredFile } from '../db/schema.js'
import { fileUrls } from './images.js'
import type { Storage } from './storage.js'
import type { Image } from './wire.js'

/** The `Image` of a stored file's row: its public URLs and what was recorded of it. */
export function toImage(storage: Storage, row: StoredFile): Image {
  return {
    imageId: row.id,
    ...fileUrls(storage, row),
    name: row.name,
    contentType: row.contentType,
    size: row.size,
    width: row.width ?? 0,
    height: row.height ?? 0,
    createTime: row.createdAt.getTime()
  }
}
