import { describe, expect, it } from 'vitest'
import { sessions } from '../src/db/schema.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness({ env: { SMS_HOURLY_PER_PHONE: '3' } })
const SEND = '/api/v1/auth/modify-phone-sms-code'
const MODIFY = '/api/v1/auth/modify-phone'
const INFO = '/api/v1/user/info'
const OLD = '13800138000'
const NEW = '13900139000'

describe('modify phone', () => {
  it('changes the phone, ends every old session and returns a working token', async () => {
    const first = await ctx.h.login(OLD)
    const other = await ctx.h.login(OLD) // the same account on another device
    const sent = await ctx.h.post(SEND, { enCode: '86', phone: NEW }, { token: first.accessToken })
    expect(sent.body).toEqual({ code: 2000, message: '短信验证码已发送', data: { withoutCode: 0 } })
    const code = ctx.h.lastCode(NEW)
    expect(code).toMatch(/^\d{4}$/)

    const res = await ctx.h.post<{ accessToken: string; accountId: string; phone: string }>(
      MODIFY,
      { enCode: '86', phone: NEW, code },
      { token: first.accessToken }
    )
    expect(res.body.code).toBe(2000)
    expect(res.body.message).toBe('修改成功！')
    expect(res.body.data).toMatchObject({ accountId: first.accountId, phone: NEW })

    for (const token of [first.accessToken, other.accessToken]) {
      expect((await ctx.h.post(INFO, {}, { token })).body.code).toBe(50011006)
    }
    const info = await ctx.h.post<{ phone: string; accountId: string }>(INFO, {}, { token: res.body.data.accessToken })
    expect(info.body.data).toMatchObject({ phone: NEW, accountId: first.accountId })
    const rows = await ctx.db.db.select().from(sessions)
    expect(rows.filter((s) => s.revokeReason === 'phone-change')).toHaveLength(2)

    // The old number now starts a new account; the new number logs into this one.
    ctx.h.clock.advance(60_000) // the resend window covers a phone whatever the purpose
    const byNew = await ctx.h.login(NEW)
    expect(byNew.accountId).toBe(first.accountId)
    const byOld = await ctx.h.login(OLD)
    expect(byOld.accountId).not.toBe(first.accountId)
  })

  it('refuses a phone that belongs to another account with 50011009, sending nothing', async () => {
    const me = await ctx.h.login(OLD)
    await ctx.h.login(NEW)
    const before = await ctx.h.snapshot()
    const res = await ctx.h.post(SEND, { enCode: '86', phone: NEW }, { token: me.accessToken })
    expect(res.status).toBe(409)
    expect(res.body).toEqual({ code: 50011009, message: '该手机号已被其他账号使用', data: null })
    const modify = await ctx.h.post(MODIFY, { enCode: '86', phone: NEW, code: '1234' }, { token: me.accessToken })
    expect(modify.body.code).toBe(50011009)
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('refuses the current phone with 40000001', async () => {
    const me = await ctx.h.login(OLD)
    const before = await ctx.h.snapshot()
    const res = await ctx.h.post(SEND, { enCode: '86', phone: '138 0013 8000' }, { token: me.accessToken })
    expect(res.body).toEqual({ code: 40000001, message: '新手机号与当前手机号相同', data: null })
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('needs a login', async () => {
    expect((await ctx.h.post(SEND, { enCode: '86', phone: NEW })).body.code).toBe(50011004)
    expect((await ctx.h.post(MODIFY, { enCode: '86', phone: NEW, code: '1234' })).body.code).toBe(50011004)
  })

  it('refuses wrong, login-purpose and missing codes, changing nothing', async () => {
    const me = await ctx.h.login(OLD)
    // A LOGIN code for the new phone does not change the phone.
    await ctx.h.sendCode(NEW)
    const loginCode = ctx.h.lastCode(NEW)
    let res = await ctx.h.post(MODIFY, { enCode: '86', phone: NEW, code: loginCode }, { token: me.accessToken })
    expect(res.body.code).toBe(50011002)

    ctx.h.clock.advance(60_000)
    await ctx.h.post(SEND, { enCode: '86', phone: NEW }, { token: me.accessToken })
    const code = ctx.h.lastCode(NEW)!
    const before = await ctx.h.snapshot()
    res = await ctx.h.post(MODIFY, { enCode: '86', phone: NEW, code: String((Number(code) + 1) % 10000).padStart(4, '0') }, { token: me.accessToken })
    expect(res.body.code).toBe(50011001)
    expect(await ctx.h.snapshot()).toEqual({ ...before, attempts: before.attempts + 1 })
    for (const [body, message] of [
      [{ enCode: '86', phone: NEW }, '验证码不能为空'],
      [{ enCode: '86', code }, '手机号不能为空']
    ] as const) {
      expect((await ctx.h.post(MODIFY, body, { token: me.accessToken })).body).toEqual({ code: 40000001, message, data: null })
    }
    expect((await ctx.h.post(MODIFY, { enCode: '86', phone: '1390013900', code }, { token: me.accessToken })).body.code).toBe(50011008)
    expect((await ctx.h.post<{ phone: string }>(INFO, {}, { token: me.accessToken })).body.data.phone).toBe(OLD)
  })

  it('applies the resend window and the hourly caps to the new phone', async () => {
    const me = await ctx.h.login(OLD)
    const send = () => ctx.h.post(SEND, { enCode: '86', phone: NEW }, { token: me.accessToken })
    expect((await send()).body.code).toBe(2000)
    expect((await send()).body.code).toBe(50011007)
    for (let i = 0; i < 2; i++) {
      ctx.h.clock.advance(60_000)
      expect((await send()).body.code).toBe(2000)
    }
    ctx.h.clock.advance(60_000)
    expect((await send()).body.code).toBe(42900001)
  })

  it('refuses when the phone was taken between the code and the change', async () => {
    const me = await ctx.h.login(OLD)
    await ctx.h.post(SEND, { enCode: '86', phone: NEW }, { token: me.accessToken })
    const code = ctx.h.lastCode(NEW)
    ctx.h.clock.advance(60_000)
    await ctx.h.login(NEW) // someone else registers the number first
    const before = await ctx.h.snapshot()
    const res = await ctx.h.post(MODIFY, { enCode: '86', phone: NEW, code }, { token: me.accessToken })
    expect(res.body.code).toBe(50011009)
    expect(await ctx.h.snapshot()).toEqual(before)
  })
})
