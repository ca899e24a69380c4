import { createHash } from 'node:crypto'
import { and, count, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Config } from '../config.js'
import type { Tx } from '../db/database.js'
import { accounts, partnerIdentities } from '../db/schema.js'
import { ADMIN_PERMISSION, TAG as ADMIN_TAG } from '../admin/http/constants.js'
import { ApiError } from '../errors.js'
import { type Api, defineRoute } from '../http/api.js'
import { fields } from '../http/fields.js'
import type { Kv } from '../kv/kv.js'
import { findOrCreateAccount } from './accounts.js'
import { issueSession } from './cookie.js'
import { type PartnerUser, verifyAssertion } from './partner-assertion.js'
import { PARTNER_EN_CODE } from './partner-origin.js'
import { phoneFor } from './phone-view.js'
import { createSession } from './sessions.js'
import { BROWSER_SESSION_TTL_MS } from './tokens.js'
import { loginResponse } from './wire.js'

/** The placeholder phone of a partner's user: one per (partner, sub), so two partners' same sub are two accounts. */
const placeholder = (partnerId: string, sub: string) => `pt${createHash('sha256').update(`${partnerId}\u0000${sub}`).digest('hex').slice(0, 24)}`

/**
 * The account of a partner's user, made on first identify with the partner's permissions and starting
 * allowance. Only the (partner, sub) pair finds it: never a phone the partner vouches for (which
 * Lingxi has not verified), never another partner's user.
 */
async function accountOf(tx: Tx, user: PartnerUser, now: number): Promise<string> {
  const { partner, sub } = user
  const at = new Date(now)
  const [known] = await tx
    .select({ accountId: partnerIdentities.accountId })
    .from(partnerIdentities)
    .where(and(eq(partnerIdentities.partnerId, partner.id), eq(partnerIdentities.sub, sub)))
  if (known) {
    await tx
      .update(partnerIdentities)
      .set({ lastSeenAt: at, ...(user.phone ? { phone: user.phone } : {}) })
      .where(and(eq(partnerIdentities.partnerId, partner.id), eq(partnerIdentities.sub, sub)))
    return known.accountId
  }
  // Concurrent first identifies agree on one account (its unique en_code + phone) and one identity row.
  const accountId = await findOrCreateAccount(
    tx,
    { enCode: PARTNER_EN_CODE, phone: placeholder(partner.id, sub) },
    { start: partner.start, defaultPermissions: partner.permissions },
    now
  )
  if (user.nickname) await tx.update(accounts).set({ nickName: user.nickname, updatedAt: at }).where(eq(accounts.id, accountId))
  await tx
    .insert(partnerIdentities)
    .values({ partnerId: partner.id, sub, accountId, phone: user.phone ?? '', createdAt: at, lastSeenAt: at })
    .onConflictDoNothing()
  return accountId
}

/**
 * `POST /api/v1/auth/partner/identify` (issue 16, item 3; docs/decisions/0020-partner-sso.md): a
 * partner page hands over the assertion its backend signed; the user is logged in without SMS, with
 * the session cookie of every browser login, locked to the partner's origins (auth/partner-origin.ts).
 */
export function registerPartnerIdentify(api: Api, config: Config, kv: Kv): void {
  defineRoute(
    api,
    '/api/v1/auth/partner/identify',
    {
      tag: 'auth',
      summary: 'Log in a partner’s user with the identity assertion (JWT HS256) its backend signed; browser pages of its origins only',
      body: z.object({
        assertion: z.string({ error: '缺少 assertion（合作方签发的身份断言）' }).min(1, '缺少 assertion（合作方签发的身份断言）').max(4096, 'assertion 过长'),
        platform: fields.platform.optional()
      }),
      response: loginResponse,
      message: '登录成功！'
    },
    async ({ c, body }) => {
      const origin = c.req.header('origin')
      if (!origin) throw new ApiError(40000001, '合作方登录只能由浏览器页面发起（请求缺少 Origin）')
      if (config.partners.length === 0) throw new ApiError(40300001, '本站未配置任何合作方，无法使用合作方登录')
      const user = await verifyAssertion(body.assertion, { partners: config.partners, origin, now: api.now(), kv })
      const ttl = BROWSER_SESSION_TTL_MS
      const session = await api.db.transaction(async (tx) => {
        const t = api.now()
        const accountId = await accountOf(tx, user, t)
        const [account] = await tx.select({ enCode: accounts.enCode, phone: accounts.phone }).from(accounts).where(eq(accounts.id, accountId))
        const accessToken = await createSession(tx, accountId, body.platform ?? 'PC', t, ttl, user.partner.id)
        return { accessToken, accountId, phone: !account || account.enCode === PARTNER_EN_CODE ? '' : account.phone }
      })
      return { accessToken: issueSession(c, session.accessToken, ttl), accountId: session.accountId, phone: phoneFor(c, config, session.phone) }
    }
  )
  defineRoute(
    api,
    '/api/admin/partners',
    {
      tag: ADMIN_TAG,
      summary: 'The configured partners (single sign-on) with how many users each has identified; never their secrets',
      permission: ADMIN_PERMISSION,
      body: z.object({}),
      response: z.object({
        list: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            origins: z.array(z.string()),
            permissions: z.array(z.string()),
            start: z.record(z.string(), z.number()),
            trusted: z.boolean(),
            users: z.number()
          })
        )
      })
    },
    async () => {
      const counts = await api.db
        .select({ partnerId: partnerIdentities.partnerId, users: count() })
        .from(partnerIdentities)
        .groupBy(partnerIdentities.partnerId)
      const users = new Map(counts.map((r) => [r.partnerId, Number(r.users)]))
      return {
        list: config.partners.map(({ id, name, origins, permissions, start, trusted }) => ({
          id,
          name,
          origins,
          permissions,
          start,
          trusted,
          users: users.get(id) ?? 0
        }))
      }
    }
  )
}
