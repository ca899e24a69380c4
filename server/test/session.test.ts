import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { sessions } from '../src/db/schema.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness()
const INFO = '/api/v1/user/info'
const LOGOUT = '/api/v1/auth/logout'

describe('tokens', () => {
  it('answers 50011004 without a token', async () => {
    for (const headers of [{} as Record<string, string>, { Authorization: '' }, { Authorization: 'Bearer ' }, { Authorization: 'Bearer' }]) {
      const res = await ctx.h.post(INFO, {}, { headers })
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ code: 50011004, message: '请先登录', data: null })
    }
  })

  it('answers 50011005 for an unknown token', async () => {
    await ctx.h.login('13800138000')
    const before = await ctx.h.snapshot()
    for (const token of ['x'.repeat(43), 'not-a-token', "' or 1=1 --"]) {
      const res = await ctx.h.post(INFO, {}, { token })
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ code: 50011005, message: '登录已过期，请重新登录', data: null })
    }
    expect((await ctx.h.post(INFO, {}, { headers: { Authorization: 'Basic abc' } })).body.code).toBe(50011004)
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('expires tokens after 365 days', async () => {
    const { accessToken } = await ctx.h.login('13800138000')
    ctx.h.clock.advance(365 * 24 * 3600 * 1000 - 120_000)
    expect((await ctx.h.post(INFO, {}, { token: accessToken })).body.code).toBe(2000)
    ctx.h.clock.advance(120_000)
    const before = await ctx.h.snapshot()
    const res = await ctx.h.post(INFO, {}, { token: accessToken })
    expect(res.body).toEqual({ code: 50011005, message: '登录已过期，请重新登录', data: null })
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('checks the token before the body', async () => {
    const res = await ctx.h.post('/api/v1/userPermission', '{not json')
    expect(res.body.code).toBe(50011004)
  })
})

describe('logout', () => {
  it('revokes the token; using it again answers 50011006', async () => {
    const { accessToken } = await ctx.h.login('13800138000')
    const res = await ctx.h.post(LOGOUT, {}, { token: accessToken })
    expect(res.body).toEqual({ code: 2000, message: '已退出登录，期待您再次回来', data: null })
    const [session] = await ctx.db.db.select().from(sessions)
    expect(session?.revokeReason).toBe('logout')

    const before = await ctx.h.snapshot()
    for (const path of [INFO, LOGOUT]) {
      const again = await ctx.h.post(path, {}, { token: accessToken })
      expect(again.status).toBe(401)
      expect(again.body).toEqual({ code: 50011006, message: '登录状态已失效，请重新登录', data: null })
    }
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('ends only the session it was called with', async () => {
    const first = await ctx.h.login('13800138000')
    const second = await ctx.h.login('13800138000')
    await ctx.h.post(LOGOUT, {}, { token: first.accessToken })
    expect((await ctx.h.post(INFO, {}, { token: second.accessToken })).body.code).toBe(2000)
  })
})

describe('user/info', () => {
  it('returns the account with numbers for counts', async () => {
    const { accessToken, accountId } = await ctx.h.login('13800138000')
    const res = await ctx.h.post(INFO, {}, { token: accessToken })
    expect(res.body).toEqual({
      code: 2000,
      message: '操作成功',
      data: {
        accountId,
        userId: accountId,
        phone: '13800138000',
        nickName: '灵犀用户8000',
        avatarUrl: '',
        state: 1,
        tokens: 100000,
        mjCount: 20,
        sunoCount: 10,
        permissionCodes: [
          'AI_TOOLS_CHAT',
          'AI_TOOLS_ROLE',
          'AI_TOOLS_PAINTING',
          'AI_TOOLS_SD',
          'AI_TOOLS_MUSIC',
          'AI_TOOLS_HOT',
          'AI_TOOLS_GALLERY',
          'AI_TOOLS_IMAGE'
        ]
      }
    })
  })

  it("never shows one account another account's data", async () => {
    const a = await ctx.h.login('13800138000')
    const b = await ctx.h.login('13900139000')
    expect(a.accountId).not.toBe(b.accountId)
    const infoA = await ctx.h.post<{ accountId: string; phone: string }>(INFO, { accountId: b.accountId, userId: b.accountId }, { token: a.accessToken })
    expect(infoA.body.data).toMatchObject({ accountId: a.accountId, phone: '13800138000' })
    const infoB = await ctx.h.post<{ accountId: string; phone: string }>(INFO, {}, { token: b.accessToken })
    expect(infoB.body.data).toMatchObject({ accountId: b.accountId, phone: '13900139000' })
    // A's logout leaves B logged in.
    await ctx.h.post(LOGOUT, {}, { token: a.accessToken })
    expect((await ctx.h.post(INFO, {}, { token: b.accessToken })).body.code).toBe(2000)
    const rows = await ctx.db.db.select().from(sessions).where(eq(sessions.accountId, b.accountId))
    expect(rows.every((s) => s.revokedAt === null)).toBe(true)
  })
})
