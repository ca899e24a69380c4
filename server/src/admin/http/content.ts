import { and, count, desc, eq, isNotNull, isNull, type SQL } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import { z } from 'zod'
import { accounts, contentTakedowns, files, musicSongs, paintingTasks, TAKEDOWN_KINDS, type TakedownKind } from '../../db/schema.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, pageFields, paged, requiredText } from '../../http/fields.js'
import { restore, takeDown } from '../../moderation/takedowns.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'

/** What the 内容 page lists: gallery works (published paintings), all paintings, songs, image-host images. */
export const CONTENT_LISTS = ['gallery', 'painting', 'song', 'image'] as const

export const contentRow = z
  .object({
    kind: z.enum(TAKEDOWN_KINDS),
    itemId: z.string(),
    accountId: z.string(),
    ownerPhone: z.string(),
    ownerName: z.string(),
    /** Prompt, song title or file name. */
    title: z.string(),
    /** A preview (thumbnail, cover or audio); null while taken down (the file is not served). */
    previewUrl: z.string().nullable(),
    published: z.boolean(),
    createTime: z.number(),
    takedown: z.object({ reason: z.string(), createTime: z.number() }).nullable()
  })
  .meta({ id: 'AdminContentRow' })
export type ContentRow = z.infer<typeof contentRow>

const mask = (phone: string) => `${phone.slice(0, 3)}****${phone.slice(-4)}`

/** The active takedown of the row's item, joined in the list query. */
const activeJoin = (kind: TakedownKind, id: AnyPgColumn): SQL =>
  and(eq(contentTakedowns.kind, kind), eq(contentTakedowns.itemId, id), isNull(contentTakedowns.restoredAt))!

/**
 * The 内容 page (issue 17): every gallery work, painting, song and image newest first with its owner;
 * an operator takes any of them down (moderation/takedowns.ts) with a reason, or restores it. Both
 * are written to the audit log in the same transaction.
 */
export function registerContentRoutes(api: Api): void {
  const { db, storage } = api
  const url = (key: string | null) => (key ? storage.publicUrl(key) : null)

  async function list(which: (typeof CONTENT_LISTS)[number], onlyDown: boolean, limit: number, offset: number) {
    const owner = { ownerPhone: accounts.phone, ownerName: accounts.nickName, reason: contentTakedowns.reason, downAt: contentTakedowns.createdAt }
    const down = onlyDown ? isNotNull(contentTakedowns.id) : undefined
    if (which === 'song') {
      const where = down
      const [rows, total] = await Promise.all([
        db
          .select({ row: musicSongs, ...owner })
          .from(musicSongs)
          .innerJoin(accounts, eq(accounts.id, musicSongs.accountId))
          .leftJoin(contentTakedowns, activeJoin('song', musicSongs.id))
          .where(where)
          .orderBy(desc(musicSongs.seq))
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(musicSongs).leftJoin(contentTakedowns, activeJoin('song', musicSongs.id)).where(where)
      ])
      return {
        total: total[0]?.n ?? 0,
        list: rows.map(({ row, ...o }) =>
          item('song', row.id, row.accountId, o, row.title || row.prompt, o.reason ? null : (url(row.audioKey) ?? row.audioUrl), false, row.createdAt)
        )
      }
    }
    if (which === 'image') {
      const where = and(eq(files.source, 'upload'), down)
      const [rows, total] = await Promise.all([
        db
          .select({ row: files, ...owner })
          .from(files)
          .innerJoin(accounts, eq(accounts.id, files.accountId))
          .leftJoin(contentTakedowns, activeJoin('image', files.id))
          .where(where)
          .orderBy(desc(files.seq))
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(files).leftJoin(contentTakedowns, activeJoin('image', files.id)).where(where)
      ])
      return {
        total: total[0]?.n ?? 0,
        list: rows.map(({ row, ...o }) =>
          item('image', row.id, row.accountId, o, row.name, o.reason ? null : url(row.thumbKey ?? row.key), false, row.createdAt)
        )
      }
    }
    const where = and(
      which === 'gallery' ? eq(paintingTasks.published, true) : and(eq(paintingTasks.status, 'SUCCESS'), isNotNull(paintingTasks.imageKey)),
      down
    )
    const order = which === 'gallery' ? [desc(paintingTasks.publishTime), desc(paintingTasks.seq)] : [desc(paintingTasks.seq)]
    const [rows, total] = await Promise.all([
      db
        .select({ row: paintingTasks, ...owner })
        .from(paintingTasks)
        .innerJoin(accounts, eq(accounts.id, paintingTasks.accountId))
        .leftJoin(contentTakedowns, activeJoin('painting', paintingTasks.id))
        .where(where)
        .orderBy(...order)
        .limit(limit)
        .offset(offset),
      db.select({ n: count() }).from(paintingTasks).leftJoin(contentTakedowns, activeJoin('painting', paintingTasks.id)).where(where)
    ])
    return {
      total: total[0]?.n ?? 0,
      list: rows.map(({ row, ...o }) =>
        item('painting', row.id, row.accountId, o, row.prompt, o.reason ? null : url(row.thumbKey ?? row.imageKey), row.published, row.createdAt)
      )
    }
  }

  function item(
    kind: TakedownKind,
    itemId: string,
    accountId: string,
    o: { ownerPhone: string; ownerName: string; reason: string | null; downAt: Date | null },
    title: string,
    previewUrl: string | null,
    published: boolean,
    createdAt: Date
  ): ContentRow {
    return {
      kind,
      itemId,
      accountId,
      ownerPhone: mask(o.ownerPhone),
      ownerName: o.ownerName,
      title,
      previewUrl,
      published,
      createTime: createdAt.getTime(),
      takedown: o.reason !== null && o.downAt ? { reason: o.reason, createTime: o.downAt.getTime() } : null
    }
  }

  defineRoute(
    api,
    '/api/admin/content/list',
    {
      tag: TAG,
      summary: 'Gallery works, paintings, songs or image-host images, newest first, with owner and takedown state',
      permission: ADMIN_PERMISSION,
      auth: true,
      body: z.object({ ...pageFields, list: z.enum(CONTENT_LISTS), takenDown: z.boolean().optional() }),
      response: paged(contentRow)
    },
    async ({ body }) => {
      const { list: rows, total } = await list(body.list, body.takenDown === true, body.pageSize, (body.pageNum - 1) * body.pageSize)
      return { list: rows, total, pageNum: body.pageNum, pageSize: body.pageSize }
    }
  )

  const target = z.object({ kind: z.enum(TAKEDOWN_KINDS), itemId: idField('内容ID') })
  const result = z.object({ kind: z.enum(TAKEDOWN_KINDS), itemId: z.string(), takenDown: z.boolean() }).meta({ id: 'AdminTakedownResult' })

  defineRoute(
    api,
    '/api/admin/content/takedown',
    {
      tag: TAG,
      summary: 'Takes an item down everywhere at once (lists, gallery, its files answer 410); the owner sees 已下架 with the reason',
      permission: ADMIN_PERMISSION,
      auth: true,
      body: target.extend({ reason: requiredText('下架理由', { max: 200 }) }),
      response: result
    },
    async ({ body, auth }) => {
      const at = new Date(api.now())
      await db.transaction(async (tx) => {
        const { id, item } = await takeDown(tx, { ...body, by: auth.account.id, at })
        await audit(
          tx,
          auth,
          {
            action: 'content.takedown',
            target: `${body.kind}:${body.itemId}`,
            before: { owner: item.accountId },
            after: { takedownId: id, files: item.keys.length },
            reason: body.reason
          },
          at
        )
      })
      return { kind: body.kind, itemId: body.itemId, takenDown: true }
    }
  )

  defineRoute(
    api,
    '/api/admin/content/restore',
    {
      tag: TAG,
      summary: 'Restores an item taken down: shown and served again',
      permission: ADMIN_PERMISSION,
      auth: true,
      body: target.extend({ reason: requiredText('恢复理由', { max: 200 }) }),
      response: result
    },
    async ({ body, auth }) => {
      const at = new Date(api.now())
      await db.transaction(async (tx) => {
        const ended = await restore(tx, { kind: body.kind, itemId: body.itemId, by: auth.account.id, at })
        await audit(
          tx,
          auth,
          {
            action: 'content.restore',
            target: `${body.kind}:${body.itemId}`,
            before: { takedownId: ended.id, reason: ended.reason },
            after: { restored: true },
            reason: body.reason
          },
          at
        )
      })
      return { kind: body.kind, itemId: body.itemId, takenDown: false }
    }
  )
}
