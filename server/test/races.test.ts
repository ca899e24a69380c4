/**
 * Allowance races: many concurrent spends against a small balance through the real routes.
 * Exactly as many succeed as the balance allows, the balance ends at zero (never below), and
 * the balance log chains (each row = previous balance + amount) to the account's balance.
 * Runs on PGlite by default and, with DATABASE_URL, on PostgreSQL (a pool of connections,
 * so the requests really run side by side).
 */
import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { balanceLog, chatMessages, musicTasks, orderActivities, orderSessions, orders, paintingTasks } from '../src/db/schema.js'
import { knownPermissionCodes } from '../src/permissions/tree.js'
import { createCards } from '../src/modules/user-center/cards.js'
import { balancesOf, setBalance as setLedgerBalance } from './helpers/allowances.js'
import { waitUntil } from './helpers/chat.js'
import { createTestDatabase, type TestDatabase } from './helpers/database.js'
import { createHarness, type Harness } from './helpers/harness.js'

const N = 100
const BALANCE = 10

// One database for the file; each test logs in phones of its own.
const ctx = {} as { db: TestDatabase; h: Harness }
beforeAll(async () => {
  ctx.db = await createTestDatabase()
  ctx.h = createHarness(ctx.db, {
    env: {
      DEFAULT_PERMISSIONS: knownPermissionCodes()
        .filter((code) => code !== 'ADMIN')
        .join(','),
      SMS_HOURLY_PER_PHONE: '0',
      SMS_HOURLY_PER_IP: '0',
      PAINTING_DEMO_DELAY_MS: '0',
      MUSIC_DEMO_DELAY_MS: '0',
      MUSIC_POLL_MS: '50'
    }
  })
})
afterAll(async () => {
  await ctx.h?.close()
  await ctx.db?.destroy()
})

let phones = 13900000000
async function user() {
  const { accessToken, accountId } = await ctx.h.login(String(phones++))
  return { token: accessToken, accountId }
}

const balances = (accountId: string) => balancesOf(ctx.db.db, accountId)

/**
 * Sets a balance the way an operator would, through the ledger: to 0, then to the value, each
 * logged (测试调整), so the test's own rows start after a line even when the value was already there.
 */
async function setBalance(accountId: string, field: 'tokens' | 'mjCount' | 'sunoCount', value: number) {
  const kind = field === 'tokens' ? 'tokens' : field === 'mjCount' ? 'mj' : 'suno'
  await setLedgerBalance(ctx.db.db, accountId, kind, 0, new Date(ctx.h.clock.now()))
  await setLedgerBalance(ctx.db.db, accountId, kind, value, new Date(ctx.h.clock.now()))
}

/** Every kind of the account's log chains and ends at its balance; returns the rows. */
async function expectConsistentLog(accountId: string) {
  const now = await balances(accountId)
  const rows = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.accountId, accountId)).orderBy(balanceLog.id)
  for (const [kind, field] of [
    ['tokens', 'tokens'],
    ['mj', 'mjCount'],
    ['suno', 'sunoCount']
  ] as const) {
    const mine = rows.filter((r) => r.kind === kind)
    // The first row starts from the balance the account was given, wherever that came from.
    let balance = 0
    for (const row of mine) {
      expect(row.balance, `${kind} log row ${row.id}`).toBe(balance + row.amount)
      expect(row.balance).toBeGreaterThanOrEqual(0)
      balance = row.balance
    }
    expect(balance, `${kind} log ends at the balance`).toBe(now[field])
  }
  return rows
}

/** The log rows of a kind written after the test set the balance. */
function since<T extends { kind: string; reason: string }>(rows: T[], kind: string): T[] {
  const mine = rows.filter((r) => r.kind === kind)
  let start = -1
  mine.forEach((r, i) => {
    if (r.reason === '测试调整') start = i
  })
  return mine.slice(start + 1)
}

const codes = (results: { body: { code: number } }[]) => {
  const tally: Record<number, number> = {}
  for (const r of results) tally[r.body.code] = (tally[r.body.code] ?? 0) + 1
  return tally
}

describe(`${N} concurrent spends against a balance of ${BALANCE}`, () => {
  it('painting imagine (mjCount): exactly 10 succeed, mjCount 0, ten −1 rows', async () => {
    const { token, accountId } = await user()
    await setBalance(accountId, 'mjCount', BALANCE)
    const results = await Promise.all(Array.from({ length: N }, (_, i) => ctx.h.post<any>('/api/v1/painting/imagine', { prompt: `a cat ${i}` }, { token })))
    expect(codes(results)).toEqual({ 2000: BALANCE, 40200001: N - BALANCE })
    expect((await balances(accountId)).mjCount).toBe(0)
    const tasks = await ctx.db.db.select().from(paintingTasks).where(eq(paintingTasks.accountId, accountId))
    expect(tasks).toHaveLength(BALANCE)
    // The demo painter finishes them; nothing is given back, nothing charged twice.
    await waitUntil(async () => {
      const rows = await ctx.db.db.select({ status: paintingTasks.status }).from(paintingTasks).where(eq(paintingTasks.accountId, accountId))
      return rows.every((r) => ['SUCCESS', 'FAILURE', 'TIMEOUT', 'INTERRPUT'].includes(r.status))
    }, 15_000)
    const rows = since(await expectConsistentLog(accountId), 'mj')
    const spends = rows.filter((r) => r.amount < 0)
    expect(spends).toHaveLength(BALANCE)
    expect(spends.every((r) => r.amount === -1)).toBe(true)
    expect(spends.map((r) => r.balance).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  it('music generate (sunoCount): exactly 10 succeed, sunoCount 0', async () => {
    const { token, accountId } = await user()
    await setBalance(accountId, 'sunoCount', BALANCE)
    const results = await Promise.all(Array.from({ length: N }, (_, i) => ctx.h.post<any>('/api/v1/music/generate', { prompt: `一首歌 ${i}` }, { token })))
    expect(codes(results)).toEqual({ 2000: BALANCE, 40200001: N - BALANCE })
    // The demo composer finishes them (nothing runs on while the file's schema is dropped).
    await waitUntil(async () => {
      const rows = await ctx.db.db.select({ finishedAt: musicTasks.finishedAt }).from(musicTasks).where(eq(musicTasks.accountId, accountId))
      return rows.every((r) => r.finishedAt !== null)
    }, 15_000)
    const left = await balances(accountId)
    // Refunds (every clip failed) would show as + rows and add back; the log says so either way.
    const rows = since(await expectConsistentLog(accountId), 'suno')
    expect(rows.filter((r) => r.amount < 0)).toHaveLength(BALANCE)
    expect(rows.filter((r) => r.amount < 0).every((r) => r.amount === -1)).toBe(true)
    expect(left.sunoCount).toBe(rows.filter((r) => r.amount > 0).reduce((sum, r) => sum + r.amount, 0))
    const tasks = await ctx.db.db.select().from(musicTasks).where(eq(musicTasks.accountId, accountId))
    expect(tasks).toHaveLength(BALANCE)
    expect(tasks.every((t) => t.charged === 1)).toBe(true)
  })

  it('chat send (tokens): each send holds its cost first — the sends the balance cannot cover are refused, the rest are paid in full, and the log adds up', async () => {
    const { token, accountId } = await user()
    const topic = await ctx.h.post<any>('/api/v1/ai-chat/topic/create', {}, { token })
    expect(topic.body.code).toBe(2000)
    // The demo model holds its prompt (~10) + 2048 for the answer: room for about four at once.
    const start = 4 * 2070 + 30
    await setBalance(accountId, 'tokens', start)
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        ctx.h.post<any>('/api/v1/ai-chat/topic/message/send', { topicId: topic.body.data.topicId, content: `你好 ${i}` }, { token })
      )
    )
    const tally = codes(results)
    expect(
      Object.keys(tally).every((code) => ['2000', '40200001'].includes(code)),
      JSON.stringify(tally)
    ).toBe(true)
    // At least the four that fit at once; more only as earlier replies ended and gave back what they did not use.
    expect(tally[2000]).toBeGreaterThanOrEqual(4)
    expect(tally[40200001]).toBeGreaterThan(0)
    await ctx.h.chat.idle()
    const replies = await ctx.db.db
      .select()
      .from(chatMessages)
      .where(and(eq(chatMessages.accountId, accountId), eq(chatMessages.role, 'assistant')))
    expect(replies).toHaveLength(tally[2000]!)
    expect(replies.every((r) => r.status === 'complete' && r.held === 0 && r.charged === r.cost && r.charged! > 0)).toBe(true)
    const charged = replies.reduce((sum, r) => sum + (r.charged ?? 0), 0)
    expect((await balances(accountId)).tokens).toBe(start - charged)
    const rows = since(await expectConsistentLog(accountId), 'tokens')
    expect(rows.reduce((sum, r) => sum + r.amount, 0)).toBe(-charged)
  })
})

describe('card redemption races', () => {
  it(`one card, ${N} concurrent redemptions from 10 accounts: exactly one succeeds`, async () => {
    const people: { token: string; accountId: string }[] = []
    for (let i = 0; i < 10; i++) people.push(await user())
    const before = await Promise.all(people.map((p) => balances(p.accountId)))
    const {
      codes: [code]
    } = await createCards(ctx.db.db, { grants: { tokens: 5000, mj: 2, suno: 1 }, count: 1, expiresAt: null })
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) => ctx.h.post<any>('/api/v1/user/rechargeCardCode', { cardCode: code }, { token: people[i % people.length]!.token }))
    )
    expect(codes(results)[2000]).toBe(1)
    const after = await Promise.all(people.map((p) => balances(p.accountId)))
    const gained = after.map((a, i) => a.tokens - before[i]!.tokens)
    expect(gained.filter((g) => g === 5000)).toHaveLength(1)
    expect(gained.filter((g) => g !== 0 && g !== 5000)).toEqual([])
    for (const p of people) await expectConsistentLog(p.accountId)
  })

  it(`${BALANCE} cards, ${N} concurrent redemptions by one account: exactly ${BALANCE} succeed`, async () => {
    const { token, accountId } = await user()
    const start = await balances(accountId)
    const { codes: cards } = await createCards(ctx.db.db, { grants: { tokens: 100, mj: 1, suno: 0 }, count: BALANCE, expiresAt: null })
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) => ctx.h.post<any>('/api/v1/user/rechargeCardCode', { cardCode: cards[i % BALANCE] }, { token }))
    )
    expect(codes(results)[2000]).toBe(BALANCE)
    const end = await balances(accountId)
    expect(end.tokens - start.tokens).toBe(100 * BALANCE)
    expect(end.mjCount - start.mjCount).toBe(BALANCE)
    await expectConsistentLog(accountId)
  })
})

describe('order take races', () => {
  async function session(places: number, budgetFen: number) {
    const now = ctx.h.clock.now()
    const activityId = randomUUID()
    const sessionId = randomUUID()
    await ctx.db.db.insert(orderActivities).values({
      id: activityId,
      title: '竞争测试活动',
      brief: '并发接单',
      platform: 'xiaohongshu',
      rewardFen: 500,
      budgetFen,
      startTime: new Date(now - 86_400_000),
      endTime: new Date(now + 30 * 86_400_000),
      createdAt: new Date(now)
    })
    await ctx.db.db.insert(orderSessions).values({
      id: sessionId,
      activityId,
      num: 1,
      name: '第 1 场',
      startTime: new Date(now - 86_400_000),
      endTime: new Date(now + 30 * 86_400_000),
      places,
      placesLeft: places,
      createdAt: new Date(now)
    })
    return { activityId, sessionId }
  }

  it(`${N} accounts take a session of ${BALANCE} places at once: exactly ${BALANCE} orders`, async () => {
    const people: { token: string; accountId: string }[] = []
    for (let i = 0; i < N; i++) people.push(await user())
    const { activityId, sessionId } = await session(BALANCE, 1_000_000)
    const results = await Promise.all(people.map((p) => ctx.h.post<any>('/api/v1/orders/take', { activitySessionId: sessionId }, { token: p.token })))
    expect(codes(results)[2000]).toBe(BALANCE)
    const [s] = await ctx.db.db.select().from(orderSessions).where(eq(orderSessions.id, sessionId))
    expect(s!.placesLeft).toBe(0)
    const [a] = await ctx.db.db.select().from(orderActivities).where(eq(orderActivities.id, activityId))
    expect(a!.reservedFen).toBe(500 * BALANCE)
    expect(await ctx.db.db.select().from(orders).where(eq(orders.sessionId, sessionId))).toHaveLength(BALANCE)
  })

  it(`the budget, not the places, runs out first: exactly ${BALANCE} orders within it`, async () => {
    const people: { token: string; accountId: string }[] = []
    for (let i = 0; i < 30; i++) people.push(await user())
    const { activityId, sessionId } = await session(30, 500 * BALANCE)
    const results = await Promise.all(people.map((p) => ctx.h.post<any>('/api/v1/orders/take', { activitySessionId: sessionId }, { token: p.token })))
    expect(codes(results)[2000]).toBe(BALANCE)
    const [a] = await ctx.db.db.select().from(orderActivities).where(eq(orderActivities.id, activityId))
    expect(a!.reservedFen).toBe(500 * BALANCE)
    const [s] = await ctx.db.db.select().from(orderSessions).where(eq(orderSessions.id, sessionId))
    expect(s!.placesLeft).toBe(30 - BALANCE)
  })

  it(`one account, ${N} concurrent takes of one session: exactly one order`, async () => {
    const { token, accountId } = await user()
    const { sessionId } = await session(50, 1_000_000)
    const results = await Promise.all(Array.from({ length: N }, () => ctx.h.post<any>('/api/v1/orders/take', { activitySessionId: sessionId }, { token })))
    expect(codes(results)[2000]).toBe(1)
    expect(results.every((r) => r.status < 500)).toBe(true)
    expect(
      await ctx.db.db
        .select()
        .from(orders)
        .where(and(eq(orders.sessionId, sessionId), eq(orders.accountId, accountId)))
    ).toHaveLength(1)
    const [s] = await ctx.db.db.select().from(orderSessions).where(eq(orderSessions.id, sessionId))
    expect(s!.placesLeft).toBe(49)
  })
})
