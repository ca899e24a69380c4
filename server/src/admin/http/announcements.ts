import { and, desc, eq, gt, isNull, lte } from 'drizzle-orm'
import { z } from 'zod'
import { announcements } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { requiredText } from '../../http/fields.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'

/** What a visitor is shown (POST /api/v1/announcements). */
export const announcementSchema = z
  .object({ id: z.number(), title: z.string(), body: z.string(), startTime: z.number(), endTime: z.number() })
  .meta({ id: 'Announcement' })

const adminAnnouncement = announcementSchema
  .extend({ embeds: z.boolean(), withdrawn: z.boolean(), active: z.boolean(), createTime: z.number() })
  .meta({ id: 'AdminAnnouncement' })

const toWire = (row: typeof announcements.$inferSelect) => ({
  id: row.id,
  title: row.title,
  body: row.body,
  startTime: row.startsAt.getTime(),
  endTime: row.endsAt.getTime()
})

/**
 * Announcements (issue 17): an operator's notice with a start and an end, shown once to every
 * visitor of the site (the client remembers which it showed) and in embeds when marked so.
 */
export function registerAnnouncementRoutes(api: Api): void {
  defineRoute(
    api,
    '/api/v1/announcements',
    {
      tag: 'announcements',
      summary: 'The notices shown now (newest first); `embed: true` asks for those also meant for embedded widgets',
      body: z.object({ embed: z.boolean().optional() }),
      response: z.array(announcementSchema)
    },
    async ({ body }) => {
      const now = new Date(api.now())
      const rows = await api.db
        .select()
        .from(announcements)
        .where(
          and(
            lte(announcements.startsAt, now),
            gt(announcements.endsAt, now),
            isNull(announcements.withdrawnAt),
            body.embed ? eq(announcements.embeds, true) : undefined
          )
        )
        .orderBy(desc(announcements.startsAt), desc(announcements.id))
        .limit(5)
      return rows.map(toWire)
    }
  )

  const admin = <S extends z.ZodType>(path: string, summary: string, body: S, response: z.ZodType, handler: Parameters<typeof defineRoute<S, true>>[3]) =>
    defineRoute<S, true>(api, `/api/admin/announcements${path}`, { tag: TAG, summary, permission: ADMIN_PERMISSION, auth: true, body, response }, handler)

  admin('/list', 'Every announcement, newest first', z.object({}), z.object({ list: z.array(adminAnnouncement) }), async () => {
    const now = api.now()
    const rows = await api.db.select().from(announcements).orderBy(desc(announcements.id)).limit(200)
    return {
      list: rows.map((r) => ({
        ...toWire(r),
        embeds: r.embeds,
        withdrawn: r.withdrawnAt !== null,
        active: r.withdrawnAt === null && r.startsAt.getTime() <= now && r.endsAt.getTime() > now,
        createTime: r.createdAt.getTime()
      }))
    }
  })

  const time = (label: string) =>
    z
      .number({ error: `${label}必须是时间（毫秒）` })
      .int()
      .positive({ error: `${label}必须是时间（毫秒）` })
  admin(
    '/save',
    'Creates an announcement (no `id`) or changes one',
    z.object({
      id: z.number().int().positive().optional(),
      title: requiredText('标题', { max: 60 }),
      body: requiredText('内容', { max: 1000 }),
      startTime: time('开始时间'),
      endTime: time('结束时间'),
      embeds: z.boolean().optional()
    }),
    announcementSchema,
    async ({ body, auth }) => {
      if (body.endTime <= body.startTime) throw new ApiError(40000001, '结束时间必须晚于开始时间')
      const at = new Date(api.now())
      const values = {
        title: body.title.trim(),
        body: body.body.trim(),
        startsAt: new Date(body.startTime),
        endsAt: new Date(body.endTime),
        embeds: Boolean(body.embeds),
        updatedAt: at
      }
      return api.db.transaction(async (tx) => {
        let row: typeof announcements.$inferSelect | undefined
        let before: unknown = null
        if (body.id) {
          const [old] = await tx.select().from(announcements).where(eq(announcements.id, body.id)).for('update')
          if (!old) throw new ApiError(40400001, '公告不存在')
          before = toWire(old)
          ;[row] = await tx.update(announcements).set(values).where(eq(announcements.id, body.id)).returning()
        } else {
          ;[row] = await tx
            .insert(announcements)
            .values({ ...values, createdBy: auth.account.id, createdAt: at })
            .returning()
        }
        await audit(
          tx,
          auth,
          {
            action: body.id ? 'announcement.update' : 'announcement.create',
            target: `announcement:${row!.id}`,
            before,
            after: { ...toWire(row!), embeds: row!.embeds }
          },
          at
        )
        return toWire(row!)
      })
    }
  )

  admin('/withdraw', 'Takes an announcement back: shown no more', z.object({ id: z.number().int().positive() }), announcementSchema, async ({ body, auth }) => {
    const at = new Date(api.now())
    return api.db.transaction(async (tx) => {
      const [row] = await tx
        .update(announcements)
        .set({ withdrawnAt: at, updatedAt: at })
        .where(and(eq(announcements.id, body.id), isNull(announcements.withdrawnAt)))
        .returning()
      if (!row) throw new ApiError(40400001, '公告不存在或已撤回')
      await audit(tx, auth, { action: 'announcement.withdraw', target: `announcement:${row.id}`, before: { withdrawn: false }, after: { withdrawn: true } }, at)
      return toWire(row)
    })
  })
}
