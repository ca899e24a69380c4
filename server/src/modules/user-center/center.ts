import { count, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { AllowanceRegistry } from '../../allowances/registry.js'
import { accounts, balanceLog, rechargeLog } from '../../db/schema.js'
import { announceAccountChanged } from '../../auth/session-cache.js'
import { ApiError } from '../../errors.js'
import { assertTexts, type Moderator, NO_MODERATION } from '../../moderation/index.js'
import { type Api, defineRoute } from '../../http/api.js'
import { pageFields, paged, readPage, requiredText } from '../../http/fields.js'
import type { Kv } from '../../kv/kv.js'
import { deleteStoredFile, ownFile } from '../../storage/images.js'
import { normaliseCardCode, redeemCard } from './cards.js'
import { toUserInfo, userInfoSchema } from '../../user/routes.js'
import { type PhoneViewSettings, phoneFor } from '../../auth/phone-view.js'

/** Wrong card codes an account may enter per hour before redeeming is paused. */
export const CARD_FAILURES_PER_HOUR = 10
const HOUR = 3_600_000
export const NICKNAME_MAX = 20

const nickName = z
  .string({ error: '昵称格式不正确' })
  .trim()
  .refine((v) => v.length > 0, '昵称不能为空')
  .refine((v) => [...v].length <= NICKNAME_MAX, `昵称不能超过 ${NICKNAME_MAX} 个字符`)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  .refine((v) => !/[\u0000-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/.test(v), '昵称不能包含控制字符')

/** The user center: balance log, recharge log, recharge cards, profile. */
export function registerUserCenter(
  api: Api,
  /** phoneView: who sees the full phone in the answers (auth/phone-view.ts); a partner page gets it masked. */
  deps: { kv: Kv; allowances: AllowanceRegistry; moderator?: Moderator; phoneView?: PhoneViewSettings }
): void {
  const { db, storage } = api
  const { allowances } = deps
  // The allowance fields are the registry's kinds: tokens, mjCount, sunoCount today (API.md).
  const balanceEntry = z.object({
    id: z.string(),
    kind: allowances.kindSchema,
    amount: z.number(),
    balance: z.number(),
    reason: z.string(),
    createTime: z.number()
  })
  const rechargeEntry = z.object({ id: z.string(), cardCode: z.string(), ...allowances.shape, createTime: z.number() })
  const balances = z.object(allowances.shape)
  const userInfo = userInfoSchema(allowances)

  defineRoute(
    api,
    '/api/v1/user/balanceLog',
    { tag: 'user', summary: 'Changes of my allowances, newest first', auth: true, body: z.object(pageFields), response: paged(balanceEntry) },
    async ({ auth, body }) => {
      const where = eq(balanceLog.accountId, auth.account.id)
      return readPage(
        body,
        db.select({ n: count() }).from(balanceLog).where(where),
        (limit, offset) => db.select().from(balanceLog).where(where).orderBy(desc(balanceLog.id)).limit(limit).offset(offset),
        (rows) =>
          rows.map((r) => ({
            id: String(r.id),
            kind: r.kind,
            amount: r.amount,
            balance: r.balance,
            reason: r.reason,
            createTime: r.createdAt.getTime()
          }))
      )
    }
  )

  defineRoute(
    api,
    '/api/v1/user/rechargeLog',
    { tag: 'user', summary: 'My redeemed recharge cards (codes masked), newest first', auth: true, body: z.object(pageFields), response: paged(rechargeEntry) },
    async ({ auth, body }) => {
      const where = eq(rechargeLog.accountId, auth.account.id)
      return readPage(
        body,
        db.select({ n: count() }).from(rechargeLog).where(where),
        (limit, offset) => db.select().from(rechargeLog).where(where).orderBy(desc(rechargeLog.id)).limit(limit).offset(offset),
        (rows) => rows.map((r) => ({ id: String(r.id), cardCode: r.codeMask, ...allowances.fields(r.grants), createTime: r.createdAt.getTime() }))
      )
    }
  )

  defineRoute(
    api,
    '/api/v1/user/rechargeCardCode',
    {
      tag: 'user',
      summary: 'Redeem a recharge card (single use); answers the new balances',
      auth: true,
      body: z.object({ cardCode: requiredText('充值卡号', { max: 64 }) }),
      response: balances,
      message: '充值成功'
    },
    async ({ auth, body }) => {
      const accountId = auth.account.id
      const lockKey = `card-lock:${accountId}`
      const failKey = `card-fail:${accountId}`
      const locked = await deps.kv.ttl(lockKey)
      if (locked > 0) throw new ApiError(42900001, `充值卡号输错次数过多，请 ${Math.ceil(locked / 60_000)} 分钟后再试`)
      const fail = async (error: ApiError) => {
        const n = await deps.kv.incr(failKey, HOUR)
        if (n >= CARD_FAILURES_PER_HOUR) await deps.kv.setIfAbsent(lockKey, Math.max(1, await deps.kv.ttl(failKey)))
        return error
      }
      const plain = normaliseCardCode(body.cardCode)
      if (!plain) throw await fail(new ApiError(40000001, '充值卡号格式不正确，应为 16 位字母和数字'))
      try {
        return await redeemCard(db, allowances, accountId, plain, new Date(api.now()))
      } catch (error) {
        if (error instanceof ApiError && error.code === 40000001) throw await fail(error)
        throw error
      }
    }
  )

  defineRoute(
    api,
    '/api/v1/user/profile/save',
    {
      tag: 'user',
      summary: 'Change my nickname and/or avatar (an image uploaded to Lingxi)',
      auth: true,
      body: z.object({
        nickName: nickName.optional(),
        avatarUrl: z.string({ error: '头像地址格式不正确' }).trim().max(1000, '头像地址过长').optional()
      }),
      response: userInfo
    },
    async ({ c, auth, body }) => {
      const accountId = auth.account.id
      const shown = <T extends { phone: string }>(info: T): T => (deps.phoneView ? { ...info, phone: phoneFor(c, deps.phoneView, info.phone) } : info)
      const changes: { nickName?: string; avatarUrl?: string } = {}
      if (body.nickName !== undefined && body.nickName !== auth.account.nickName) {
        await assertTexts(deps.moderator ?? NO_MODERATION, accountId, [{ kind: 'name', text: body.nickName, source: 'user.nickname', what: '昵称' }])
      }
      if (body.nickName !== undefined) changes.nickName = body.nickName
      let previous: string | undefined
      if (body.avatarUrl !== undefined && body.avatarUrl !== auth.account.avatarUrl) {
        if (body.avatarUrl === '') changes.avatarUrl = ''
        else {
          const file = await ownFile(db, storage, body.avatarUrl, accountId)
          if (!file || file.width === null) throw new ApiError(40000001, '头像必须是上传到灵犀的图片')
          changes.avatarUrl = storage.publicUrl(file.key)
        }
        previous = auth.account.avatarUrl
      }
      if (Object.keys(changes).length === 0) return shown(await toUserInfo(db, allowances, auth.account))
      const [row] = await db
        .update(accounts)
        .set({ ...changes, updatedAt: new Date(api.now()) })
        .where(eq(accounts.id, accountId))
        .returning()
      if (!row) throw new ApiError(40400001, '账号不存在')
      // Every node reads this account's sessions again (the cached copy has the old profile).
      await announceAccountChanged(api.bus, api.sessions, [accountId]).catch(() => {})
      // The replaced avatar goes when it was uploaded as an avatar (not an image-host picture).
      if (previous) {
        const old = await ownFile(db, storage, previous, accountId)
        if (old && old.source === 'avatar' && old.key !== storage.keyOf(row.avatarUrl)) await deleteStoredFile({ db, storage }, old).catch(() => {})
      }
      return shown(await toUserInfo(db, allowances, row))
    }
  )
}
