/**
 * The registry of allowance kinds (what the module list declares) and the ledger (the one way a
 * balance changes): each change in the caller's transaction with its log line, the log chaining
 * with what is held counted, refusals with the kind's own message, and many transactions over
 * several kinds of one account at once — locked in one order, so none waits on another in a circle.
 * PGlite by default; with DATABASE_URL on PostgreSQL, where the transactions really run side by side.
 */
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { defineAllowanceKind } from '../src/allowances/kinds.js'
import { balanceOf, grant, hold, lock, refund, release, settle, spend } from '../src/allowances/ledger.js'
import { createAllowanceRegistry } from '../src/allowances/registry.js'
import { loadConfig } from '../src/config.js'
import { accounts, balanceLog } from '../src/db/schema.js'
import { MODULES } from '../src/modules/index.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness()

const MJ = { id: 'mj', exhausted: '绘画次数不足，请充值后再试' }
const TOKENS = { id: 'tokens', exhausted: '对话额度已用完，请充值后再试' }

async function account(): Promise<string> {
  const id = randomUUID()
  const at = new Date()
  await ctx.db.db
    .insert(accounts)
    .values({ id, enCode: '86', phone: `137${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`, nickName: '账本', createdAt: at, updatedAt: at })
  return id
}

async function log(accountId: string) {
  const rows = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.accountId, accountId)).orderBy(balanceLog.id)
  return rows.map(({ kind, amount, balance, reason }) => ({ kind, amount, balance, reason }))
}

/** Every kind's log chains from 0 (each line = the previous + its amount) to balance + held. */
async function expectChains(accountId: string, kinds: string[]) {
  const lines = await log(accountId)
  for (const kind of kinds) {
    let running = 0
    for (const line of lines.filter((l) => l.kind === kind)) {
      expect(line.balance, `${kind}: ${JSON.stringify(line)}`).toBe(running + line.amount)
      expect(line.balance).toBeGreaterThanOrEqual(0)
      running = line.balance
    }
    const { balance, held } = await balanceOf(ctx.db.db, accountId, kind)
    expect(running, `${kind} log ends at balance + held`).toBe(balance + held)
  }
}

describe('the registry', () => {
  it('is what the module list declares, in list order, with the configured starting amounts', () => {
    const registry = createAllowanceRegistry(MODULES, loadConfig({}).start)
    expect(registry.kinds.map(({ id, field, label, module, start }) => ({ id, field, label, module, start }))).toEqual([
      { id: 'tokens', field: 'tokens', label: '对话额度', module: 'chat', start: 100000 },
      { id: 'mj', field: 'mjCount', label: '绘画次数', module: 'painting', start: 20 },
      { id: 'suno', field: 'sunoCount', label: '音乐次数', module: 'music', start: 10 }
    ])
    expect(registry.get('mj')?.exhausted).toBe('绘画次数不足，请充值后再试')
    expect(registry.fields({ suno: 2, gone: 5 })).toEqual({ tokens: 0, mjCount: 0, sunoCount: 2 })
    expect(registry.kindSchema.safeParse('suno').success).toBe(true)
    expect(registry.kindSchema.safeParse('sunoCount').success).toBe(false)
  })

  it('refuses, at start, a kind declared twice, a charge of an undeclared kind, a reserved field, and a start for no kind', () => {
    const kind = (id: string, field: string) => defineAllowanceKind({ id, field, label: id, exhausted: `${id} 不足` })
    const tool = (name: string, declares: ReturnType<typeof kind>[], charges: string[] | 'all' = []) => ({
      name,
      allowances: declares,
      allowanceKinds: charges
    })
    expect(() => createAllowanceRegistry([tool('a', [kind('x', 'xCount')]), tool('b', [kind('x', 'otherCount')])])).toThrow(
      'modules a and b both declare the allowance x'
    )
    expect(() => createAllowanceRegistry([tool('a', [kind('x', 'xCount')]), tool('b', [kind('y', 'xCount')])])).toThrow('both declare the allowance xCount')
    expect(() => createAllowanceRegistry([tool('a', [kind('x', 'xCount')], ['y'])])).toThrow(
      'module a charges the allowance "y", which no module of the list declares'
    )
    expect(() => createAllowanceRegistry([tool('a', [kind('x', 'phone')])])).toThrow('cannot be the wire field')
    expect(() => createAllowanceRegistry([tool('a', [kind('X y', 'xCount')])])).toThrow('cannot be an allowance kind id')
    expect(() => createAllowanceRegistry([tool('a', [kind('x', 'xCount')])], { x: 1, y: 5 })).toThrow('new accounts start with 5 of "y"')
    expect(createAllowanceRegistry([tool('a', [kind('x', 'xCount')]), tool('b', [], 'all')], { x: 3, y: 0 }).kinds.map((k) => [k.id, k.start])).toEqual([
      ['x', 3]
    ])
  })
})

describe('the ledger', () => {
  it('grants, spends, refunds, holds and settles, each with its line; the log counts what is held', async () => {
    const id = await account()
    const at = new Date()
    const db = ctx.db.db
    expect(await balanceOf(db, id, 'tokens')).toEqual({ balance: 0, held: 0 })
    await db.transaction(async (tx) => {
      expect(await grant(tx, id, 'tokens', 1000, '新用户赠送', at)).toBe(1000)
      expect(await grant(tx, id, 'mj', 2, '新用户赠送', at)).toBe(2)
      expect(await spend(tx, id, MJ, 1, '绘画：文生图', at)).toBe(1)
      expect(await refund(tx, id, 'mj', 1, '绘画退回：文生图失败', at)).toBe(2)
      await hold(tx, id, TOKENS, 300)
      await hold(tx, id, TOKENS, 200)
    })
    expect(await balanceOf(db, id, 'tokens')).toEqual({ balance: 500, held: 500 })
    // A card while two replies hold: the line's balance counts what they hold.
    await db.transaction((tx) => grant(tx, id, 'tokens', 50, '充值卡', at))
    await db.transaction((tx) => settle(tx, id, 'tokens', 300, 120, '对话：A', at))
    await db.transaction((tx) => release(tx, id, 'tokens', 200))
    expect(await balanceOf(db, id, 'tokens')).toEqual({ balance: 930, held: 0 })
    expect(await log(id)).toEqual([
      { kind: 'tokens', amount: 1000, balance: 1000, reason: '新用户赠送' },
      { kind: 'mj', amount: 2, balance: 2, reason: '新用户赠送' },
      { kind: 'mj', amount: -1, balance: 1, reason: '绘画：文生图' },
      { kind: 'mj', amount: 1, balance: 2, reason: '绘画退回：文生图失败' },
      { kind: 'tokens', amount: 50, balance: 1050, reason: '充值卡' },
      { kind: 'tokens', amount: -120, balance: 930, reason: '对话：A' }
    ])
    await expectChains(id, ['tokens', 'mj'])
  })

  it('refuses with the kind’s own message when short, and changes nothing', async () => {
    const id = await account()
    const at = new Date()
    await ctx.db.db.transaction((tx) => grant(tx, id, 'mj', 1, '新用户赠送', at))
    await expect(ctx.db.db.transaction((tx) => spend(tx, id, MJ, 2, '绘画', at))).rejects.toMatchObject({
      code: 40200001,
      message: '绘画次数不足，请充值后再试'
    })
    await expect(ctx.db.db.transaction((tx) => hold(tx, id, TOKENS, 1))).rejects.toMatchObject({ code: 40200001, message: '对话额度已用完，请充值后再试' })
    await expect(ctx.db.db.transaction((tx) => settle(tx, id, 'mj', 1, 2, '多扣', at))).rejects.toThrow('cannot charge 2 of a hold of 1')
    await expect(ctx.db.db.transaction((tx) => grant(tx, id, 'mj', 0, '零', at))).rejects.toThrow('above 0')
    expect(await balanceOf(ctx.db.db, id, 'mj')).toEqual({ balance: 1, held: 0 })
    expect(await log(id)).toHaveLength(1)
  })

  it('many transactions over three kinds of one account, each touching them in its own order: none deadlocks, none is lost, every log chains', {
    timeout: 60_000
  }, async () => {
    const id = await account()
    const at = new Date()
    const kinds = ['tokens', 'mj', 'suno']
    await ctx.db.db.transaction(async (tx) => {
      for (const kind of kinds) await grant(tx, id, kind, 100, '起始', at)
    })
    const orders = [
      ['tokens', 'mj', 'suno'],
      ['suno', 'mj', 'tokens'],
      ['mj', 'tokens', 'suno'],
      ['suno', 'tokens', 'mj']
    ]
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        ctx.db.db.transaction(async (tx) => {
          const order = orders[i % orders.length]!
          await lock(tx, [id], order)
          for (const kind of order) {
            if (i % 2 === 0) await grant(tx, id, kind, 3, `加 ${i}`, at)
            else await spend(tx, id, { id: kind, exhausted: `${kind} 不足` }, 2, `减 ${i}`, at)
          }
        })
      )
    )
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([])
    for (const kind of kinds) expect((await balanceOf(ctx.db.db, id, kind)).balance).toBe(100 + 20 * 3 - 20 * 2)
    await expectChains(id, kinds)
  })
})
