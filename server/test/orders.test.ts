import { eq, sql } from 'drizzle-orm'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { runAdmin } from '../src/admin.js'
import { accounts, orderActivities, orderSessions, orders, redPackets } from '../src/db/schema.js'
import { createActivity } from '../src/modules/orders/operator.js'
import { saveImage } from '../src/storage/images.js'
import { createStorage } from '../src/storage/index.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness({ env: { SMS_HOURLY_PER_IP: '1000' } })
const O = '/api/v1/orders'
const R = '/api/v1/wx-red-pack/v2'
const ORD = 'AI_TOOLS_ORDER_PLATFORM'
const QUAL = 'AI_TOOLS_ORDER_PLATFORM_QUALITY'

async function user(phone: string, codes: string[] = [ORD]) {
  const { accessToken, accountId } = await ctx.h.login(phone)
  const [row] = await ctx.db.db.select().from(accounts).where(eq(accounts.id, accountId))
  await ctx.db.db
    .update(accounts)
    .set({ permissionCodes: [...(row?.permissionCodes ?? []), ...codes] })
    .where(eq(accounts.id, accountId))
  return { token: accessToken, accountId }
}
const post = <T = any>(path: string, body: unknown, token: string) => ctx.h.post<T>(path, body, { token })

async function activity(over: Partial<Parameters<typeof createActivity>[1]> = {}) {
  const now = ctx.h.clock.now()
  await ctx.db.db.delete(orderActivities).where(sql`false`)
  return createActivity(
    ctx.db.db,
    {
      title: '新品咖啡体验',
      brief: '写一篇咖啡体验笔记',
      requirements: '带话题 #咖啡',
      platform: 'xiaohongshu',
      quality: false,
      rewardFen: 500,
      budgetFen: 100_000,
      startTime: now - 60_000,
      endTime: now + 7 * 86_400_000,
      sessions: 2,
      places: 10,
      cover: null,
      ...over
    },
    now
  )
}

async function screenshot(accountId: string) {
  const bytes = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fbab00' } })
    .png()
    .toBuffer()
  const storage = createStorage(ctx.h.config)
  const row = await saveImage({ db: ctx.db.db, storage }, { accountId, bytes: new Uint8Array(bytes), source: 'upload', name: 's.png' })
  return storage.publicUrl(row.key)
}

async function admin(argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runAdmin(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, open: async () => ctx.db })
  return { code, out, err }
}

async function cleanOrders() {
  await ctx.db.db.execute(sql`delete from order_activities`)
}

describe('order platform', () => {
  it('lists, takes, drafts, submits; the operator approves via the CLI; the demo red packet is paid once', async () => {
    await cleanOrders()
    const a = await activity()
    const u = await user('13800138001')
    const list = await post<any>(`${O}/activity/list`, { quality: false, pageNum: 1, pageSize: 10 }, u.token)
    expect(list.body.code).toBe(2000)
    expect(list.body.data.total).toBe(1)
    expect(list.body.data.list[0]).toMatchObject({ activityId: a.id, platformName: '小红书', status: 'open', quality: false })
    expect(list.body.data.list[0].sessions).toHaveLength(2)
    const sid = a.sessionIds[0]!

    const taken = await post<any>(`${O}/take`, { activitySessionId: sid }, u.token)
    expect(taken.body.code).toBe(2000)
    expect(taken.body.data).toMatchObject({ status: 'taken', rewardFen: 500, payState: 'none' })
    const orderId = taken.body.data.orderId
    const again = await post<any>(`${O}/take`, { activitySessionId: sid }, u.token)
    expect(again.body.code).toBe(40000001)

    const detail = await post<any>(`${O}/activity/detail`, { activityId: a.id, activitySessionId: sid }, u.token)
    expect(detail.body.data.session.placesLeft).toBe(9)
    expect(detail.body.data.myOrder.orderId).toBe(orderId)

    const draft = await post<any>(`${O}/draft`, { orderId }, u.token)
    expect(draft.body.code).toBe(2000)
    expect(draft.body.data.requestId).toBeTruthy()
    expect((await post<any>(`${O}/save`, { orderId, draft: '今天喝到一杯好咖啡' }, u.token)).body.data.draft).toBe('今天喝到一杯好咖啡')

    // Screenshots must be the caller's own uploads.
    const other = await user('13800138002')
    const foreign = await screenshot(other.accountId)
    const bad = await post<any>(`${O}/submit`, { orderId, link: 'https://www.xiaohongshu.com/explore/1', screenshots: [foreign] }, u.token)
    expect(bad.body).toMatchObject({ code: 40000001, message: '第 1 张截图不是您在灵犀上传的图片' })
    expect((await post<any>(`${O}/submit`, { orderId, link: 'javascript:alert(1)', screenshots: [foreign] }, u.token)).body.code).toBe(40000001)
    const shot = await screenshot(u.accountId)
    const sent = await post<any>(`${O}/submit`, { orderId, link: 'https://www.xiaohongshu.com/explore/1', screenshots: [shot] }, u.token)
    expect(sent.body.data).toMatchObject({ status: 'submitted', screenshots: [shot] })

    // Not approved yet: no red packet.
    expect((await post<any>(`${R}/send`, { orderId }, u.token)).body.code).toBe(40000001)

    const pending = await admin(['orders', 'review', 'list'])
    expect(pending.code).toBe(0)
    expect(pending.out.join('\n')).toContain(orderId)
    const rejected = await admin(['orders', 'review', 'reject', orderId, '--reason', '链接打不开'])
    expect(rejected.code).toBe(0)
    expect((await post<any>(`${O}/mine`, {}, u.token)).body.data.list[0]).toMatchObject({ status: 'rejected', rejectReason: '链接打不开' })
    await post(`${O}/submit`, { orderId, link: 'https://www.xiaohongshu.com/explore/2', screenshots: [shot] }, u.token)
    const approved = await admin(['orders', 'review', 'approve', orderId])
    expect(approved.code).toBe(0)
    expect((await admin(['orders', 'review', 'approve', orderId])).code).toBe(1)
    const [act] = await ctx.db.db.select().from(orderActivities).where(eq(orderActivities.id, a.id))
    expect(act).toMatchObject({ spentFen: 500, reservedFen: 500 })

    // Concurrent sends: one packet, one mch_billno.
    const sends = await Promise.all(Array.from({ length: 5 }, () => post<any>(`${R}/send`, { orderId }, u.token)))
    // The pay job answered within the request: accepted, not still being sent.
    for (const s of sends) expect(s.body).toMatchObject({ code: 2000, data: { payState: 'SENDING', paying: false } })
    const billnos = new Set(sends.map((s) => s.body.data.mchBillno))
    expect(billnos.size).toBe(1)
    const [billno] = [...billnos] as string[]
    expect(billno).toMatch(/^1900000000\d{8}\d{10}$/)
    const packets = await ctx.db.db.select().from(redPackets)
    expect(packets).toHaveLength(1)
    expect(packets[0]).toMatchObject({ demo: true, attempts: 1, state: 'SENDING' })

    // Demo: SENDING → SENT → RECEIVED as time passes.
    expect((await post<any>(`${R}/check-state`, { orderId }, u.token)).body.data.payState).toBe('SENDING')
    ctx.h.clock.advance(3500)
    expect((await post<any>(`${R}/check-state`, { orderId }, u.token)).body.data.payState).toBe('SENT')
    ctx.h.clock.advance(3500)
    const done = await post<any>(`${R}/check-state`, { orderId }, u.token)
    expect(done.body.data).toMatchObject({ payState: 'RECEIVED', demo: true, amountFen: 500 })
    expect(done.body.data.receiveTime).toBeGreaterThan(0)
    expect((await post<any>(`${O}/mine`, { quality: false }, u.token)).body.data.list[0].payState).toBe('RECEIVED')

    // Another account cannot see or pay this order.
    expect((await post<any>(`${R}/send`, { orderId }, other.token)).body.code).toBe(40400001)
    expect((await post<any>(`${R}/check-state`, { orderId }, other.token)).body.code).toBe(40400001)
    expect((await post<any>(`${O}/cancel`, { orderId }, other.token)).body.code).toBe(40400001)
  })

  it('50 concurrent takes of 10 places: exactly 10 orders, places never below zero', async () => {
    await cleanOrders()
    const a = await activity({ sessions: 1, places: 10 })
    const users = []
    for (let i = 0; i < 50; i++) users.push(await user(`139${String(10000000 + i)}`))
    const results = await Promise.all(users.map((u) => post<any>(`${O}/take`, { activitySessionId: a.sessionIds[0] }, u.token)))
    const ok = results.filter((r) => r.body.code === 2000)
    expect(ok).toHaveLength(10)
    for (const r of results.filter((r) => r.body.code !== 2000)) expect(r.body).toMatchObject({ code: 40000001, message: '该场次名额已满' })
    const [s] = await ctx.db.db.select().from(orderSessions).where(eq(orderSessions.id, a.sessionIds[0]!))
    expect(s?.placesLeft).toBe(0)
    const [n] = await ctx.db.db.select({ n: sql<number>`count(*)::int` }).from(orders)
    expect(n?.n).toBe(10)
    const [act] = await ctx.db.db.select().from(orderActivities).where(eq(orderActivities.id, a.id))
    expect(act?.reservedFen).toBe(5000)
    // Cancelling gives the place back; the same person may take again.
    const first = ok[0]!.body.data
    const owner = users[results.indexOf(ok[0]!)]!
    expect((await post<any>(`${O}/cancel`, { orderId: first.orderId }, owner.token)).body.data.status).toBe('cancelled')
    expect((await post<any>(`${O}/cancel`, { orderId: first.orderId }, owner.token)).body.code).toBe(40000001)
    const retake = await post<any>(`${O}/take`, { activitySessionId: a.sessionIds[0] }, owner.token)
    expect(retake.body).toMatchObject({ code: 2000, data: { orderId: first.orderId, status: 'taken' } })
  })

  it('the budget caps takes: never more rewards reserved than the budget', async () => {
    await cleanOrders()
    const a = await activity({ sessions: 1, places: 10, rewardFen: 1000, budgetFen: 3000 })
    const users = []
    for (let i = 0; i < 6; i++) users.push(await user(`137${String(10000000 + i)}`))
    const results = await Promise.all(users.map((u) => post<any>(`${O}/take`, { activitySessionId: a.sessionIds[0] }, u.token)))
    expect(results.filter((r) => r.body.code === 2000)).toHaveLength(3)
    expect(results.filter((r) => r.body.message === '该活动的预算已用完，暂时不能接单')).toHaveLength(3)
    const [s] = await ctx.db.db.select().from(orderSessions).where(eq(orderSessions.id, a.sessionIds[0]!))
    expect(s?.placesLeft).toBe(7)
  })

  it('permissions: ordinary and quality platforms are gated separately', async () => {
    await cleanOrders()
    const plain = await activity()
    const quality = await activity({ quality: true, title: '优质测评' })
    const ordinary = await user('13600000001', [ORD])
    const premium = await user('13600000002', [QUAL])
    const none = await user('13600000003', [])
    expect((await post<any>(`${O}/activity/list`, { quality: false }, none.token)).body.code).toBe(40300001)
    expect((await post<any>(`${O}/activity/list`, { quality: true }, ordinary.token)).body).toMatchObject({
      code: 40300001,
      message: '您没有使用「优质接单平台」的权限'
    })
    expect((await post<any>(`${O}/activity/list`, { quality: false }, premium.token)).body).toMatchObject({
      code: 40300001,
      message: '您没有使用「接单平台」的权限'
    })
    const q = await post<any>(`${O}/activity/list`, { quality: true }, premium.token)
    expect(q.body.data.list.map((x: any) => x.activityId)).toEqual([quality.id])
    expect((await post<any>(`${O}/take`, { activitySessionId: quality.sessionIds[0] }, ordinary.token)).body.code).toBe(40300001)
    expect((await post<any>(`${O}/activity/detail`, { activityId: quality.id, activitySessionId: quality.sessionIds[0] }, ordinary.token)).body.code).toBe(
      40300001
    )
    expect((await post<any>(`${O}/take`, { activitySessionId: plain.sessionIds[0] }, premium.token)).body.code).toBe(40300001)
    expect((await post<any>(`${O}/take`, { activitySessionId: quality.sessionIds[0] }, premium.token)).body.code).toBe(2000)
    // A session of another activity is not found under this one.
    expect((await post<any>(`${O}/activity/detail`, { activityId: plain.id, activitySessionId: quality.sessionIds[0] }, ordinary.token)).body.code).toBe(
      40400001
    )
    expect((await ctx.h.post<any>(`${O}/activity/list`, { quality: false })).body.code).toBe(50011004)
  })

  it('the CLI creates activities and refuses bad input', async () => {
    await cleanOrders()
    const made = await admin([
      'orders',
      'activity',
      'create',
      '--title',
      'CLI 活动',
      '--brief',
      '简介',
      '--platform',
      'douyin',
      '--reward-fen',
      '300',
      '--budget-fen',
      '3000',
      '--start',
      'now',
      '--end',
      '+2d',
      '--quality',
      '--sessions',
      '3',
      '--places',
      '5'
    ])
    expect(made.code).toBe(0)
    expect(made.out.filter((l) => l.includes('session'))).toHaveLength(3)
    const rows = await ctx.db.db.select().from(orderSessions)
    expect(rows.map((r) => r.places)).toEqual([5, 5, 5])
    expect(
      (
        await admin([
          'orders',
          'activity',
          'create',
          '--title',
          'x',
          '--brief',
          'y',
          '--platform',
          'tiktok',
          '--reward-fen',
          '300',
          '--budget-fen',
          '3000',
          '--start',
          'now',
          '--end',
          '+1d'
        ])
      ).code
    ).toBe(2)
    expect(
      (
        await admin([
          'orders',
          'activity',
          'create',
          '--title',
          'x',
          '--brief',
          'y',
          '--platform',
          'douyin',
          '--reward-fen',
          '50',
          '--budget-fen',
          '3000',
          '--start',
          'now',
          '--end',
          '+1d'
        ])
      ).code
    ).toBe(2)
    expect((await admin(['orders', 'review', 'reject', 'nope'])).code).toBe(2)
    expect((await admin(['orders', 'activity', 'list'])).out.join('\n')).toContain('CLI 活动')
  })
})
