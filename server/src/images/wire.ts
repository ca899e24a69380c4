import { z } from 'zod'
import type { StoredFile } from '../db/schema.js'
import type { Storage } from '../storage/index.js'
import { fileUrls } from '../storage/images.js'

/** `Image` of docs/tools-wire.md. */
export const imageSchema = z.object({
  imageId: z.string(),
  url: z.string(),
  thumbUrl: z.string(),
  name: z.string(),
  contentType: z.string(),
  size: z.number(),
  width: z.number(),
  height: z.number(),
  createTime: z.number()
})
export type Image = z.infer<typeof imageSchema>

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

export { paged } from '../http/fields.js'
