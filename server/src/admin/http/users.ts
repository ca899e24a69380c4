import { and, desc, eq, ilike, or, sql } from 'drizzle-orm'
import { z } from 'zod'
import { grant, lock, spend } from '../../allowances/ledger.js'
import type { AllowanceRegistry } from '../../allowances/registry.js'
import { announceAccountChanged } from '../../auth/session-cache.js'
import { announceRevoked } from '../../auth/session-streams.js'
import { revokeAccountSessions } from '../../auth/sessions.js'
import { type Account, accounts, balanceLog, disabledAccounts, partnerIdentities, rechargeLog, sessions } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { knownPermissionCodes } from '../../permissions/tree.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'
import { adminUser, adminUserDetail, balanceChange } from './wire.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const accountId = z.string({ error: 'accountId 不能为空' }).regex(UUID, { error: 'accountId 格式不正确' })
const reason = z.string({ error: '请填写原因' }).trim().min(1, { error: '请填写原因' }).max(200, { error: '原因最多 200 个字' })

type Partner = { id: string; sub: string } | null

/** A partner's user (auth/partner.ts) has no phone: its partner and the partner's own user id instead. */
const summary = (a: Account, disabled: boolean, partner: Partner = null) => ({
  accountId: a.id,
  phone: partner ? '' : `+${a.enCode} ${a.phone}`,
  partner,
  nickName: a.nickName,
  state: a.state,
  disabled,
  permissionCodes: a.permissionCodes,
  createTime: a.createdAt.toISOString()
})

async function loadAccount(api: Api, id: string): Promise<Account> {
  const [row] = await api.db.select().from(accounts).where(eq(accounts.id, id.toLowerCase()))
  if (!row) throw new ApiError(40400001, '用户不存在')
  return row
}

async function partnerOf(api: Api, id: string): Promise<Partner> {
  const [row] = await api.db
    .select({ id: partnerIdentities.partnerId, sub: partnerIdentities.sub })
    .from(partnerIdentities)
    .where(eq(partnerIdentities.accountId, id))
    .limit(1)
  return row ?? null
}

async function isDisabled(api: Api, id: string): Promise<boolean> {
  const [row] = await api.db.select({ id: disabledAccounts.accountId }).from(disabledAccounts).where(eq(disabledAccounts.accountId, id))
  return Boolean(row)
}

export function registerUserRoutes(api: Api, allowances: AllowanceRegistry): void {
  const route = <S extends z.ZodType>(path: string, summaryText: string, body: S, response: z.ZodType, handler: Parameters<typeof defineRoute<S, true>>[3]) =>
    defineRoute<S, true>(api, `/api/admin/users/${path}`, { tag: TAG, summary: summaryText, permission: ADMIN_PERMISSION, auth: true, body, response }, handler)

  route(
    'search',
    'Accounts by id, phone (part of it), nickname or a partner’s user id (sub), newest first; `partner` keeps the users of one partner',
    z.object({
      query: z.string().trim().max(64, { error: 'query 最多 64 个字符' }).optional(),
      partner: z.string({ error: 'partner 格式不正确' }).trim().min(1, { error: 'partner 不能为空' }).max(64, { error: 'partner 最多 64 个字符' }).optional(),
      limit: z.number().int().min(1).max(100).optional()
    }),
    z.object({ list: z.array(adminUser) }),
    async ({ body }) => {
      const q = body.query ?? ''
      const digits = q.replace(/[\s+-]/g, '')
      const like = `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
      const where = !q
        ? undefined
        : UUID.test(q)
          ? eq(accounts.id, q.toLowerCase())
          : or(
              ilike(accounts.nickName, like),
              eq(partnerIdentities.sub, q),
              /^\d+$/.test(digits) ? sql`(${accounts.enCode} || ${accounts.phone}) like ${`%${digits}%`}` : undefined
            )
      const rows = await api.db
        .select({ account: accounts, disabled: disabledAccounts.accountId, partnerId: partnerIdentities.partnerId, sub: partnerIdentities.sub })
        .from(accounts)
        .leftJoin(disabledAccounts, eq(disabledAccounts.accountId, accounts.id))
        .leftJoin(partnerIdentities, eq(partnerIdentities.accountId, accounts.id))
        .where(and(where, body.partner ? eq(partnerIdentities.partnerId, body.partner) : undefined))
        .orderBy(desc(accounts.createdAt))
        .limit(body.limit ?? 20)
      return { list: rows.map((r) => summary(r.account, r.disabled !== null, r.partnerId && r.sub ? { id: r.partnerId, sub: r.sub } : null)) }
    }
  )

  route('detail', 'One account: allowances, balance and recharge logs, sessions', z.object({ accountId }), adminUserDetail, async ({ body }) => {
    const account = await loadAccount(api, body.accountId)
    const [balances, log, recharges, sessionRows, disabled, partner] = await Promise.all([
      allowances.balances(api.db, account.id),
      api.db.select().from(balanceLog).where(eq(balanceLog.accountId, account.id)).orderBy(desc(balanceLog.id)).limit(100),
      api.db.select().from(rechargeLog).where(eq(rechargeLog.accountId, account.id)).orderBy(desc(rechargeLog.id)).limit(100),
      api.db.select().from(sessions).where(eq(sessions.accountId, account.id)).orderBy(desc(sessions.id)).limit(50),
      api.db.select().from(disabledAccounts).where(eq(disabledAccounts.accountId, account.id)),
      partnerOf(api, account.id)
    ])
    const now = api.now()
    return {
      ...summary(account, disabled.length > 0, partner),
      disabledReason: disabled[0]?.reason ?? null,
      balances,
      balanceLog: log.map((l) => ({ id: l.id, kind: l.kind, amount: l.amount, balance: l.balance, reason: l.reason, createTime: l.createdAt.toISOString() })),
      rechargeLog: recharges.map((r) => ({ id: r.id, cardId: r.cardId, codeMask: r.codeMask, grants: r.grants, createTime: r.createdAt.toISOString() })),
      sessions: sessionRows.map((s) => ({
        id: s.id,
        platform: s.platform,
        createTime: s.createdAt.toISOString(),
        expiresAt: s.expiresAt.toISOString(),
        active: s.revokedAt === null && s.expiresAt.getTime() > now,
        revokeReason: s.revokeReason
      }))
    }
  })

  route(
    'adjust',
    'Adds to or takes from one allowance (never below 0); the reason goes into the balance log',
    z.object({
      accountId,
      kind: allowances.kindSchema,
      amount: z
        .number({ error: 'amount 必须是整数' })
        .int({ error: 'amount 必须是整数' })
        .refine((n) => n !== 0 && Math.abs(n) <= 1_000_000_000, { error: 'amount 不能为 0，绝对值最多 10 亿' }),
      reason
    }),
    balanceChange,
    async ({ body, auth }) => {
      const account = await loadAccount(api, body.accountId)
      const kind = allowances.get(body.kind)!
      const at = new Date(api.now())
      const logReason = `运营调整：${body.reason}`
      return api.db.transaction(async (tx) => {
        // Locked first, so the audit's "before" is the balance the change applies to.
        const [locked] = await lock(tx, [account.id], [kind])
        const before = { balance: locked?.balance ?? 0 }
        let balance: number
        if (body.amount > 0) balance = await grant(tx, account.id, kind, body.amount, logReason, at)
        else
          balance = await spend(
            tx,
            account.id,
            { id: kind.id, exhausted: `${kind.label}不足：当前 ${before.balance}，调整后不能小于 0` },
            -body.amount,
            logReason,
            at
          )
        await audit(
          tx,
          auth,
          { action: 'allowance.adjust', target: account.id, before: { [kind.id]: before.balance }, after: { [kind.id]: balance }, reason: body.reason },
          at
        )
        return { accountId: account.id, kind: kind.id, amount: body.amount, balance }
      })
    }
  )

  route(
    'disable',
    'Disables an account: every session ends at once, its streams close, login is refused',
    z.object({ accountId, reason }),
    adminUser,
    async ({ body, auth }) => {
      const account = await loadAccount(api, body.accountId)
      if (account.id === auth.account.id) throw new ApiError(40000001, '不能停用自己的账号')
      const at = new Date(api.now())
      const { revoked, updated } = await api.db.transaction(async (tx) => {
        const [row] = await tx.select().from(accounts).where(eq(accounts.id, account.id)).for('update')
        if (!row) throw new ApiError(40400001, '用户不存在')
        await tx
          .insert(disabledAccounts)
          .values({ accountId: row.id, reason: body.reason, disabledBy: auth.account.id, disabledAt: at })
          .onConflictDoUpdate({ target: disabledAccounts.accountId, set: { reason: body.reason, disabledBy: auth.account.id, disabledAt: at } })
        const [updated] = await tx.update(accounts).set({ state: 0, updatedAt: at }).where(eq(accounts.id, row.id)).returning()
        const revoked = await revokeAccountSessions(tx, row.id, 'admin', at.getTime())
        await audit(
          tx,
          auth,
          { action: 'account.disable', target: row.id, before: { state: row.state }, after: { state: 0, sessionsEnded: revoked.length }, reason: body.reason },
          at
        )
        return { revoked, updated: updated! }
      })
      await announceRevoked(api.bus, revoked)
      await announceAccountChanged(api.bus, api.sessions, [account.id])
      return summary(updated, true, await partnerOf(api, account.id))
    }
  )

  route(
    'enable',
    'Enables a disabled account again (it logs in anew)',
    z.object({ accountId, reason: reason.optional() }),
    adminUser,
    async ({ body, auth }) => {
      const account = await loadAccount(api, body.accountId)
      const at = new Date(api.now())
      const updated = await api.db.transaction(async (tx) => {
        const [row] = await tx.select().from(accounts).where(eq(accounts.id, account.id)).for('update')
        if (!row) throw new ApiError(40400001, '用户不存在')
        await tx.delete(disabledAccounts).where(eq(disabledAccounts.accountId, row.id))
        const [updated] = await tx.update(accounts).set({ state: 1, updatedAt: at }).where(eq(accounts.id, row.id)).returning()
        await audit(
          tx,
          auth,
          { action: 'account.enable', target: row.id, before: { state: row.state }, after: { state: 1 }, ...(body.reason ? { reason: body.reason } : {}) },
          at
        )
        return updated!
      })
      await announceAccountChanged(api.bus, api.sessions, [account.id])
      return summary(updated, false, await partnerOf(api, account.id))
    }
  )

  route(
    'state',
    'Sets the account state: 0 expired (no tools), 1 valid (what `lingxi-admin state` does; not the same as disabling)',
    z.object({ accountId, state: z.union([z.literal(0), z.literal(1)], { error: 'state 只能是 0（过期：不能使用工具）或 1（有效）' }) }),
    adminUser,
    async ({ body, auth }) => {
      const account = await loadAccount(api, body.accountId)
      const at = new Date(api.now())
      const updated = await api.db.transaction(async (tx) => {
        const [row] = await tx.select().from(accounts).where(eq(accounts.id, account.id)).for('update')
        if (!row) throw new ApiError(40400001, '用户不存在')
        const [updated] = await tx.update(accounts).set({ state: body.state, updatedAt: at }).where(eq(accounts.id, row.id)).returning()
        await audit(tx, auth, { action: 'account.state', target: row.id, before: { state: row.state }, after: { state: body.state } }, at)
        return updated!
      })
      await announceAccountChanged(api.bus, api.sessions, [account.id])
      return summary(updated, await isDisabled(api, account.id), await partnerOf(api, account.id))
    }
  )

  route(
    'permissions',
    'Grants and revokes permission codes (of the permission tree)',
    z.object({ accountId, grant: z.array(z.string()).max(50).optional(), revoke: z.array(z.string()).max(50).optional() }),
    adminUser,
    async ({ body, auth }) => {
      const known = knownPermissionCodes()
      const unknown = [...(body.grant ?? []), ...(body.revoke ?? [])].filter((code) => !known.includes(code))
      if (unknown.length > 0) throw new ApiError(40000001, `未知的权限代码：${unknown.join('、')}`)
      if (!body.grant?.length && !body.revoke?.length) throw new ApiError(40000001, '请至少授予或收回一个权限')
      const account = await loadAccount(api, body.accountId)
      if (account.id === auth.account.id && body.revoke?.includes(ADMIN_PERMISSION)) throw new ApiError(40000001, '不能收回自己的运营权限')
      const at = new Date(api.now())
      const updated = await api.db.transaction(async (tx) => {
        const [row] = await tx.select().from(accounts).where(eq(accounts.id, account.id)).for('update')
        if (!row) throw new ApiError(40400001, '用户不存在')
        const codes = new Set(row.permissionCodes)
        for (const code of body.grant ?? []) codes.add(code)
        for (const code of body.revoke ?? []) codes.delete(code)
        const ordered = known.filter((code) => codes.has(code))
        const [updated] = await tx.update(accounts).set({ permissionCodes: ordered, updatedAt: at }).where(eq(accounts.id, row.id)).returning()
        await audit(tx, auth, { action: 'permission.change', target: row.id, before: row.permissionCodes, after: ordered }, at)
        return updated!
      })
      await announceAccountChanged(api.bus, api.sessions, [account.id])
      return summary(updated, await isDisabled(api, account.id), await partnerOf(api, account.id))
    }
  )
}
