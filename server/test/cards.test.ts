import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { runAdmin } from '../src/admin.js'
import { parseCardOptions } from '../src/admin/commands.js'
import { balanceLog, rechargeCards, rechargeLog } from '../src/db/schema.js'
import { generateCardCode, hashCardCode, normaliseCardCode } from '../src/modules/user-center/cards.js'
import { balancesOf } from './helpers/allowances.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness()

beforeEach(async () => {
  // Cards belong to no account, so the harness's reset leaves them.
  await ctx.db.db.delete(rechargeCards)
})

async function admin(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runAdmin(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, open: async () => ctx.db })
  return { code, out, err: err.join('\n') }
}

const redeem = (token: string, cardCode: unknown) => ctx.h.post<any>('/api/v1/user/rechargeCardCode', { cardCode }, { token })

const balances = (accountId: string) => balancesOf(ctx.db.db, accountId)

/** Every kind: the log chains (each balance = previous + amount) and ends at the account's balance. */
async function expectConsistentLog(accountId: string) {
  const now = await balances(accountId)
  const rows = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.accountId, accountId)).orderBy(balanceLog.id)
  for (const [kind, field] of [
    ['tokens', 'tokens'],
    ['mj', 'mjCount'],
    ['suno', 'sunoCount']
  ] as const) {
    let balance = 0
    for (const row of rows.filter((r) => r.kind === kind)) {
      expect(row.balance, `${kind} log row ${row.id}`).toBe(balance + row.amount)
      expect(row.balance).toBeGreaterThanOrEqual(0)
      balance = row.balance
    }
    expect(balance, `${kind} log ends at the balance`).toBe(now[field])
  }
}

describe('card codes', () => {
  it('are 16 base32 characters in groups of four, unguessable and forgiving to type', () => {
    const codes = new Set(Array.from({ length: 2000 }, generateCardCode))
    expect(codes.size).toBe(2000)
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/)
    expect(normaliseCardCode('7k3m qw9d-x2pa-q2xd')).toBe('7K3MQW9DX2PAQ2XD')
    expect(normaliseCardCode('OOOO-IIII-LLLL-0000')).toBe('0000111111110000')
    expect(normaliseCardCode('7K3M-QW9D-X2PA')).toBeNull()
    expect(normaliseCardCode('7K3M-QW9D-X2PA-Q2XU')).toBeNull()
  })

  it('parses the CLI options and refuses nonsense', () => {
    expect(parseCardOptions(['--tokens', '5000', '--mj=2', '--count', '3', '--expires-days', '30'])).toEqual({
      grants: { tokens: 5000, mj: 2, suno: 0 },
      count: 3,
      expiresDays: 30
    })
    for (const bad of [
      [],
      ['--tokens', '-1'],
      ['--tokens', '1.5'],
      ['--tokens'],
      ['--bogus', '1'],
      ['--tokens', '1', '--count', '0'],
      ['--tokens', '1', '--expires-days', '0']
    ]) {
      expect(() => parseCardOptions(bad), bad.join(' ')).toThrow()
    }
  })
})

describe('lingxi-admin cards', () => {
  it('create prints the codes once and stores only hashes; list shows masked codes and status', async () => {
    const res = await admin('cards', 'create', '--tokens', '5000', '--mj', '2', '--suno', '1', '--count', '3', '--expires-days', '30')
    expect(res.code).toBe(0)
    expect(res.out).toHaveLength(3)
    expect(res.err).toContain('Created 3 card(s): 5000 tokens, 2 mj, 1 suno each, valid until')
    const rows = await ctx.db.db.select().from(rechargeCards)
    expect(rows).toHaveLength(3)
    const stored = JSON.stringify(rows)
    for (const code of res.out) {
      const plain = normaliseCardCode(code)!
      expect(stored).not.toContain(plain)
      expect(stored).not.toContain(code)
      expect(rows.some((r) => r.codeHash === hashCardCode(plain))).toBe(true)
    }
    const { accessToken } = await ctx.h.login('13800138000')
    expect((await redeem(accessToken, res.out[0])).body.code).toBe(2000)
    const list = await admin('cards', 'list')
    expect(list.code).toBe(0)
    expect(list.out[0]).toMatch(/^CODE\s+TOKENS\s+MJ\s+SUNO\s+CREATED\s+EXPIRES\s+STATUS$/)
    expect(list.out.slice(1).filter((l) => l.includes('redeemed') && l.includes('+86 13800138000'))).toHaveLength(1)
    expect(list.out.slice(1).filter((l) => /unused$/.test(l))).toHaveLength(2)
    const first = normaliseCardCode(res.out[0]!)!
    expect(list.out.join('\n')).toContain(`${first.slice(0, 4)}-****-****-${first.slice(-4)}`)
    expect((await admin('cards', 'create', '--count', '2')).code).toBe(2)
    expect((await admin('cards', 'frobnicate')).code).toBe(2)
  })
})

describe('user/rechargeCardCode', () => {
  async function card(opts: string[] = ['--tokens', '5000', '--mj', '3', '--suno', '2']) {
    const res = await admin('cards', 'create', ...opts)
    expect(res.code, res.err).toBe(0)
    return res.out[0]!
  }

  it('adds the amounts with balance log and recharge log in one go; the log stays consistent', async () => {
    const { accessToken, accountId } = await ctx.h.login('13800138000')
    const before = await balances(accountId)
    const code = await card()
    const res = await redeem(accessToken, code.toLowerCase().replace(/-/g, ' '))
    expect(res.body).toEqual({
      code: 2000,
      message: '充值成功',
      data: { tokens: before.tokens + 5000, mjCount: before.mjCount + 3, sunoCount: before.sunoCount + 2 }
    })
    expect(await balances(accountId)).toEqual(res.body.data)
    const plain = normaliseCardCode(code)!
    const mask = `${plain.slice(0, 4)}-****-****-${plain.slice(-4)}`
    const log = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.accountId, accountId)).orderBy(balanceLog.id)
    expect(log.slice(-3).map((r) => [r.kind, r.amount, r.reason])).toEqual([
      ['tokens', 5000, `充值卡 ${mask}`],
      ['mj', 3, `充值卡 ${mask}`],
      ['suno', 2, `充值卡 ${mask}`]
    ])
    await expectConsistentLog(accountId)
    const rl = await ctx.h.post<any>('/api/v1/user/rechargeLog', {}, { token: accessToken })
    expect(rl.body.data).toMatchObject({ total: 1, list: [{ cardCode: mask, tokens: 5000, mjCount: 3, sunoCount: 2, createTime: ctx.h.clock.now() }] })
    expect(JSON.stringify(rl.body)).not.toContain(plain.slice(4, 12))
  })

  it('says clearly when a card is unknown, used, expired or malformed, and changes nothing', async () => {
    const a = await ctx.h.login('13800138000')
    const b = await ctx.h.login('13900139000')
    const code = await card()
    expect((await redeem(a.accessToken, code)).body.code).toBe(2000)
    const snapshot = await ctx.h.snapshot()
    expect((await redeem(b.accessToken, code)).body).toMatchObject({ code: 40000001, message: '该充值卡已被使用' })
    expect((await redeem(a.accessToken, code)).body).toMatchObject({ code: 40000001, message: '该充值卡已被使用' })
    expect((await redeem(b.accessToken, generateCardCode())).body).toMatchObject({ code: 40000001, message: '充值卡号不存在，请检查后重新输入' })
    expect((await redeem(b.accessToken, 'abc')).body).toMatchObject({ code: 40000001, message: '充值卡号格式不正确，应为 16 位字母和数字' })
    expect((await redeem(b.accessToken, '')).body).toMatchObject({ code: 40000001, message: '充值卡号不能为空' })
    expect((await redeem(b.accessToken, 12)).body.code).toBe(40000001)
    expect((await redeem(b.accessToken, 'x'.repeat(65))).body.code).toBe(40000001)
    const short = await card(['--tokens', '10', '--expires-days', '1'])
    ctx.h.clock.advance(86_400_001)
    expect((await redeem(b.accessToken, short)).body).toMatchObject({ code: 40000001, message: '该充值卡已过期' })
    expect((await ctx.h.post('/api/v1/user/rechargeCardCode', { cardCode: code })).body.code).toBe(50011004)
    expect(await ctx.h.snapshot()).toEqual(snapshot)
    expect(await ctx.db.db.select().from(rechargeLog)).toHaveLength(1)
  })

  it('pauses an account after 10 wrong codes in an hour (even for a right one), not others', async () => {
    const a = await ctx.h.login('13800138000')
    const b = await ctx.h.login('13900139000')
    const code = await card()
    for (let i = 0; i < 10; i++) expect((await redeem(a.accessToken, generateCardCode())).body.code).toBe(40000001)
    const locked = await redeem(a.accessToken, code)
    expect(locked.status).toBe(429)
    expect(locked.body).toMatchObject({ code: 42900001, message: expect.stringMatching(/^充值卡号输错次数过多，请 \d+ 分钟后再试$/) })
    expect((await redeem(b.accessToken, code)).body.code).toBe(2000)
    ctx.h.clock.advance(3_600_001)
    expect((await redeem(a.accessToken, code)).body.message).toBe('该充值卡已被使用')
  })

  it('two people racing for one card: exactly one wins', async () => {
    const people = await Promise.all(['13800138000', '13900139000', '13700137000', '13600136000'].map((p) => ctx.h.login(p)))
    for (let round = 0; round < 5; round++) {
      const code = await card(['--tokens', '1000'])
      const results = await Promise.all(people.map((p) => redeem(p.accessToken, code)))
      const winners = results.filter((r) => r.body.code === 2000)
      expect(winners, `round ${round}`).toHaveLength(1)
      expect(results.filter((r) => r.body.message === '该充值卡已被使用')).toHaveLength(people.length - 1)
    }
    expect(await ctx.db.db.select().from(rechargeLog)).toHaveLength(5)
    const grants = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.amount, 1000))
    expect(grants).toHaveLength(5)
    for (const p of people) await expectConsistentLog(p.accountId)
  })
})
