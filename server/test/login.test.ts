import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { accounts, balanceLog, sessions } from '../src/db/schema.js'
import { sha256Hex } from '../src/auth/tokens.js'
import { balancesOf } from './helpers/allowances.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness({
  env: {
    LOGIN_WITHOUT_CODE_PHONES: '86:13800000000,13900000000,1:2015550123',
    START_TOKENS: '5000',
    START_MJ_COUNT: '7',
    START_SUNO_COUNT: '0',
    DEFAULT_PERMISSIONS: 'AI_TOOLS_CHAT,AI_TOOLS_HOT'
  }
})
const LOGIN = '/api/v1/auth/login'
const PHONE = '13800138000'

const loginBody = (code: unknown, extra: Record<string, unknown> = {}) => ({
  enCode: '86',
  phone: PHONE,
  code,
  platform: 'PC',
  ...extra
})

/** A code that is not the one sent. */
const wrong = (code: string, n = 1) => String((Number(code) + n) % 10000).padStart(4, '0')

describe('login', () => {
  it('logs in with the code and creates the account once, with the starting allowance', async () => {
    await ctx.h.sendCode(PHONE)
    const res = await ctx.h.post<{ accessToken: string; accountId: string; phone: string }>(LOGIN, loginBody(ctx.h.lastCode(PHONE)))
    expect(res.status).toBe(200)
    expect(res.body.code).toBe(2000)
    expect(res.body.message).toBe('登录成功！')
    const { accessToken, accountId, phone } = res.body.data
    expect(accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(phone).toBe(PHONE)

    const [account] = await ctx.db.db.select().from(accounts).where(eq(accounts.id, accountId))
    expect(account).toMatchObject({
      enCode: '86',
      phone: PHONE,
      nickName: '灵犀用户8000',
      avatarUrl: '',
      state: 1,
      permissionCodes: ['AI_TOOLS_CHAT', 'AI_TOOLS_HOT']
    })
    expect(await balancesOf(ctx.db.db, accountId)).toEqual({ tokens: 5000, mjCount: 7, sunoCount: 0 })
    const log = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.accountId, accountId))
    expect(log.map(({ kind, amount, balance, reason }) => ({ kind, amount, balance, reason }))).toEqual([
      { kind: 'tokens', amount: 5000, balance: 5000, reason: '新用户赠送' },
      { kind: 'mj', amount: 7, balance: 7, reason: '新用户赠送' }
    ])
    // Only the hash of the token is stored.
    const [session] = await ctx.db.db.select().from(sessions)
    expect(session?.tokenHash).toBe(sha256Hex(accessToken))
    expect(session?.platform).toBe('PC')
    expect(session!.expiresAt.getTime() - session!.createdAt.getTime()).toBe(365 * 24 * 3600 * 1000)

    // The second login finds the same account and grants nothing again.
    ctx.h.clock.advance(61_000)
    await ctx.h.sendCode(PHONE)
    const again = await ctx.h.post<{ accountId: string; accessToken: string }>(LOGIN, loginBody(ctx.h.lastCode(PHONE), { platform: 'H5' }))
    expect(again.body.data.accountId).toBe(accountId)
    expect(again.body.data.accessToken).not.toBe(accessToken)
    const snap = await ctx.h.snapshot()
    expect(snap).toMatchObject({ accounts: 1, sessions: 2, balanceLog: 2, tokens: 5000 })
  })

  it('refuses a wrong code with 50011001 and creates nothing', async () => {
    await ctx.h.sendCode(PHONE)
    const before = await ctx.h.snapshot()
    const res = await ctx.h.post(LOGIN, loginBody(wrong(ctx.h.lastCode(PHONE)!)))
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 50011001, message: '验证码错误，还可以再试 4 次', data: null })
    expect(await ctx.h.snapshot()).toEqual({ ...before, attempts: 1 })
  })

  it('refuses when no code was ever sent with 50011002', async () => {
    const res = await ctx.h.post(LOGIN, loginBody('1234'))
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 50011002, message: '请先获取验证码', data: null })
    expect(await ctx.h.snapshot()).toMatchObject({ accounts: 0, sessions: 0 })
  })

  it('refuses an expired code (after 5 minutes) with 50011002', async () => {
    await ctx.h.sendCode(PHONE)
    const code = ctx.h.lastCode(PHONE)
    ctx.h.clock.advance(5 * 60_000 - 1)
    const before = await ctx.h.snapshot()
    ctx.h.clock.advance(1)
    const res = await ctx.h.post(LOGIN, loginBody(code))
    expect(res.body).toEqual({ code: 50011002, message: '验证码已过期，请重新获取', data: null })
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('accepts a code just before it expires', async () => {
    await ctx.h.sendCode(PHONE)
    ctx.h.clock.advance(5 * 60_000 - 1)
    expect((await ctx.h.post(LOGIN, loginBody(ctx.h.lastCode(PHONE)))).body.code).toBe(2000)
  })

  it('accepts a code once only', async () => {
    await ctx.h.sendCode(PHONE)
    const code = ctx.h.lastCode(PHONE)
    expect((await ctx.h.post(LOGIN, loginBody(code))).body.code).toBe(2000)
    const before = await ctx.h.snapshot()
    const reused = await ctx.h.post(LOGIN, loginBody(code))
    expect(reused.body).toEqual({ code: 50011002, message: '验证码已失效，请重新获取', data: null })
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('lets only one of concurrent logins with the same code through', async () => {
    await ctx.h.sendCode(PHONE)
    const code = ctx.h.lastCode(PHONE)
    const replies = await Promise.all([1, 2, 3, 4].map(() => ctx.h.post(LOGIN, loginBody(code))))
    expect(replies.filter((r) => r.body.code === 2000)).toHaveLength(1)
    expect(replies.filter((r) => r.body.code === 50011002)).toHaveLength(3)
    expect(await ctx.h.snapshot()).toMatchObject({ accounts: 1, sessions: 1 })
  })

  it('voids the code on the 5th wrong try (50011003) and keeps it void until a new one is sent', async () => {
    await ctx.h.sendCode(PHONE)
    const code = ctx.h.lastCode(PHONE)!
    for (let i = 1; i <= 4; i++) {
      const res = await ctx.h.post(LOGIN, loginBody(wrong(code, i)))
      expect(res.body).toEqual({ code: 50011001, message: `验证码错误，还可以再试 ${5 - i} 次`, data: null })
    }
    const fifth = await ctx.h.post(LOGIN, loginBody(wrong(code, 5)))
    expect(fifth.status).toBe(429)
    expect(fifth.body).toEqual({ code: 50011003, message: '验证码错误次数过多，请重新获取', data: null })
    const before = await ctx.h.snapshot()
    // Even the right code is refused now.
    const right = await ctx.h.post(LOGIN, loginBody(code))
    expect(right.body.code).toBe(50011003)
    expect(await ctx.h.snapshot()).toEqual(before)
    // A new code works.
    ctx.h.clock.advance(60_000)
    await ctx.h.sendCode(PHONE)
    expect((await ctx.h.post(LOGIN, loginBody(ctx.h.lastCode(PHONE)))).body.code).toBe(2000)
  })

  it('stops a brute force: many concurrent guesses spend at most 5 tries of a code', async () => {
    await ctx.h.sendCode(PHONE)
    const code = ctx.h.lastCode(PHONE)!
    const guesses = Array.from({ length: 40 }, (_, i) => wrong(code, i + 1))
    const replies = await Promise.all(guesses.map((g) => ctx.h.post(LOGIN, loginBody(g))))
    expect(replies.filter((r) => r.body.code === 50011001).length).toBeLessThanOrEqual(4)
    expect(replies.some((r) => r.body.code === 50011003)).toBe(true)
    expect((await ctx.h.snapshot()).attempts).toBe(5)
    expect((await ctx.h.post(LOGIN, loginBody(code))).body.code).toBe(50011003)
    expect((await ctx.h.snapshot()).accounts).toBe(0)
    // And the attacker cannot ask for codes faster than the resend window allows.
    expect((await ctx.h.sendCode(PHONE)).body.code).toBe(50011007)
  })

  it('only counts the newest code', async () => {
    await ctx.h.sendCode(PHONE)
    const first = ctx.h.lastCode(PHONE)!
    ctx.h.clock.advance(60_000)
    await ctx.h.sendCode(PHONE)
    const second = ctx.h.lastCode(PHONE)!
    if (first !== second) expect((await ctx.h.post(LOGIN, loginBody(first))).body.code).toBe(50011001)
    expect((await ctx.h.post(LOGIN, loginBody(second))).body.code).toBe(2000)
  })

  it('does not accept a code sent for another phone or another purpose', async () => {
    await ctx.h.sendCode('13800138001')
    const other = ctx.h.lastCode('13800138001')
    expect((await ctx.h.post(LOGIN, loginBody(other))).body.code).toBe(50011002)
  })

  it('validates fields and platform with 40000001, changing nothing', async () => {
    await ctx.h.sendCode(PHONE)
    const code = ctx.h.lastCode(PHONE)
    const before = await ctx.h.snapshot()
    const cases: [Record<string, unknown>, string][] = [
      [loginBody(undefined), '验证码不能为空'],
      [loginBody(''), '验证码不能为空'],
      [loginBody('12a4'), '验证码格式不正确'],
      [loginBody('12345'), '验证码格式不正确'],
      [loginBody(1234), '验证码格式不正确'],
      [loginBody(code, { platform: 'IOS' }), 'platform 只能是 PC 或 H5'],
      [loginBody(code, { platform: undefined }), 'platform 不能为空'],
      [loginBody(code, { phone: undefined }), '手机号不能为空'],
      [loginBody(code, { enCode: undefined }), '国家区号不能为空']
    ]
    for (const [body, message] of cases) {
      const res = await ctx.h.post(LOGIN, body)
      expect(res.body, JSON.stringify(body)).toEqual({ code: 40000001, message, data: null })
    }
    expect((await ctx.h.post(LOGIN, loginBody(code, { phone: '1380013800' }))).body.code).toBe(50011008)
    expect(await ctx.h.snapshot()).toEqual(before)
  })
})

describe('login-without-code', () => {
  const LWC = '/api/v1/auth/login-without-code'

  it('logs allowlisted phones in, defaulting enCode to 86', async () => {
    const res = await ctx.h.post<{ accountId: string; phone: string; accessToken: string }>(LWC, { phone: '13800000000', platform: 'H5' })
    expect(res.body.code).toBe(2000)
    expect(res.body.message).toBe('登录成功！')
    expect(res.body.data.phone).toBe('13800000000')
    const info = await ctx.h.post<{ accountId: string }>('/api/v1/user/info', {}, { token: res.body.data.accessToken })
    expect(info.body.data.accountId).toBe(res.body.data.accountId)
    // Plain numbers in the allowlist mean +86; other countries are written with their code.
    expect((await ctx.h.post(LWC, { phone: '13900000000', platform: 'PC' })).body.code).toBe(2000)
    expect((await ctx.h.post(LWC, { enCode: '1', phone: '2015550123', platform: 'PC' })).body.code).toBe(2000)
  })

  it('refuses other phones with 40300001', async () => {
    const before = await ctx.h.snapshot()
    for (const body of [
      { phone: PHONE, platform: 'PC' },
      { enCode: '1', phone: '2015550124', platform: 'PC' }
    ]) {
      const res = await ctx.h.post(LWC, body)
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ code: 40300001, message: '该手机号不支持免验证码登录', data: null })
    }
    expect((await ctx.h.post(LWC, { phone: '13800000000', platform: 'TV' })).body.code).toBe(40000001)
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('creates one account for concurrent first logins', async () => {
    const replies = await Promise.all(Array.from({ length: 6 }, () => ctx.h.post<{ accountId: string }>(LWC, { phone: '13800000000', platform: 'PC' })))
    expect(replies.every((r) => r.body.code === 2000)).toBe(true)
    expect(new Set(replies.map((r) => r.body.data.accountId)).size).toBe(1)
    expect(await ctx.h.snapshot()).toMatchObject({ accounts: 1, sessions: 6, balanceLog: 2, tokens: 5000 })
  })
})
