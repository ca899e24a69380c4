import { eq } from 'drizzle-orm'
import type { MiddlewareHandler } from 'hono'
import { announceAccountChanged } from '../../auth/session-cache.js'
import { revokeAccountSessions } from '../../auth/sessions.js'
import { accounts, disabledAccounts } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, type AppEnv, requireAuth } from '../../http/api.js'
import { parsePhoneArgument } from '../commands.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, DISABLED_MESSAGE } from './constants.js'

/** ADMIN_PHONES (`13800138000,+85291234567`): accounts that become operators on their first call. */
export function firstOperators(value: string | undefined): Set<string> {
  const keys = new Set<string>()
  for (const item of (value ?? '').split(',')) {
    const phone = item.trim() ? parsePhoneArgument(item) : undefined
    if (phone) keys.add(`${phone.enCode}:${phone.phone}`)
  }
  return keys
}

/**
 * Before every /api/admin route: an account named by ADMIN_PHONES that does not hold ADMIN yet is
 * given it (once, written to the audit log), so a fresh install gets its first operator without the CLI.
 */
export function bootstrapOperators(api: Api, phones: Set<string>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // Bearer or session cookie; an anonymous caller is refused here as every admin route would.
    if (phones.size > 0) {
      const auth = await requireAuth(api, c)
      const { account } = auth
      if (!account.permissionCodes.includes(ADMIN_PERMISSION) && phones.has(`${account.enCode}:${account.phone}`) && account.state === 1) {
        const after = [...account.permissionCodes, ADMIN_PERMISSION]
        const at = new Date(api.now())
        await api.db.transaction(async (tx) => {
          await tx.update(accounts).set({ permissionCodes: after, updatedAt: at }).where(eq(accounts.id, account.id))
          await audit(tx, auth, { action: 'permission.change', target: account.id, before: account.permissionCodes, after, reason: 'ADMIN_PHONES' }, at)
        })
        c.set('auth', { ...auth, account: { ...account, permissionCodes: after } })
        await announceAccountChanged(api.bus, api.sessions, [account.id])
      }
    }
    await next()
  }
}

/**
 * After the login routes: a session opened for a disabled account is ended at once and the login
 * refused with a clear message. Checked after the code (not before), so the refusal tells nothing to
 * someone who does not hold the phone.
 */
export function refuseDisabledLogin(api: Api): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next()
    if (c.req.method !== 'POST' || c.res.status !== 200 || !c.res.headers.get('content-type')?.includes('json')) return
    const body = (await c.res.clone().json()) as { code?: number; data?: { accessToken?: unknown; accountId?: unknown } | null }
    const accountId = body.code === 2000 && typeof body.data?.accessToken === 'string' ? body.data.accountId : undefined
    if (typeof accountId !== 'string') return
    const [disabled] = await api.db.select({ id: disabledAccounts.accountId }).from(disabledAccounts).where(eq(disabledAccounts.accountId, accountId))
    if (!disabled) return
    await revokeAccountSessions(api.db, accountId, 'admin', api.now())
    throw new ApiError(40300001, DISABLED_MESSAGE)
  }
}
