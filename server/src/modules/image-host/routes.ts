import { and, count, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import { files, imageAlbumItems } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, pageFields, readPage } from '../../http/fields.js'
import { takedownsOf } from '../../moderation/takedowns.js'
import { toImage } from '../../storage/to-wire.js'
import { paged } from '../../storage/wire.js'
import { albumFilter, registerAlbumRoutes } from './albums.js'
import { removeImage } from './remove.js'
import { hostedImageSchema, IMAGE_NOT_FOUND, IMAGE_PERMISSION } from './wire.js'

export { IMAGE_PERMISSION } from './wire.js'
const PERMISSION = IMAGE_PERMISSION

/** The image host: `images/list` and `images/del` over the account's own uploads, and their albums. */
export function registerImageRoutes(api: Api): void {
  const { db, storage } = api
  const mine = (accountId: string) => and(eq(files.accountId, accountId), eq(files.source, 'upload'))

  defineRoute(
    api,
    '/api/v1/images/list',
    {
      tag: 'images',
      summary: 'My uploaded images, newest first; `albumId` narrows to one album (`none`: outside any album)',
      auth: true,
      permission: PERMISSION,
      body: z.object({ ...pageFields, albumId: z.union([idField('albumId'), z.literal('none')]).optional() }),
      response: paged(hostedImageSchema)
    },
    async ({ auth, body }) => {
      const where = and(mine(auth.account.id), albumFilter(body.albumId))
      const joined = () => db.select().from(files).leftJoin(imageAlbumItems, eq(imageAlbumItems.fileId, files.id))
      return readPage(
        body,
        db.select({ n: count() }).from(files).leftJoin(imageAlbumItems, eq(imageAlbumItems.fileId, files.id)).where(where),
        (limit, offset) => joined().where(where).orderBy(desc(files.seq)).limit(limit).offset(offset),
        async (rows) => {
          // An image an operator took down: listed to its owner as 已下架 with the reason (moderation/takedowns.ts).
          const down = await takedownsOf(
            db,
            'image',
            rows.map((row) => row.files.id)
          )
          return rows.map((row) => {
            const reason = down.get(row.files.id)
            const image = { ...toImage(storage, row.files), albumId: row.image_album_items?.albumId ?? null }
            return reason === undefined ? image : { ...image, takedown: reason }
          })
        }
      )
    }
  )

  defineRoute(
    api,
    '/api/v1/images/del',
    {
      tag: 'images',
      summary: 'Delete one of my images: its file and thumbnail leave storage',
      auth: true,
      permission: PERMISSION,
      body: z.object({ imageId: idField('imageId') }),
      response: z.literal(true)
    },
    async ({ auth, body }) => {
      const [row] = await db
        .select()
        .from(files)
        .where(and(eq(files.id, body.imageId), mine(auth.account.id)))
      if (!row) throw new ApiError(40400001, IMAGE_NOT_FOUND)
      await removeImage({ db, storage }, row)
      return true
    }
  )

  registerAlbumRoutes(api)
}
