import { and, desc, eq, gte, lt, type SQL } from 'drizzle-orm'
import { z } from 'zod'
import { accounts, moderationLog } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute, requireAuth, requirePermission } from '../../http/api.js'
import { MODERATION_KINDS } from '../../moderation/types.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'
import { csvResponse } from './csv.js'

/** What the operator narrows the moderation log to (the list's body, the CSV's query string). */
const filters = z.object({
  kind: z.enum(MODERATION_KINDS).optional(),
  verdict: z.enum(['review', 'block']).optional(),
  accountId: z.string().max(64).optional(),
  source: z.string().max(64).optional(),
  /** ISO dates or times: from inclusive, to exclusive. */
  from: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
  to: z.iso.datetime({ offset: true }).or(z.iso.date()).optional()
})
type Filters = z.infer<typeof filters>

const logLine = z
  .object({
    id: z.number(),
    kind: z.string(),
    source: z.string(),
    accountId: z.string().nullable(),
    /** The account's phone, masked (the operator sees the id for anything more). */
    accountPhone: z.string().nullable(),
    excerpt: z.string(),
    contentHash: z.string(),
    verdict: z.string(),
    provider: z.string().nullable(),
    rule: z.string().nullable(),
    failure: z.string().nullable(),
    createdAt: z.string()
  })
  .meta({ id: 'AdminModerationLine' })

/** Rows exported at most per CSV: a larger range is narrowed by date. */
const CSV_MAX_ROWS = 50_000

const mask = (phone: string | null) => (phone ? `${phone.slice(0, 3)}****${phone.slice(-4)}` : null)

function where(f: Filters, before?: number): SQL | undefined {
  return and(
    f.kind ? eq(moderationLog.kind, f.kind) : undefined,
    f.verdict ? eq(moderationLog.verdict, f.verdict) : undefined,
    f.accountId ? eq(moderationLog.accountId, f.accountId) : undefined,
    f.source ? eq(moderationLog.source, f.source) : undefined,
    f.from ? gte(moderationLog.createdAt, new Date(f.from)) : undefined,
    f.to ? lt(moderationLog.createdAt, new Date(f.to)) : undefined,
    before ? lt(moderationLog.id, before) : undefined
  )
}

async function lines(api: Api, condition: SQL | undefined, limit: number) {
  const rows = await api.db
    .select({ row: moderationLog, phone: accounts.phone })
    .from(moderationLog)
    .leftJoin(accounts, eq(accounts.id, moderationLog.accountId))
    .where(condition)
    .orderBy(desc(moderationLog.id))
    .limit(limit)
  return rows.map(({ row, phone }) => ({ ...row, accountPhone: mask(phone), createdAt: row.createdAt.toISOString() }))
}

/**
 * The moderation log in the console (issue 18): what the checks refused or kept for review, newest
 * first, filtered; and its CSV export, which is itself written to the audit log (it carries users'
 * excerpts out of the service).
 */
export function registerModerationRoutes(api: Api): void {
  defineRoute(
    api,
    '/api/admin/moderation/log',
    {
      tag: TAG,
      summary: 'The moderation log, newest first; filter by kind, verdict, account, source and dates, page with `before` (an id)',
      permission: ADMIN_PERMISSION,
      body: filters.extend({ before: z.number().int().positive().optional(), limit: z.number().int().min(1).max(200).optional() }),
      response: z.object({ list: z.array(logLine) })
    },
    async ({ body }) => ({ list: await lines(api, where(body, body.before), body.limit ?? 50) })
  )

  const csvPath = '/api/admin/moderation/log/csv'
  api.docs.push({
    method: 'get',
    path: csvPath,
    tag: TAG,
    summary: `The filtered moderation log as CSV (query: kind, verdict, accountId, source, from, to; at most ${CSV_MAX_ROWS} rows)`,
    auth: true,
    contentType: 'text/csv'
  })
  api.app.get(csvPath, requirePermission(api, ADMIN_PERMISSION), async (c) => {
    const parsed = filters.safeParse(c.req.query())
    if (!parsed.success) throw new ApiError(40000001, `筛选条件不正确：${parsed.error.issues.map((i) => i.path.join('.')).join('、')}`)
    const rows = await lines(api, where(parsed.data), CSV_MAX_ROWS)
    const auth = await requireAuth(api, c)
    await audit(
      api.db,
      auth,
      { action: 'moderation.export', target: 'moderation_log', after: { filters: parsed.data, rows: rows.length } },
      new Date(api.now())
    )
    const header = ['id', 'created_at', 'kind', 'source', 'verdict', 'provider', 'rule', 'failure', 'account_id', 'account_phone', 'content_sha256', 'excerpt']
    return csvResponse(
      c,
      `moderation-log-${new Date(api.now()).toISOString().slice(0, 10)}.csv`,
      header,
      rows.map((r) => [r.id, r.createdAt, r.kind, r.source, r.verdict, r.provider, r.rule, r.failure, r.accountId, r.accountPhone, r.contentHash, r.excerpt])
    )
  })
}
