import { randomBytes, randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { composeApp } from '../src/app.js'
import { createChat } from '../src/replies/index.js'
import { accounts, redPackets, wechatIdentities } from '../src/db/schema.js'
import { createJobQueue, createMemoryQueue, type JobQueue } from '../src/jobs/index.js'
import type { OrdersInstance, OrdersOptions } from '../src/modules/orders/index.js'
import { approveOrder, createActivity } from '../src/modules/orders/operator.js'
import { createConsoleSmsProvider } from '../src/sms/console-provider.js'
import { payV2Sign, verifyPayV2Sign } from '../src/wechat/sign.js'
import { type FakeWechatOAuth, startFakeWechatOAuth } from './fakes/wechat-oauth.js'
import { type FakeWechatPay, startFakeWechatPay } from './fakes/wechat-pay.js'
import { useHarness } from './helpers/database-hooks.js'
import { memoryLogger, TEST_ADDRESS, testBus, testKv } from './helpers/harness.js'
import { dropRedisKeys } from './helpers/redis.js'

let pay: FakeWechatPay
let oauth: FakeWechatOAuth
beforeAll(async () => {
  pay = await startFakeWechatPay()
  oauth = await startFakeWechatOAuth()
})
afterAll(async () => {
  await pay?.close()
  await oauth?.close()
})

let env: Record<string, string> = {}
const ctx = useHarness(() => ({ env }))
const wxEnv = (p: FakeWechatPay = pay) => ({
  WECHAT_APP_ID: oauth.appId,
  WECHAT_APP_SECRET: oauth.appSecret,
  WECHAT_OPEN_URL: oauth.url,
  WECHAT_API_URL: oauth.url,
  WECHAT_PAY_URL: p.url,
  WECHAT_PAY_MCH_ID: p.mchId,
  WECHAT_PAY_API_KEY: p.apiKey,
  WECHAT_PAY_APP_ID: p.appId,
  PUBLIC_URL: 'http://lingxi.test'
})

async function approvedOrder(phone: string) {
  await ctx.db.db.execute(sql`delete from order_activities`)
  const now = ctx.h.clock.now()
  const a = await createActivity(
    ctx.db.db,
    {
      title: '活动',
      brief: '简介',
      requirements: '',
      platform: 'douyin',
      quality: false,
      rewardFen: 888,
      budgetFen: 100_000,
      startTime: now - 1000,
      endTime: now + 86_400_000,
      sessions: 1,
      places: 5,
      cover: null
    },
    now
  )
  const { accessToken, accountId } = await ctx.h.login(phone)
  await ctx.db.db
    .update(accounts)
    .set({ permissionCodes: ['AI_TOOLS_ORDER_PLATFORM'] })
    .where(eq(accounts.id, accountId))
  const taken = await ctx.h.post<any>('/api/v1/orders/take', { activitySessionId: a.sessionIds[0] }, { token: accessToken })
  const orderId = taken.body.data.orderId
  await ctx.db.db.execute(sql`update orders set status = 'submitted' where id = ${orderId}`)
  await approveOrder(ctx.db.db, orderId)
  return { token: accessToken, accountId, orderId }
}
const send = (token: string, orderId: string) => ctx.h.post<any>('/api/v1/wx-red-pack/v2/send', { orderId }, { token })

const approvedOrderX = approvedOrder
const sendX = send

describe('WeChat Pay v2 signature', () => {
  it('matches the documented MD5 example and verifies HMAC-SHA256', () => {
    // The example of WeChat Pay's signature guide.
    const params = { appid: 'wxd930ea5d5a258f4f', mch_id: '10000100', device_info: '1000', body: 'test', nonce_str: 'ibuaiVcKdpRxkhJA' }
    expect(payV2Sign(params, '192006250b4c09247ec02edce69f6a2d')).toBe('9A0A8659F005D6984697E2CA0A9CF3B7')
    const hmac = { ...params, sign_type: 'HMAC-SHA256' }
    const signed = { ...hmac, sign: payV2Sign(hmac, 'k', 'HMAC-SHA256') }
    expect(verifyPayV2Sign(signed, 'k', 'HMAC-SHA256')).toBe(true)
    expect(verifyPayV2Sign({ ...signed, body: 'tampered' }, 'k', 'HMAC-SHA256')).toBe(false)
  })
})

describe('red packets against the WeChat Pay fake', () => {
  beforeAll(() => {
    env = wxEnv()
  })

  it('needs a bound WeChat; concurrent sends and SYSTEMERROR retries pay exactly once', async () => {
    const u = await approvedOrder('13500000001')
    expect((await send(u.token, u.orderId)).body).toMatchObject({ code: 40000001, message: '请先绑定微信（使用微信登录一次）' })
    await ctx.db.db
      .insert(wechatIdentities)
      .values({ appId: oauth.appId, openid: 'oUser1', accountId: u.accountId, createdAt: new Date(), updatedAt: new Date() })
    const before = pay.packets.size
    pay.failNext('SYSTEMERROR', 1)
    pay.delayMs = 50
    const results = await Promise.all(Array.from({ length: 6 }, () => send(u.token, u.orderId)))
    pay.delayMs = 0
    expect(results.every((r) => r.body.code === 2000)).toBe(true)
    expect(pay.packets.size).toBe(before + 1)
    const [row] = await ctx.db.db.select().from(redPackets)
    const sends = pay.requests.filter((r) => r.path.endsWith('sendredpack') && r.body.mch_billno === row!.mchBillno)
    expect(sends).toHaveLength(2) // the SYSTEMERROR, then the retry with the same mch_billno
    expect(sends.every((r) => r.signOk)).toBe(true)
    expect(row).toMatchObject({ state: 'SENDING', demo: false, amountFen: 888, openid: 'oUser1' })
    expect(row!.mchBillno).toMatch(new RegExp(`^${pay.mchId}\\d{18}$`))
    // Later sends never call WeChat again.
    expect((await send(u.token, u.orderId)).body.data.payState).toBe('SENDING')
    pay.setStatus(row!.mchBillno, 'RECEIVED', Date.now())
    const state = await ctx.h.post<any>('/api/v1/wx-red-pack/v2/check-state', { orderId: u.orderId }, { token: u.token })
    expect(state.body.data).toMatchObject({ payState: 'RECEIVED', mchBillno: row!.mchBillno, amountFen: 888 })
    expect(pay.requests.filter((r) => r.path.endsWith('sendredpack') && r.body.mch_billno === row!.mchBillno)).toHaveLength(2)
  })

  it('a lost answer is resolved by gethbinfo; NOTENOUGH and FREQ_LIMIT keep the same mch_billno', async () => {
    const u = await approvedOrder('13500000002')
    await ctx.db.db
      .insert(wechatIdentities)
      .values({ appId: oauth.appId, openid: 'oUser2', accountId: u.accountId, createdAt: new Date(), updatedAt: new Date() })
    pay.failNext('FREQ_LIMIT', 1)
    const freq = await send(u.token, u.orderId)
    expect(freq.body).toMatchObject({ code: 42900001, message: '红包发放过于频繁，请 1 分钟后再试' })
    expect((await send(u.token, u.orderId)).body.code).toBe(42900001) // backing off: WeChat not called
    ctx.h.clock.advance(61_000)
    const saved = pay.balance
    pay.balance = 0
    const poor = await send(u.token, u.orderId)
    expect(poor.body).toMatchObject({ code: 50200001, message: '商户账户余额不足，红包暂未发出，请稍后再试或联系客服' })
    pay.balance = saved
    ctx.h.clock.advance(11 * 60_000)
    // WeChat creates the packet but the answer is lost three times over: not paid twice.
    pay.failAfterCreateNext(3)
    const lost = await send(u.token, u.orderId)
    expect(lost.body.code).toBe(2000) // the retry with the same mch_billno returns the packet already made
    const [row] = await ctx.db.db.select().from(redPackets).where(eq(redPackets.accountId, u.accountId))
    expect([...pay.packets.values()].filter((p) => p.mchBillno === row!.mchBillno)).toHaveLength(1)
    expect(new Set(pay.requests.filter((r) => r.path.endsWith('sendredpack') && r.body.re_openid === 'oUser2').map((r) => r.body.mch_billno)).size).toBe(1)
  })
})

/**
 * Nodes of one deployment: apps on the test database (and, with REDIS_URL, one BullMQ queue and one
 * Redis bus; else each its own in-process queue and one shared in-memory bus).
 */
const ENGINES = ['memory', ...(process.env.REDIS_URL ? ['bullmq'] : [])] as const

describe.each(ENGINES)('red packets on the job queue (%s)', (engine) => {
  let wx: FakeWechatPay
  beforeAll(async () => {
    // A fake of its own: no scripted failure of the tests above carries over.
    wx = await startFakeWechatPay()
    env = wxEnv(wx)
  })
  afterAll(async () => {
    env = wxEnv()
    await wx?.close()
  })

  const TUNING: OrdersOptions['pay'] = { sendBackoffMs: 50, waitMs: 30_000, waitPollMs: 20, checkFirstMs: 50, checkMaxMs: 200 }

  /** Two (or more) nodes sharing the database, the bus and, with BullMQ, the queue's Redis prefix. */
  async function cluster(count: number, tuning: OrdersOptions['pay'] = TUNING) {
    const prefix = `lingxi_t_${randomBytes(6).toString('hex')}:`
    const bus = testBus()
    const stops: (() => Promise<void>)[] = []
    const nodes = []
    for (let i = 0; i < count; i++) {
      const logger = memoryLogger()
      const jobs: JobQueue = engine === 'bullmq' ? createJobQueue({ redisUrl: process.env.REDIS_URL, prefix, logger }) : createMemoryQueue({ logger })
      expect(jobs.engine).toBe(engine)
      const kv = testKv(ctx.h.clock.now)
      const chat = createChat({ db: ctx.db.db, config: ctx.h.config, bus, logger, now: ctx.h.clock.now })
      const { app, modules } = composeApp({
        db: ctx.db.db,
        config: ctx.h.config,
        sms: createConsoleSmsProvider(() => {}),
        kv,
        logger,
        now: ctx.h.clock.now,
        chat,
        jobs,
        checkResponses: true,
        moduleOptions: { orders: { pay: tuning } }
      })
      stops.push(async () => {
        await jobs.close()
        await chat.close()
        await kv.close()
      })
      const post = async (path: string, body: unknown, token: string) => {
        const res = await app.request(
          path,
          { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify(body) },
          { incoming: { socket: { remoteAddress: TEST_ADDRESS } }, outgoing: {} }
        )
        return { status: res.status, body: (await res.json()) as { code: number; message: string; data: any } }
      }
      const runtime: OrdersInstance['pay'] = modules.orders.pay
      nodes.push({ jobs, logger, post, runtime: () => runtime })
    }
    return {
      nodes,
      bus,
      async close() {
        for (const stop of stops) await stop()
        await bus.close()
        if (engine === 'bullmq') await dropRedisKeys(process.env.REDIS_URL!, prefix)
      }
    }
  }

  /** Events of one account's channel, parsed. */
  async function listen(bus: ReturnType<typeof testBus>, accountId: string) {
    const seen: { event: string; data: any }[] = []
    const sub = await bus.subscribe(accountId, (event, data) => seen.push({ event, data: JSON.parse(data) }))
    return { seen, close: () => sub.close() }
  }

  const sendsOf = (billno: string) => wx.requests.filter((r) => r.path.endsWith('/sendredpack') && r.body.mch_billno === billno)
  const queriesOf = (billno: string) => wx.requests.filter((r) => r.path.endsWith('/gethbinfo') && r.body.mch_billno === billno)
  const packetOf = async (orderId: string) => (await ctx.db.db.select().from(redPackets).where(eq(redPackets.orderId, orderId)))[0]!

  it('two nodes, 20 concurrent 领取 each: one sendredpack; the check job moves SENDING → RECEIVED unasked', async () => {
    const u = await approvedOrder('13500000011')
    await ctx.db.db
      .insert(wechatIdentities)
      .values({ appId: oauth.appId, openid: 'oNodes1', accountId: u.accountId, createdAt: new Date(), updatedAt: new Date() })
    const c = await cluster(2)
    const channel = await listen(c.bus, u.accountId)
    try {
      // Answers slow enough that every request arrives while the first send is under way.
      wx.delayMs = 200
      const replies = await Promise.all(
        c.nodes.flatMap((n) => Array.from({ length: 20 }, () => n.post('/api/v1/wx-red-pack/v2/send', { orderId: u.orderId }, u.token)))
      )
      wx.delayMs = 0
      expect(replies.map((r) => r.body.code)).toEqual(Array(40).fill(2000))
      expect(new Set(replies.map((r) => `${r.body.data.payState}/${r.body.data.paying}`))).toEqual(new Set(['SENDING/false']))
      const row = await packetOf(u.orderId)
      expect(new Set(replies.map((r) => r.body.data.mchBillno))).toEqual(new Set([row.mchBillno]))
      expect(sendsOf(row.mchBillno)).toHaveLength(1)
      expect(row).toMatchObject({ state: 'SENDING', attempts: 1, claimUntil: null })
      expect([...wx.packets.values()].filter((p) => p.openid === 'oNodes1')).toHaveLength(1)

      // Nobody asks again: the check jobs follow the packet until WeChat says it was received.
      wx.setStatus(row.mchBillno, 'RECEIVED', Date.now())
      await vi.waitFor(async () => expect((await packetOf(u.orderId)).state).toBe('RECEIVED'), { timeout: 30_000, interval: 50 })
      const done = await packetOf(u.orderId)
      expect(done.receiveTime).not.toBeNull()
      await Promise.all(c.nodes.map((n) => n.jobs.idle()))
      // Final: the checks stopped, and no request ever asked.
      const asked = queriesOf(row.mchBillno).length
      expect(asked).toBeGreaterThan(0)
      expect(sendsOf(row.mchBillno)).toHaveLength(1)
      // The account channel saw the packet accepted, then received.
      await vi.waitFor(() => expect(channel.seen.map((e) => e.data.payState)).toContain('RECEIVED'), { timeout: 10_000 })
      expect(channel.seen.every((e) => e.event === 'redpack' && e.data.orderId === u.orderId)).toBe(true)
      expect(channel.seen[0]!.data).toMatchObject({ payState: 'SENDING', paying: false, mchBillno: row.mchBillno, amountFen: 888, demo: false })
      expect(channel.seen.at(-1)!.data).toMatchObject({ payState: 'RECEIVED', receiveTime: expect.any(Number) })
      const again = await c.nodes[1]!.post('/api/v1/wx-red-pack/v2/send', { orderId: u.orderId }, u.token)
      expect(again.body.data).toMatchObject({ payState: 'RECEIVED', paying: false })
      expect(queriesOf(row.mchBillno)).toHaveLength(asked)
    } finally {
      wx.delayMs = 0
      await channel.close()
      await c.close()
    }
  }, 90_000)

  it('a slow WeChat: 领取 answers 发放中 (paying), and the outcome follows on the account channel', async () => {
    const u = await approvedOrder('13500000012')
    await ctx.db.db
      .insert(wechatIdentities)
      .values({ appId: oauth.appId, openid: 'oNodes2', accountId: u.accountId, createdAt: new Date(), updatedAt: new Date() })
    const c = await cluster(2, { ...TUNING, waitMs: 100, checkFirstMs: 60_000 })
    const channel = await listen(c.bus, u.accountId)
    try {
      wx.delayMs = 1500
      const first = await c.nodes[0]!.post('/api/v1/wx-red-pack/v2/send', { orderId: u.orderId }, u.token)
      expect(first.body).toMatchObject({ code: 2000, data: { payState: 'none', paying: true, failReason: null } })
      const meanwhile = await c.nodes[1]!.post('/api/v1/wx-red-pack/v2/check-state', { orderId: u.orderId }, u.token)
      expect(meanwhile.body.data).toMatchObject({ payState: 'none', paying: true })
      const second = await c.nodes[1]!.post('/api/v1/wx-red-pack/v2/send', { orderId: u.orderId }, u.token)
      expect(second.body.data).toMatchObject({ payState: 'none', paying: true })
      await vi.waitFor(() => expect(channel.seen.map((e) => e.data.payState)).toContain('SENDING'), { timeout: 30_000, interval: 50 })
      const row = await packetOf(u.orderId)
      expect(row).toMatchObject({ state: 'SENDING', attempts: 1 })
      expect(sendsOf(row.mchBillno)).toHaveLength(1)
      expect(queriesOf(row.mchBillno)).toHaveLength(0) // no gethbinfo while the send was under way
    } finally {
      wx.delayMs = 0
      await channel.close()
      await c.close()
    }
  }, 60_000)

  it('SYSTEMERROR on every try: the queue gives up with the packet payable; the next 领取 pays it once', async () => {
    const u = await approvedOrder('13500000013')
    await ctx.db.db
      .insert(wechatIdentities)
      .values({ appId: oauth.appId, openid: 'oNodes3', accountId: u.accountId, createdAt: new Date(), updatedAt: new Date() })
    const c = await cluster(1, { ...TUNING, sendAttempts: 3, checkFirstMs: 60_000 })
    try {
      wx.failNext('SYSTEMERROR', 3)
      const refused = await c.nodes[0]!.post('/api/v1/wx-red-pack/v2/send', { orderId: u.orderId }, u.token)
      expect(refused.body).toMatchObject({ code: 50200001, message: '微信支付系统繁忙，红包暂未确认发出，请稍后再试（同一订单不会重复发放）' })
      const row = await packetOf(u.orderId)
      expect(row).toMatchObject({ state: 'PENDING', attempts: 3, claimUntil: null, errCode: 'SYSTEMERROR' })
      expect(sendsOf(row.mchBillno)).toHaveLength(3)
      expect(queriesOf(row.mchBillno)).toHaveLength(1) // the last try asked whether WeChat made it after all
      const state = await c.nodes[0]!.post('/api/v1/wx-red-pack/v2/check-state', { orderId: u.orderId }, u.token)
      expect(state.body.data).toMatchObject({
        payState: 'none',
        paying: false,
        failReason: '微信支付系统繁忙，红包暂未确认发出，请稍后再试（同一订单不会重复发放）'
      })
      const paid = await c.nodes[0]!.post('/api/v1/wx-red-pack/v2/send', { orderId: u.orderId }, u.token)
      expect(paid.body.data).toMatchObject({ payState: 'SENDING', mchBillno: row.mchBillno })
      expect(sendsOf(row.mchBillno)).toHaveLength(4)
      expect([...wx.packets.values()].filter((p) => p.mchBillno === row.mchBillno)).toHaveLength(1)
    } finally {
      await c.close()
    }
  }, 60_000)

  it.runIf(engine === 'memory')(
    'a restart (memory engine) resumes the payment that was asked for, then the checks',
    async () => {
      const u = await approvedOrder('13500000014')
      await ctx.db.db
        .insert(wechatIdentities)
        .values({ appId: oauth.appId, openid: 'oNodes4', accountId: u.accountId, createdAt: new Date(), updatedAt: new Date() })
      // A 领取 on the last run claimed the packet for its pay job; the process stopped before sending.
      await ctx.db.db.insert(redPackets).values({
        id: randomUUID(),
        orderId: u.orderId,
        accountId: u.accountId,
        mchBillno: `${wx.mchId}20260101${String(Date.now()).slice(-10)}`,
        amountFen: 888,
        openid: 'oNodes4',
        state: 'PENDING',
        claimUntil: new Date(ctx.h.clock.now() + 30_000),
        createdAt: new Date(),
        updatedAt: new Date()
      })
      const before = wx.requests.length
      const second = await cluster(1, { ...TUNING, checkFirstMs: 60_000 })
      let row: Awaited<ReturnType<typeof packetOf>>
      try {
        expect(wx.requests.length).toBe(before) // starting does not send: resume does
        expect(await second.nodes[0]!.runtime().resume()).toEqual({ payments: 1, checks: 0 })
        await vi.waitFor(async () => expect((await packetOf(u.orderId)).state).toBe('SENDING'), { timeout: 30_000, interval: 50 })
        row = await packetOf(u.orderId)
        expect(sendsOf(row.mchBillno)).toHaveLength(1)
      } finally {
        // Stopped again before its first check.
        await second.close()
      }
      wx.setStatus(row.mchBillno, 'RECEIVED', Date.now())
      const third = await cluster(1)
      try {
        expect(await third.nodes[0]!.runtime().resume()).toEqual({ payments: 0, checks: 1 })
        await vi.waitFor(async () => expect((await packetOf(u.orderId)).state).toBe('RECEIVED'), { timeout: 30_000, interval: 50 })
        expect(sendsOf(row.mchBillno)).toHaveLength(1)
      } finally {
        await third.close()
      }
    },
    60_000
  )
})

describe('red packets with a wrong API key', () => {
  beforeAll(() => {
    env = { ...wxEnv(), WECHAT_PAY_API_KEY: 'wrong-key-0000000000000000000000' }
  })
  afterAll(() => {
    env = wxEnv()
  })
  it('a wrong API key is refused by the fake as SIGN_ERROR and nothing is paid', async () => {
    const u = await approvedOrderX('13500000003')
    await ctx.db.db
      .insert(wechatIdentities)
      .values({ appId: oauth.appId, openid: 'oUser3', accountId: u.accountId, createdAt: new Date(), updatedAt: new Date() })
    const before = pay.packets.size
    const res = await sendX(u.token, u.orderId)
    expect(res.body).toMatchObject({ code: 50200001, message: '商户支付签名配置有误，请联系客服' })
    expect(pay.packets.size).toBe(before)
    expect(pay.requests.at(-1)?.signOk).toBe(false)
  })
})
