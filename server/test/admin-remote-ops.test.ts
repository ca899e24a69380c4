import { randomUUID } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAdaptorServer } from '@hono/node-server'
import { eq, sql } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { runAdmin } from '../src/admin.js'
import { accounts, adminAudit, orderActivities, orders, payOrders } from '../src/db/schema.js'
import { useHarness } from './helpers/database-hooks.js'

// Every lingxi-admin command through the operator API while the server holds the embedded database
// (admin/remote.ts, remote-ops.ts): state, cards list, orders and pay; bad input is refused with the
// server's Chinese message or the CLI's usage (exit code 2), and a token without ADMIN changes nothing.

const OPERATOR = '13900000078'
beforeEach(() => vi.stubEnv('ADMIN_PHONES', OPERATOR))
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness({ env: { SMS_HOURLY_PER_IP: '1000' } })
beforeEach(async () => {
  await ctx.db.db.execute(sql`truncate admin_audit, card_batch_cards, card_batches`)
})

/** A data dir whose lock a live process holds (our parent stands in for the running server). */
function busyDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lingxi-remote-'))
  writeFileSync(join(dir, 'lingxi.lock'), JSON.stringify({ pid: process.ppid, host: hostname(), owner: 'server', since: 'earlier' }))
  return dir
}

let url = ''
let server: Server | undefined
beforeEach(async () => {
  server = createAdaptorServer({ fetch: ctx.h.app.fetch }) as Server
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => server?.close(() => resolve()))
})

async function admin(argv: string[], token: string) {
  const out: string[] = []
  const err: string[] = []
  const env = { DATA_DIR: busyDataDir(), LINGXI_ADMIN_TOKEN: token, LINGXI_ADMIN_URL: url }
  const code = await runAdmin(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env })
  return { code, out, err }
}

const operator = async () => (await ctx.h.login(OPERATOR)).accessToken
const actions = async () => (await ctx.db.db.select().from(adminAudit)).map((a) => a.action)

describe('lingxi-admin state and cards list through the server', () => {
  it('sets the state, audited; refuses a bad state and a normal user without changing anything', async () => {
    const token = await operator()
    const user = await ctx.h.login('13800138071')
    const expired = await admin(['state', '13800138071', '0'], token)
    expect(expired).toMatchObject({ code: 0, out: [expect.stringMatching(new RegExp(`^Updated\\. ${user.accountId}  \\+86 13800138071  state 0`))] })
    const [row] = await ctx.db.db.select().from(accounts).where(eq(accounts.id, user.accountId))
    expect(row!.state).toBe(0)
    expect(await actions()).toContain('account.state')

    expect((await admin(['state', user.accountId, '7'], token)).code).toBe(2)
    const other = await ctx.h.login('13800138072')
    const refused = await admin(['state', user.accountId, '1'], other.accessToken)
    expect(refused.code).toBe(1)
    expect(refused.err.join('\n')).toContain('您没有使用「运营后台」的权限')
    const [still] = await ctx.db.db.select().from(accounts).where(eq(accounts.id, user.accountId))
    expect(still!.state).toBe(0)
    // The route itself checks the state too (a script that skips the CLI).
    const bad = await ctx.h.post<any>('/api/admin/users/state', { accountId: user.accountId, state: 2 }, { token })
    expect(bad.body).toMatchObject({ code: 40000001, message: expect.stringContaining('state 只能是 0') })
  })

  it('lists every card with its status, the same columns as the database itself', async () => {
    const token = await operator()
    const made = await admin(['cards', 'create', '--tokens', '700', '--count', '2'], token)
    expect(made.code).toBe(0)
    const listed = await admin(['cards', 'list'], token)
    expect(listed.code).toBe(0)
    expect(listed.out[0]).toMatch(/^CODE\s+TOKENS\s+MJ\s+SUNO.*CREATED\s+EXPIRES\s+STATUS$/)
    const rows = listed.out.filter((l) => /\s700\s/.test(l))
    expect(rows.length).toBeGreaterThanOrEqual(2)
    for (const l of rows) expect(l).toMatch(/unused$/)
    // A code is never printed in full: only masks.
    for (const code of made.out) expect(listed.out.join('\n')).not.toContain(code)
    const user = await ctx.h.login('13800138073')
    expect((await admin(['cards', 'list'], user.accessToken)).code).toBe(1)
  })
})

describe('lingxi-admin orders through the server', () => {
  it('creates and lists activities, reviews submissions, each audited; bad input exits 2 with the reason', async () => {
    const token = await operator()
    const made = await admin(
      [
        'orders',
        'activity',
        'create',
        '--title',
        '远程活动',
        '--brief',
        'b',
        '--platform',
        'douyin',
        '--reward-fen',
        '500',
        '--budget-fen',
        '5000',
        '--start',
        'now',
        '--end',
        '+2d',
        '--sessions',
        '2'
      ],
      token
    )
    expect(made.code).toBe(0)
    expect(made.out[0]).toMatch(/^Created activity [0-9a-f-]{36} \(接单平台\): 远程活动$/)
    expect(made.out.filter((l) => l.startsWith('  session '))).toHaveLength(2)
    const activityId = made.out[0]!.split(' ')[2]!
    const listed = await admin(['orders', 'activity', 'list'], token)
    expect(listed.out.join('\n')).toContain(`${activityId}  远程活动  douyin  reward 5.00 元  budget 50.00 元`)

    // Bad input: the CLI's usage (2), then the server's Chinese reason (also 2: HTTP 400).
    expect((await admin(['orders', 'activity', 'create', '--title', 'x'], token)).code).toBe(2)
    const cheap = await admin(
      [
        'orders',
        'activity',
        'create',
        '--title',
        't',
        '--brief',
        'b',
        '--platform',
        'weibo',
        '--reward-fen',
        '50',
        '--budget-fen',
        '5000',
        '--start',
        'now',
        '--end',
        '+1d'
      ],
      token
    )
    expect(cheap.code).toBe(2)
    expect(cheap.err.join('\n')).toContain('每单奖励必须在 100 到 20000 分之间')

    // A submitted order (as the orders module leaves it), reviewed through the server.
    const person = await ctx.h.login('13800138074')
    const sessionId = made.out[1]!.split(': ')[1]!
    const orderId = randomUUID()
    const now = new Date()
    await ctx.db.db.update(orderActivities).set({ reservedFen: 1000 }).where(eq(orderActivities.id, activityId))
    await ctx.db.db.insert(orders).values({
      id: orderId,
      accountId: person.accountId,
      activityId,
      sessionId,
      status: 'submitted',
      link: 'https://www.douyin.com/video/1',
      rewardFen: 500,
      takeTime: now,
      submitTime: now,
      updatedAt: now
    })
    const waiting = await admin(['orders', 'review', 'list'], token)
    expect(waiting.out[0]).toContain(`${orderId}  远程活动  +86 13800138074  5.00 元`)
    expect(waiting.out[1]).toBe('    link: https://www.douyin.com/video/1')
    expect((await admin(['orders', 'review', 'reject', orderId], token)).code).toBe(2)

    const other = await ctx.h.login('13800138075')
    expect((await admin(['orders', 'review', 'approve', orderId], other.accessToken)).code).toBe(1)
    const approved = await admin(['orders', 'review', 'approve', orderId], token)
    expect(approved).toMatchObject({ code: 0, out: [`Approved ${orderId}: reward 5.00 元 can now be claimed as a red packet.`] })
    const [activity] = await ctx.db.db.select().from(orderActivities).where(eq(orderActivities.id, activityId))
    expect(activity!.spentFen).toBe(500)
    const again = await admin(['orders', 'review', 'reject', orderId, '--reason', '晚了'], token)
    expect(again.code).toBe(2)
    expect(again.err.join('\n')).toContain('该订单已通过，只有待审核的订单可以审核')
    const [order] = await ctx.db.db.select().from(orders).where(eq(orders.id, orderId))
    expect(order!.status).toBe('approved')
    expect(await actions()).toEqual(expect.arrayContaining(['orders.activity.create', 'orders.approve']))
    expect(await actions()).not.toContain('orders.reject')
  })
})

describe('lingxi-admin pay through the server', () => {
  it('creates, updates and lists packages, lists orders and refunds one, each audited', async () => {
    const token = await operator()
    const made = await admin(['pay', 'packages', 'create', '--name', '远程包', '--price-fen', '990', '--tokens', '1000'], token)
    expect(made.code).toBe(0)
    const id = /^Created package (\S+): 远程包 9\.90 元$/.exec(made.out[0] ?? '')?.[1]
    expect(id).toBeTruthy()
    const off = await admin(['pay', 'packages', 'update', id!, '--disabled'], token)
    expect(off.out).toEqual([`Updated package ${id}: 远程包 9.90 元 (off)`])
    expect((await admin(['pay', 'packages', 'list'], token)).out.join('\n')).toMatch(new RegExp(`${id}  off  sort \\d+  远程包  9\\.90 元  1000 tokens`))
    const bad = await admin(['pay', 'packages', 'update', id!, '--badge', '一个很长很长很长的角标'], token)
    expect(bad.code).toBe(2)
    expect(bad.err.join('\n')).toContain('角标最多 8 个字')

    // A paid order (the demo provider), refunded through the server.
    await admin(['pay', 'packages', 'update', id!, '--enabled'], token)
    const buyer = await ctx.h.login('13800138076')
    const order = await ctx.h.post<any>(
      '/api/v1/pay/order/create',
      { packageId: id, provider: 'demo', scene: 'page', idempotencyKey: randomUUID() },
      { token: buyer.accessToken }
    )
    const orderId = order.body.data.orderId as string
    await ctx.h.app.request(`/api/v1/pay/demo/${orderId}/confirm`, { method: 'POST' })
    const paid = await admin(['pay', 'orders', 'list', '--status', 'paid'], token)
    expect(paid.out.join('\n')).toContain(`${orderId}  paid      demo/page  9.90 元  远程包  account ${buyer.accountId}`)
    expect((await admin(['pay', 'refund', orderId, '--fen', 'lots'], token)).code).toBe(2)
    const buyerRefund = await admin(['pay', 'refund', orderId], buyer.accessToken)
    expect(buyerRefund.code).toBe(1)
    const refunded = await admin(['pay', 'refund', orderId, '--fen', '300'], token)
    expect(refunded).toMatchObject({ code: 0, out: [`Refunded ${orderId}: 3.00 元 of 9.90 元 (paid).`] })
    const [row] = await ctx.db.db.select().from(payOrders).where(eq(payOrders.id, orderId))
    expect(row!.refundedFen).toBe(300)
    expect(await actions()).toEqual(expect.arrayContaining(['package.create', 'package.disable', 'order.refund']))
  })
})
