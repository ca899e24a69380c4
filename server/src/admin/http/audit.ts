import { and, desc, eq, lt } from 'drizzle-orm'
import { z } from 'zod'
import type { AuthInfo } from '../../auth/sessions.js'
import type { Db, Tx } from '../../db/database.js'
import { adminAudit } from '../../db/schema.js'
import { type Api, defineRoute } from '../../http/api.js'
import { requestContext } from '../../logger.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'

export interface AuditEntry {
  action: string
  target: string
  before?: unknown
  after?: unknown
  reason?: string
}

const phoneOf = (auth: AuthInfo) => `+${auth.account.enCode} ${auth.account.phone}`

/** Writes the audit line of an operator action, in the action's transaction. */
export async function audit(tx: Db | Tx, auth: AuthInfo, entry: AuditEntry, at: Date): Promise<void> {
  await tx.insert(adminAudit).values({
    actorId: auth.account.id,
    actorPhone: phoneOf(auth),
    action: entry.action,
    target: entry.target,
    before: entry.before ?? null,
    after: entry.after ?? null,
    reason: entry.reason ?? null,
    requestId: requestContext.getStore()?.requestId ?? null,
    createdAt: at
  })
}

const auditLine = z
  .object({
    id: z.number(),
    actorId: z.string(),
    actorPhone: z.string(),
    action: z.string(),
    target: z.string(),
    before: z.unknown(),
    after: z.unknown(),
    reason: z.string().nullable(),
    requestId: z.string().nullable(),
    createdAt: z.string()
  })
  .meta({ id: 'AdminAuditLine' })

export function registerAuditRoutes(api: Api): void {
  defineRoute(
    api,
    '/api/admin/audit',
    {
      tag: TAG,
      summary: 'The audit log, newest first (read only); filter by target, page with `before` (an id)',
      permission: ADMIN_PERMISSION,
      body: z.object({
        target: z.string().max(100).optional(),
        before: z.number().int().positive().optional(),
        limit: z.number().int().min(1).max(200).optional()
      }),
      response: z.object({ list: z.array(auditLine) })
    },
    async ({ body }) => {
      const rows = await api.db
        .select()
        .from(adminAudit)
        .where(and(body.target ? eq(adminAudit.target, body.target) : undefined, body.before ? lt(adminAudit.id, body.before) : undefined))
        .orderBy(desc(adminAudit.id))
        .limit(body.limit ?? 50)
      return { list: rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })) }
    }
  )
}
