import { randomUUID } from 'node:crypto'
import { and, asc, count, eq, inArray, isNull } from 'drizzle-orm'
import { z } from 'zod'
import { files, imageAlbumItems, imageAlbums } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, requiredText } from '../../http/fields.js'
import { fileUrls } from '../../storage/images.js'
import { ALBUM_NOT_FOUND, albumSchema, IMAGE_NOT_FOUND, IMAGE_PERMISSION, MAX_ALBUMS, MAX_MOVE } from './wire.js'

const tag = 'images'
const albumName = () => requiredText('相册名称', { max: 40 })

/** Albums of the image host: create, rename, delete (its images stay, outside any album), and moving images between them. */
export function registerAlbumRoutes(api: Api): void {
  const { db, storage, now } = api
  const base = (p: string) => `/api/v1/images/${p}`
  const common = { tag, auth: true as const, permission: IMAGE_PERMISSION }

  const requireAlbum = async (accountId: string, albumId: string) => {
    const [row] = await db
      .select()
      .from(imageAlbums)
      .where(and(eq(imageAlbums.id, albumId), eq(imageAlbums.accountId, accountId)))
    if (!row) throw new ApiError(40400001, ALBUM_NOT_FOUND)
    return row
  }
  const refuseDuplicate = async (accountId: string, name: string, except?: string) => {
    const same = await db
      .select({ id: imageAlbums.id })
      .from(imageAlbums)
      .where(and(eq(imageAlbums.accountId, accountId), eq(imageAlbums.name, name)))
    if (same.some((a) => a.id !== except)) throw new ApiError(40000001, `已有名为「${name}」的相册`)
  }

  defineRoute(
    api,
    base('album/list'),
    { ...common, summary: 'My albums, oldest first, with their image counts and covers', body: z.object({}), response: z.array(albumSchema) },
    async ({ auth }) => {
      const albums = await db
        .select()
        .from(imageAlbums)
        .where(eq(imageAlbums.accountId, auth.account.id))
        .orderBy(asc(imageAlbums.createdAt), asc(imageAlbums.id))
      if (albums.length === 0) return []
      const items = await db
        .select({ albumId: imageAlbumItems.albumId, key: files.key, thumbKey: files.thumbKey, seq: files.seq })
        .from(imageAlbumItems)
        .innerJoin(files, eq(files.id, imageAlbumItems.fileId))
        .where(
          inArray(
            imageAlbumItems.albumId,
            albums.map((a) => a.id)
          )
        )
      return albums.map((album) => {
        const mine = items.filter((i) => i.albumId === album.id)
        const newest = mine.reduce<(typeof mine)[number] | null>((a, b) => (!a || b.seq > a.seq ? b : a), null)
        return {
          albumId: album.id,
          name: album.name,
          imageCount: mine.length,
          coverUrl: newest ? fileUrls(storage, newest).thumbUrl : null,
          createTime: album.createdAt.getTime()
        }
      })
    }
  )

  defineRoute(
    api,
    base('album/add'),
    { ...common, summary: `Create an album (at most ${MAX_ALBUMS}; names unique per account)`, body: z.object({ name: albumName() }), response: albumSchema },
    async ({ auth, body }) => {
      const [n] = await db.select({ n: count() }).from(imageAlbums).where(eq(imageAlbums.accountId, auth.account.id))
      if ((n?.n ?? 0) >= MAX_ALBUMS) throw new ApiError(40000001, `相册最多 ${MAX_ALBUMS} 个，请先删除不用的相册`)
      await refuseDuplicate(auth.account.id, body.name)
      const [row] = await db
        .insert(imageAlbums)
        .values({ id: randomUUID(), accountId: auth.account.id, name: body.name, createdAt: new Date(now()) })
        .returning()
      if (!row) throw new Error('image_albums insert returned nothing')
      return { albumId: row.id, name: row.name, imageCount: 0, coverUrl: null, createTime: row.createdAt.getTime() }
    }
  )

  defineRoute(
    api,
    base('album/rename'),
    { ...common, summary: 'Rename one of my albums', body: z.object({ albumId: idField('albumId'), name: albumName() }), response: z.literal(true) },
    async ({ auth, body }) => {
      await requireAlbum(auth.account.id, body.albumId)
      await refuseDuplicate(auth.account.id, body.name, body.albumId)
      await db
        .update(imageAlbums)
        .set({ name: body.name })
        .where(and(eq(imageAlbums.id, body.albumId), eq(imageAlbums.accountId, auth.account.id)))
      return true
    }
  )

  defineRoute(
    api,
    base('album/del'),
    {
      ...common,
      summary: 'Delete one of my albums; its images stay, outside any album',
      body: z.object({ albumId: idField('albumId') }),
      response: z.literal(true)
    },
    async ({ auth, body }) => {
      await requireAlbum(auth.account.id, body.albumId)
      await db.delete(imageAlbums).where(and(eq(imageAlbums.id, body.albumId), eq(imageAlbums.accountId, auth.account.id)))
      return true
    }
  )

  defineRoute(
    api,
    base('move'),
    {
      ...common,
      summary: `Move my images into one of my albums, or out of any (albumId null); up to ${MAX_MOVE} at once, all or none`,
      body: z.object({
        imageIds: z
          .array(idField('imageId'), { error: 'imageIds 必须是图片 ID 的数组' })
          .min(1, '请选择要移动的图片')
          .max(MAX_MOVE, `一次最多移动 ${MAX_MOVE} 张图片`),
        albumId: idField('albumId').nullable()
      }),
      response: z.object({ moved: z.number() })
    },
    async ({ auth, body }) => {
      const ids = [...new Set(body.imageIds)]
      if (body.albumId) await requireAlbum(auth.account.id, body.albumId)
      const owned = await db
        .select({ id: files.id })
        .from(files)
        .where(and(inArray(files.id, ids), eq(files.accountId, auth.account.id), eq(files.source, 'upload')))
      if (owned.length !== ids.length) throw new ApiError(40400001, IMAGE_NOT_FOUND)
      const albumId = body.albumId
      await db.transaction(async (tx) => {
        await tx.delete(imageAlbumItems).where(inArray(imageAlbumItems.fileId, ids))
        if (albumId) await tx.insert(imageAlbumItems).values(ids.map((fileId) => ({ fileId, albumId })))
      })
      return { moved: ids.length }
    }
  )
}

/** The filter of `images/list`: an album's images, the ones outside any album (`none`), or all. */
export function albumFilter(albumId: string | undefined) {
  if (albumId === undefined) return undefined
  if (albumId === 'none') return isNull(imageAlbumItems.albumId)
  return eq(imageAlbumItems.albumId, albumId)
}
