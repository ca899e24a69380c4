/**
 * user/info's balance cache (allowances/balance-cache.ts): every ledger write, once its transaction
 * has ended, clears the account on this node and, through the event bus, on every other node; a
 * read that raced a commit never leaves the old balance behind; its size and time are bounded.
 * In memory by default; with REDIS_URL the second node has a Redis bus connection of its own.
 */
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { createBalanceCache, watchBalanceWrites } from '../src/allowances/balance-cache.js'
import { accountBalances, grant, spend } from '../src/allowances/ledger.js'
import { composeApp } from '../src/app.js'
import { TOKEN_TTL_MS } from '../src/auth/tokens.js'
import { accounts } from '../src/db/schema.js'
import { type ControlMessage, createMemoryBus, createRedisBus, type EventBus } from '../src/events/index.js'
import { createChat } from '../src/replies/index.js'
import { createConsoleSmsProvider } from '../src/sms/console-provider.js'
import { holdTokens, setBalance } from './helpers/allowances.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness()

type Fetch = (path: string, init?: RequestInit) => Response | Promise<Response>

/** A second API node on the same database and event bus (as in revoke-streams.test.ts). */
function secondNode() {
  const h = ctx.h
  const bus = h.bus.prefix ? createRedisBus({ url: process.env.REDIS_URL!, prefix: h.bus.prefix }) : h.bus
  const chat = createChat({ db: ctx.db.db, config: h.config, bus, logger: h.logger, now: h.clock.now })
  const { app, streams } = composeApp({
    chat,
    db: ctx.db.db,
    config: h.config,
    sms: createConsoleSmsProvider(() => {}),
    kv: h.kv,
    logger: h.logger,
    now: h.clock.now
  })
  return {
    bus,
    request: app.request as Fetch,
    async close() {
      await chat.close()
      streams.closeAll()
      if (bus !== h.bus) await bus.close()
    }
  }
}

interface Info {
  code: number
  data: { tokens: number; mjCount: number; state: number }
}
const info = async (token: string, on: Fetch = ctx.h.app.request as Fetch): Promise<Info> =>
  (await (
    await on('/api/v1/user/info', { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: '{}' })
  ).json()) as Info

const balances = (value: Record<string, number>) => new Map(Object.entries(value))

describe('balance cache, alone', () => {
  it('answers for its few seconds, keeps at most its size (least recently used out), keeps nothing with a time of 0', async () => {
    let t = 0
    let loads = 0
    const load = (tokens: number) => async () => {
      loads++
      return balances({ tokens })
    }
    const cache = createBalanceCache({ now: () => t, ttlMs: 5000, max: 2 })
    expect((await cache.read('a', load(1))).get('tokens')).toBe(1)
    t += 4999
    expect((await cache.read('a', load(2))).get('tokens')).toBe(1)
    t += 1
    expect((await cache.read('a', load(3))).get('tokens')).toBe(3)
    expect(loads).toBe(2)

    await cache.read('b', load(10))
    await cache.read('a', load(99)) // a is now the most recently used
    await cache.read('c', load(20))
    expect(cache.size()).toBe(2)
    expect((await cache.read('a', load(98))).get('tokens')).toBe(3)
    expect((await cache.read('b', load(11))).get('tokens')).toBe(11)

    const none = createBalanceCache({ now: () => 0, ttlMs: 0 })
    await none.read('a', load(1))
    expect((await none.read('a', load(2))).get('tokens')).toBe(2)
    expect(none.size()).toBe(0)
  })

  it('shares one load between the reads of an account that come while it runs; a failed load is not kept', async () => {
    const cache = createBalanceCache({ now: () => 0 })
    let loads = 0
    let open!: (value: Map<string, number>) => void
    const load = () => {
      loads++
      return new Promise<Map<string, number>>((resolve) => (open = resolve))
    }
    const first = cache.read('a', load)
    const second = cache.read('a', load)
    open(balances({ tokens: 5 }))
    expect([(await first).get('tokens'), (await second).get('tokens'), loads]).toEqual([5, 5, 1])

    await expect(cache.read('b', () => Promise.reject(new Error('database gone')))).rejects.toThrow('database gone')
    expect((await cache.read('b', async () => balances({ tokens: 7 }))).get('tokens')).toBe(7)
  })

  it('does not keep what a read begun before a drop found (it may be the balance before the commit)', async () => {
    const cache = createBalanceCache({ now: () => 0 })
    let open!: (value: Map<string, number>) => void
    const racing = cache.read('a', () => new Promise((resolve) => (open = resolve)))
    cache.forget(['a']) // the commit of a change ends while the read is in flight
    open(balances({ tokens: 100 })) // the read saw the balance before the change
    expect((await racing).get('tokens')).toBe(100)
    // The next request does not share the racing read nor find its answer: it reads again.
    expect((await cache.read('a', async () => balances({ tokens: 60 }))).get('tokens')).toBe(60)
    expect((await cache.read('a', async () => balances({ tokens: -1 }))).get('tokens')).toBe(60)
  })

  it('still drops reads begun before a drop when more accounts were dropped since than it remembers', async () => {
    const cache = createBalanceCache({ now: () => 0, max: 2 })
    let open!: (value: Map<string, number>) => void
    const racing = cache.read('a', () => new Promise((resolve) => (open = resolve)))
    cache.forget(['a', 'b', 'c', 'd'])
    open(balances({ tokens: 1 }))
    await racing
    expect((await cache.read('a', async () => balances({ tokens: 2 }))).get('tokens')).toBe(2)
  })

  it('a bus that hangs or fails does not hold up or fail the change that announces', async () => {
    const hanging = { ...createMemoryBus(), control: () => new Promise<void>(() => {}) } as EventBus
    const failing = { ...createMemoryBus(), control: () => Promise.reject(new Error('redis down')) } as EventBus
    for (const bus of [hanging, failing]) {
      const cache = createBalanceCache({ now: () => 0, bus })
      await cache.read('a', async () => balances({ tokens: 1 }))
      const started = Date.now()
      await cache.changed(['a'])
      expect(Date.now() - started).toBeLessThan(3000)
      expect(cache.size()).toBe(0)
    }
  })
})

describe('balance cache and the ledger', () => {
  it('a change committed on this node is seen at once by a cache that hears only the bus (another node)', async () => {
    const { accountId } = await ctx.h.login('13800000001')
    const db = ctx.db.db
    const bus = ctx.h.bus.prefix ? createRedisBus({ url: process.env.REDIS_URL!, prefix: ctx.h.bus.prefix }) : ctx.h.bus
    const heard: ControlMessage[] = []
    bus.onControl((m) => heard.push(m))
    try {
      // Not watching `db`: only the announcement of the node that committed can reach it.
      const other = createBalanceCache({ now: () => 0, bus })
      const read = async () => (await other.read(accountId, () => accountBalances(db, accountId))).get('mj') ?? 0
      await setBalance(db, accountId, 'mj', 3)
      expect(await read()).toBe(3)
      await setBalance(db, accountId, 'mj', 8)
      expect(await read()).toBe(8)
      // Held tokens leave the spendable balance; a savepoint's write is announced with its transaction.
      await setBalance(db, accountId, 'tokens', 1000)
      expect((await other.read(accountId, () => accountBalances(db, accountId))).get('tokens')).toBe(1000)
      await holdTokens(db, accountId, 400)
      expect((await other.read(accountId, () => accountBalances(db, accountId))).get('tokens')).toBe(600)
      await db.transaction((tx) => tx.transaction((inner) => grant(inner, accountId, 'mj', 2, '测试调整', new Date())))
      expect(await read()).toBe(10)
      expect(heard.filter((m) => m.type === 'balances' && m.accountIds.includes(accountId)).length).toBeGreaterThanOrEqual(5)
    } finally {
      if (bus !== ctx.h.bus) await bus.close()
    }
  })

  it('a transaction that rolls back leaves the balance as it was, and the cache with it', async () => {
    const { accountId } = await ctx.h.login('13800000002')
    const db = ctx.db.db
    const cache = createBalanceCache({ now: () => 0 })
    watchBalanceWrites(db, cache)
    await setBalance(db, accountId, 'mj', 5)
    const read = async () => (await cache.read(accountId, () => accountBalances(db, accountId))).get('mj')
    expect(await read()).toBe(5)
    await expect(
      db.transaction(async (tx) => {
        await spend(tx, accountId, { id: 'mj', exhausted: '绘画次数不足' }, 5, '测试调整', new Date())
        // While the transaction is open the cache may be read (and filled) from the committed state.
        expect(await read()).toBe(5)
        throw new Error('the work failed')
      })
    ).rejects.toThrow('the work failed')
    expect(await read()).toBe(5)
  })
})

describe('user/info on two nodes', () => {
  it('shows each committed change at once on both nodes, also while other requests race to refill the cache', async () => {
    const other = secondNode()
    try {
      const { accessToken, accountId } = await ctx.h.login('13800000003')
      const db = ctx.db.db
      const nodes = [ctx.h.app.request as Fetch, other.request]
      const start = (await info(accessToken)).data.mjCount
      for (const on of nodes) expect((await info(accessToken, on)).data.mjCount).toBe(start)
      let writing = true
      // Readers on both nodes keep the cache full of whatever was committed when they read.
      const readers = nodes.map(async (on) => {
        while (writing) {
          await info(accessToken, on)
          // A cached answer never leaves the microtask queue: let the writer's database work run.
          await new Promise((resolve) => setImmediate(resolve))
        }
      })
      try {
        for (let value = start + 1; value <= start + 6; value++) {
          await setBalance(db, accountId, 'mj', value)
          for (const on of nodes) expect((await info(accessToken, on)).data.mjCount).toBe(value)
        }
        // Writes from several requests at once: after all committed, both nodes show the sum.
        await Promise.all(Array.from({ length: 6 }, () => db.transaction((tx) => grant(tx, accountId, 'mj', 1, '测试调整', new Date()))))
        for (const on of nodes) expect((await info(accessToken, on)).data.mjCount).toBe(start + 12)
      } finally {
        writing = false
        await Promise.all(readers)
      }
    } finally {
      await other.close()
    }
  }, 60_000)

  it('an expired account still sees its balances; a revoked or expired session sees nothing, however fresh its cached balances', async () => {
    const other = secondNode()
    try {
      const { accessToken, accountId } = await ctx.h.login('13800000004')
      const db = ctx.db.db
      await setBalance(db, accountId, 'mj', 4)
      for (const on of [ctx.h.app.request as Fetch, other.request]) expect((await info(accessToken, on)).data).toMatchObject({ mjCount: 4, state: 1 })

      await db.update(accounts).set({ state: 0 }).where(eq(accounts.id, accountId))
      await ctx.h.accountChanged(accountId)
      await setBalance(db, accountId, 'mj', 2)
      for (const on of [ctx.h.app.request as Fetch, other.request]) expect((await info(accessToken, on)).data).toMatchObject({ mjCount: 2, state: 0 })

      const second = await ctx.h.login('13800000004')
      expect((await info(second.accessToken, other.request)).data.mjCount).toBe(2)
      expect((await ctx.h.post('/api/v1/auth/logout', {}, { token: second.accessToken })).body.code).toBe(2000)
      for (const on of [ctx.h.app.request as Fetch, other.request]) expect((await info(second.accessToken, on)).code).toBe(50011006)

      ctx.h.clock.advance(TOKEN_TTL_MS + 1000)
      for (const on of [ctx.h.app.request as Fetch, other.request]) expect((await info(accessToken, on)).code).toBe(50011005)
    } finally {
      await other.close()
    }
  })
})
