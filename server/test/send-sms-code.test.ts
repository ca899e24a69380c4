import { afterEach, describe, expect, it, vi } from 'vitest'
import { createHarness } from './helpers/harness.js'
import { useHarness } from './helpers/database-hooks.js'
import { sha256Hex } from '../src/auth/tokens.js'
import { smsCodes } from '../src/db/schema.js'
import { createConsoleSmsProvider } from '../src/sms/console-provider.js'

const ctx = useHarness({ env: { SMS_HOURLY_PER_PHONE: '3', SMS_HOURLY_PER_IP: '4', LOGIN_WITHOUT_CODE_PHONES: '86:13800000000' } })
const SEND = '/api/v1/auth/send-sms-code'
const PHONE = '13800138000'

afterEach(() => {
  vi.restoreAllMocks()
})

describe('send-sms-code', () => {
  it('sends a 4-digit code and prints exactly one console line', async () => {
    const res = await ctx.h.sendCode(PHONE)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ code: 2000, message: '短信验证码已发送', data: { withoutCode: 0 } })
    expect(ctx.h.smsLines).toHaveLength(1)
    expect(ctx.h.smsLines[0]).toMatch(/^\[sms\] \+86 13800138000 \d{4}\n$/)
    const snap = await ctx.h.snapshot()
    expect(snap.codes).toBe(1)
    expect(snap.accounts).toBe(0)
  })

  it('writes the console line to stdout by default', async () => {
    const written: string[] = []
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
    await createConsoleSmsProvider().send('86', PHONE, '0421', 'LOGIN')
    vi.restoreAllMocks()
    expect(written).toEqual(['[sms] +86 13800138000 0421\n'])
  })

  it('stores the code hashed, never in clear', async () => {
    await ctx.h.sendCode(PHONE)
    const code = ctx.h.lastCode(PHONE)!
    const [row] = await ctx.db.db.select().from(smsCodes)
    expect(row?.codeHash).toMatch(/^[0-9a-f]{64}$/)
    // Bound to phone and purpose: not the bare hash of four digits, which a table would reverse.
    expect(row?.codeHash).not.toBe(sha256Hex(code))
    expect(Object.values(row ?? {})).not.toContain(code)
  })

  it('normalises phones and accepts each country by its own rules', async () => {
    expect((await ctx.h.sendCode('138-0013-8000')).body.code).toBe(2000)
    expect(ctx.h.lastCode(PHONE)).toMatch(/^\d{4}$/)
    expect((await ctx.h.sendCode('2015550123', '1')).body.code).toBe(2000)
    expect(ctx.h.lastCode('2015550123', '1')).toMatch(/^\d{4}$/)
    expect((await ctx.h.sendCode('07911123456', '44')).body.code).toBe(2000)
    expect(ctx.h.lastCode('7911123456', '44')).toMatch(/^\d{4}$/)
  })

  it('refuses phones that are invalid for their country with 50011008', async () => {
    const before = await ctx.h.snapshot()
    for (const [enCode, phone] of [
      ['86', '1380013800'], // ten digits
      ['86', '138001380001'],
      ['86', '23800138000'],
      ['1', '1234567890'], // no such US area code
      ['1', '5550100'],
      ['86', '+8613800138000'],
      ['86', 'abcdefghijk'],
      ['999', '13800138000'] // no such calling code
    ]) {
      const res = await ctx.h.sendCode(phone!, enCode)
      expect(res.status, `${enCode} ${phone}`).toBe(400)
      expect(res.body).toEqual({ code: 50011008, message: '手机号格式不正确', data: null })
    }
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('names missing and mistyped fields with 40000001', async () => {
    const before = await ctx.h.snapshot()
    const cases: [unknown, string][] = [
      [{ enCode: '86' }, '手机号不能为空'],
      [{ enCode: '86', phone: '' }, '手机号不能为空'],
      [{ enCode: '86', phone: '   ' }, '手机号不能为空'],
      [{ enCode: '86', phone: null }, '手机号不能为空'],
      [{ enCode: '86', phone: 13800138000 }, '手机号格式不正确'],
      [{ phone: PHONE }, '国家区号不能为空'],
      [{ enCode: 86, phone: PHONE }, '国家区号格式不正确'],
      [{ enCode: '+86', phone: PHONE }, '国家区号格式不正确'],
      [{ enCode: '86', phone: PHONE, smsType: 'REGISTER' }, 'smsType 只能是 LOGIN'],
      [{ enCode: '86', phone: PHONE, imgVerifyState: '1' }, 'imgVerifyState 只能是 0 或 1'],
      [{ enCode: '86', phone: PHONE, imgVerifyState: 7 }, 'imgVerifyState 只能是 0 或 1']
    ]
    for (const [body, message] of cases) {
      const res = await ctx.h.post(SEND, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body, JSON.stringify(body)).toEqual({ code: 40000001, message, data: null })
    }
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('allows one send per phone per 60 s and says how long to wait', async () => {
    await ctx.h.sendCode(PHONE)
    ctx.h.clock.advance(15_000)
    const before = await ctx.h.snapshot()
    const res = await ctx.h.sendCode(PHONE)
    expect(res.status).toBe(429)
    expect(res.body).toEqual({ code: 50011007, message: '验证码已发送，请 45 秒后再试', data: null })
    expect(await ctx.h.snapshot()).toEqual(before)
    ctx.h.clock.advance(45_000)
    expect((await ctx.h.sendCode(PHONE)).body.code).toBe(2000)
    expect(ctx.h.smsLines).toHaveLength(2)
  })

  it('lets exactly one of two concurrent sends through', async () => {
    const replies = await Promise.all([ctx.h.sendCode(PHONE), ctx.h.sendCode(PHONE), ctx.h.sendCode(PHONE)])
    expect(replies.map((r) => r.body.code).sort()).toEqual([2000, 50011007, 50011007])
    expect(ctx.h.smsLines).toHaveLength(1)
    expect((await ctx.h.snapshot()).codes).toBe(1)
  })

  it('caps sends per phone per hour (configured 3) with 42900001', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await ctx.h.sendCode(PHONE, '86', `198.51.100.${i}`)).body.code).toBe(2000)
      ctx.h.clock.advance(61_000)
    }
    const before = await ctx.h.snapshot()
    const res = await ctx.h.sendCode(PHONE, '86', '198.51.100.99')
    expect(res.status).toBe(429)
    expect(res.body.code).toBe(42900001)
    expect(res.body.message).toMatch(/^该手机号获取验证码过于频繁，请 5[0-9] 分钟后再试$/)
    expect(await ctx.h.snapshot()).toEqual(before)
    // A refusal does not start a resend window: the answer stays the cap, not 50011007.
    expect((await ctx.h.sendCode(PHONE, '86', '198.51.100.98')).body.code).toBe(42900001)
    ctx.h.clock.advance(60 * 60_000)
    expect((await ctx.h.sendCode(PHONE, '86', '198.51.100.97')).body.code).toBe(2000)
  })

  it('caps sends per client address per hour (configured 4) with 42900001', async () => {
    const phones = ['13800138001', '13800138002', '13800138003', '13800138004', '13800138005']
    for (const phone of phones.slice(0, 4)) expect((await ctx.h.sendCode(phone)).body.code).toBe(2000)
    const before = await ctx.h.snapshot()
    const res = await ctx.h.sendCode(phones[4]!)
    expect(res.status).toBe(429)
    expect(res.body.code).toBe(42900001)
    expect(res.body.message).toMatch(/^获取验证码过于频繁，请 \d+ 分钟后再试$/)
    expect(await ctx.h.snapshot()).toEqual(before)
    // Another address is not affected.
    expect((await ctx.h.sendCode(phones[4]!, '86', '198.51.100.1')).body.code).toBe(2000)
  })

  it('counts the socket address, not X-Forwarded-For, unless TRUST_PROXY is set', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await ctx.h.post(SEND, { enCode: '86', phone: `1380013800${i}` }, { headers: { 'X-Forwarded-For': `192.0.2.${i}` } })
      expect(res.body.code).toBe(2000)
    }
    const res = await ctx.h.post(SEND, { enCode: '86', phone: '13800138009' }, { headers: { 'X-Forwarded-For': '192.0.2.200' } })
    expect(res.body.code).toBe(42900001)
  })

  it('answers withoutCode 1 for allowlisted phones and sends nothing', async () => {
    const res = await ctx.h.sendCode('13800000000')
    expect(res.body).toEqual({ code: 2000, message: '短信验证码已发送', data: { withoutCode: 1 } })
    expect(ctx.h.smsLines).toHaveLength(0)
    expect((await ctx.h.snapshot()).codes).toBe(0)
  })

  it('releases the resend window when the gateway fails', async () => {
    const failing = createHarness(ctx.db, {
      sms: {
        async send() {
          throw new Error('gateway down')
        }
      }
    })
    try {
      const res = await failing.sendCode(PHONE)
      expect(res.status).toBe(502)
      expect(res.body).toEqual({ code: 50200001, message: '短信发送失败，请稍后重试', data: null })
      // The stored code is void, and the user may ask again at once.
      const snap = await failing.snapshot()
      expect(snap.codes).toBe(snap.usedCodes)
      expect((await failing.sendCode(PHONE)).body.code).toBe(50200001)
    } finally {
      await failing.close()
    }
  })
})

describe('send-sms-code behind a proxy', () => {
  const proxied = useHarness({ env: { SMS_HOURLY_PER_IP: '2', TRUST_PROXY: '1' } })

  it('counts the address the trusted proxy saw', async () => {
    const send = (phone: string, xff: string) => proxied.h.post(SEND, { enCode: '86', phone }, { headers: { 'X-Forwarded-For': xff } })
    // The client forges the left entry; the proxy appends the real one on the right.
    expect((await send('13800138001', '1.1.1.1, 192.0.2.10')).body.code).toBe(2000)
    expect((await send('13800138002', '2.2.2.2, 192.0.2.10')).body.code).toBe(2000)
    expect((await send('13800138003', '3.3.3.3, 192.0.2.10')).body.code).toBe(42900001)
    expect((await send('13800138004', '192.0.2.10, 192.0.2.11')).body.code).toBe(2000)
  })
})
