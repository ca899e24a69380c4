import { and, count, eq, gte } from 'drizzle-orm'
import { z } from 'zod'
import { contentReports, REPORT_KINDS } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { type Api, defineRoute } from '../http/api.js'
import { idField, oneOf, requiredText } from '../http/fields.js'
import { findItem, NOT_FOUND_MESSAGE, takedownsOf } from './takedowns.js'

/** Reports one account may file per hour. */
export const REPORTS_PER_HOUR = 20
export const REASON_MAX = 200
const HOUR_MS = 3600_000

export const reportResultSchema = z
  .object({
    reportId: z.number(),
    /** True when this account's open report of the item already existed (nothing new was filed). */
    duplicate: z.boolean()
  })
  .meta({ id: 'ReportResult' })

/**
 * `POST /api/v1/report` (issue 18): a signed-in user reports a chat reply (their own), a gallery work
 * (or their own painting), a song or an image, with a reason. One open report per account and item
 * (the partial unique index decides between racing requests); at most REPORTS_PER_HOUR an hour.
 */
export function registerReportRoute(api: Api): void {
  defineRoute(
    api,
    '/api/v1/report',
    {
      tag: 'report',
      summary: `Report a reply, a gallery work, a song or an image to the operators (one open report per item; ${REPORTS_PER_HOUR} an hour)`,
      auth: true,
      body: z.object({ kind: oneOf('举报对象', REPORT_KINDS), itemId: idField('内容ID'), reason: requiredText('举报理由', { max: REASON_MAX }) }),
      response: reportResultSchema
    },
    async ({ auth, body }) => {
      const me = auth.account.id
      const at = new Date(api.now())
      const item = await findItem(api.db, body.kind, body.itemId)
      // What this account cannot see is answered as missing: a reply of another, an unpublished work of another.
      const visible = item && (item.accountId === me || (body.kind === 'painting' ? item.published : body.kind !== 'reply'))
      // An item taken down is hidden everywhere already: nothing left to report.
      const down = item && body.kind !== 'reply' && (await takedownsOf(api.db, body.kind, [item.itemId])).size > 0
      if (!item || !visible || down) throw new ApiError(40400001, NOT_FOUND_MESSAGE)
      const where = and(
        eq(contentReports.reporterId, me),
        eq(contentReports.kind, body.kind),
        eq(contentReports.itemId, body.itemId),
        eq(contentReports.status, 'open')
      )
      const [open] = await api.db.select({ id: contentReports.id }).from(contentReports).where(where)
      if (open) return { reportId: open.id, duplicate: true }
      const [recent] = await api.db
        .select({ n: count() })
        .from(contentReports)
        .where(and(eq(contentReports.reporterId, me), gte(contentReports.createdAt, new Date(at.getTime() - HOUR_MS))))
      if ((recent?.n ?? 0) >= REPORTS_PER_HOUR) throw new ApiError(42900001, '举报过于频繁，请一小时后再试')
      const [row] = await api.db
        .insert(contentReports)
        .values({ kind: body.kind, itemId: body.itemId, reporterId: me, ownerId: item.accountId, reason: body.reason, excerpt: item.excerpt, createdAt: at })
        .onConflictDoNothing()
        .returning({ id: contentReports.id })
      if (row) return { reportId: row.id, duplicate: false }
      // Lost the race to a parallel report of the same item: that one stands.
      const [winner] = await api.db.select({ id: contentReports.id }).from(contentReports).where(where)
      if (!winner) throw new ApiError(40000001, '举报未能提交，请重试')
      return { reportId: winner.id, duplicate: true }
    }
  )
}
