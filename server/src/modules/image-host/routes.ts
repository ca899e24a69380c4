import { and, count, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import { files } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, pageFields, readPage } from '../../http/fields.js'
import { deleteStoredFile } from '../../storage/images.js'
import { toImage } from '../../storage/to-wire.js'
import { imageSchema, paged } from '../../storage/wire.js'

export const IMAGE_PERMISSION = 'AI_TOOLS_IMAGE'
const PERMISSION = IMAGE_PERMISSION

/** The image host: `images/list` and `images/del` over the account's own uploads. */
export function registerImageRoutes(api: Api): void {
  const { db, storage } = api
  const mine = (accountId: string) => and(eq(files.accountId, accountId), eq(files.source, 'upload'))

  defineRoute(
    api,
    '/api/v1/images/list',
    {
      tag: 'images',
      summary: 'My uploaded images, newest first',
      auth: true,
      permission: PERMISSION,
      body: z.object(pageFields),
      response: paged(imageSchema)
    },
    async ({ auth, body }) => {
      const where = mine(auth.account.id)
      return readPage(
        body,
        db.select({ n: count() }).from(files).where(where),
        (limit, offset) => db.select().from(files).where(where).orderBy(desc(files.seq)).limit(limit).offset(offset),
        (rows) => rows.map((row) => toImage(storage, row))
      )
    }
  )

  defineRoute(
    api,
    '/api/v1/images/del',
    {
      tag: 'images',
      summary: 'Delete one of my images (file and thumbnail)',
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
      if (!row) throw new ApiError(40400001, '图片不存在或已删除')
      await deleteStoredFile({ db, storage }, row)
      return true
    }
  )
}
