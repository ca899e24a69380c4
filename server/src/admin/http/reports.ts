import { and, desc, eq, isNull, lt } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import { z } from 'zod'
import { accounts, contentReports, contentTakedowns, REPORT_KINDS } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { requiredText } from '../../http/fields.js'
import { takeDown } from '../../moderation/takedowns.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'

const REPORT_STATUSES = ['open', 'confirmed', 'dismissed'] as const

const reportRow = z
  .object({
    id: z.number(),
    kind: z.enum(REPORT_KINDS),
    itemId: z.string(),
    reason: z.string(),
    excerpt: z.string(),
    status: z.enum(REPORT_STATUSES),
    reporterId: z.string(),
    reporterPhone: z.string().nullable(),
    ownerId: z.string().nullable(),
    ownerPhone: z.string().nullable(),
    /** The item is taken down now. */
    takenDown: z.boolean(),
    note: z.string().nullable(),
    handledAt: z.number().nullable(),
    createTime: z.number()
  })
  .meta({ id: 'AdminReport' })

const mask = (phone: string | null) => (phone ? `${phone.slice(0, 3)}****${phone.slice(-4)}` : null)

/**
 * The reports queue (issue 18), next to the moderation log: open reports oldest… newest first; an
 * operator confirms (with a takedown of the item, for anything but a reply) or dismisses. The
 * decision settles every open report of the same item, and is written to the audit log. Disabling
 * the owner's account is the users page's `disable` (the console calls it after confirming).
 */
export function registerReportRoutes(api: Api): void {
  const reporter = alias(accounts, 'reporter')
  const owner = alias(accounts, 'owner')

  defineRoute(
    api,
    '/api/admin/reports/list',
    {
      tag: TAG,
      summary: 'Reports by users, newest first; filter by status (default open), page with `before` (an id)',
      permission: ADMIN_PERMISSION,
      auth: true,
      body: z.object({
        status: z.enum(REPORT_STATUSES).optional(),
        before: z.number().int().positive().optional(),
        limit: z.number().int().min(1).max(200).optional()
      }),
      response: z.object({ list: z.array(reportRow) })
    },
    async ({ body }) => {
      const rows = await api.db
        .select({ r: contentReports, reporterPhone: reporter.phone, ownerPhone: owner.phone, down: contentTakedowns.id })
        .from(contentReports)
        .leftJoin(reporter, eq(reporter.id, contentReports.reporterId))
        .leftJoin(owner, eq(owner.id, contentReports.ownerId))
        .leftJoin(
          contentTakedowns,
          and(eq(contentTakedowns.kind, contentReports.kind), eq(contentTakedowns.itemId, contentReports.itemId), isNull(contentTakedowns.restoredAt))
        )
        .where(and(eq(contentReports.status, body.status ?? 'open'), body.before ? lt(contentReports.id, body.before) : undefined))
        .orderBy(desc(contentReports.id))
        .limit(body.limit ?? 50)
      return {
        list: rows.map(({ r, reporterPhone, ownerPhone, down }) => ({
          id: r.id,
          kind: r.kind,
          itemId: r.itemId,
          reason: r.reason,
          excerpt: r.excerpt,
          status: r.status as (typeof REPORT_STATUSES)[number],
          reporterId: r.reporterId,
          reporterPhone: mask(reporterPhone),
          ownerId: r.ownerId,
          ownerPhone: mask(ownerPhone),
          takenDown: down !== null,
          note: r.note,
          handledAt: r.handledAt?.getTime() ?? null,
          createTime: r.createdAt.getTime()
        }))
      }
    }
  )

  defineRoute(
    api,
    '/api/admin/reports/resolve',
    {
      tag: TAG,
      summary: 'Confirms a report (taking the item down unless it is a reply or down already) or dismisses it; settles every open report of the item',
      permission: ADMIN_PERMISSION,
      auth: true,
      body: z.object({
        reportId: z.number().int().positive(),
        decision: z.enum(['confirm', 'dismiss']),
        note: requiredText('处理说明', { max: 200 })
      }),
      response: z.object({ settled: z.number(), takenDown: z.boolean(), ownerId: z.string().nullable() }).meta({ id: 'AdminReportResolved' })
    },
    async ({ body, auth }) => {
      const at = new Date(api.now())
      return api.db.transaction(async (tx) => {
        const [report] = await tx.select().from(contentReports).where(eq(contentReports.id, body.reportId)).for('update')
        if (!report) throw new ApiError(40400001, '举报不存在')
        if (report.status !== 'open') throw new ApiError(40000001, '该举报已处理')
        let takenDown = false
        if (body.decision === 'confirm' && report.kind !== 'reply') {
          const [active] = await tx
            .select({ id: contentTakedowns.id })
            .from(contentTakedowns)
            .where(and(eq(contentTakedowns.kind, report.kind), eq(contentTakedowns.itemId, report.itemId), isNull(contentTakedowns.restoredAt)))
          if (!active) await takeDown(tx, { kind: report.kind, itemId: report.itemId, reason: body.note, by: auth.account.id, at })
          takenDown = true
        }
        const status = body.decision === 'confirm' ? 'confirmed' : 'dismissed'
        const settled = await tx
          .update(contentReports)
          .set({ status, note: body.note, handledBy: auth.account.id, handledAt: at })
          .where(and(eq(contentReports.kind, report.kind), eq(contentReports.itemId, report.itemId), eq(contentReports.status, 'open')))
          .returning({ id: contentReports.id })
        await audit(
          tx,
          auth,
          {
            action: `report.${body.decision}`,
            target: `${report.kind}:${report.itemId}`,
            before: { status: 'open' },
            after: { status, reports: settled.map((s) => s.id), takenDown },
            reason: body.note
          },
          at
        )
        return { settled: settled.length, takenDown, ownerId: report.ownerId }
      })
    }
  )
}
