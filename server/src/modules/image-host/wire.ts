import { z } from 'zod'
import { imageSchema } from '../../storage/wire.js'

export const IMAGE_PERMISSION = 'AI_TOOLS_IMAGE'
export const ALBUM_NOT_FOUND = '相册不存在或已删除'
export const IMAGE_NOT_FOUND = '图片不存在或已删除'
/** Albums per account. */
export const MAX_ALBUMS = 100
/** Images one `images/move` may move. */
export const MAX_MOVE = 100

/** An image of the host, with the album it is in (null: none). */
export const hostedImageSchema = imageSchema.extend({ albumId: z.string().nullable() }).meta({ id: 'HostedImage' })

export const albumSchema = z
  .object({
    albumId: z.string(),
    name: z.string(),
    imageCount: z.number(),
    /** The thumbnail of its newest image, null while empty. */
    coverUrl: z.string().nullable(),
    createTime: z.number()
  })
  .meta({ id: 'ImageAlbum' })
