import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createPackage } from '../src/modules/payments/packages.js'
import { CREATES_PER_MINUTE } from '../src/modules/payments/routes.js'
import { ALLOWANCES } from './helpers/allowances.js'
import { useHarness } from './helpers/database-hooks.js'

// order/create is limited per account; pay/providers says which ways to pay this server offers.
const ctx = useHarness({ env: { SMS_HOURLY_PER_IP: '1000' } })
const P = '/api/v1/pay'

describe('payments limits', () => {
  it(`order/create: ${CREATES_PER_MINUTE} a minute per account, then 42900001 with when to retry; other accounts are not held back`, async () => {
    const pkg = await createPackage(ctx.db.db, ALLOWANCES, { name: `体验包${randomUUID().slice(0, 4)}`, priceFen: 990, grants: { tokens: 1000 } })
    const { accessToken } = await ctx.h.login('13800138200')
    const create = (token: string) =>
      ctx.h.post<any>(`${P}/order/create`, { packageId: pkg.id, provider: 'demo', scene: 'page', idempotencyKey: randomUUID() }, { token })
    for (let i = 0; i < CREATES_PER_MINUTE; i++) expect((await create(accessToken)).body.code).toBe(2000)
    const refused = await create(accessToken)
    expect(refused.status).toBe(429)
    expect(refused.body.code).toBe(42900001)
    expect(refused.body.message).toMatch(/^下单过于频繁，请 \d+ 秒后再试$/)
    const other = await ctx.h.login('13800138201')
    expect((await create(other.accessToken)).body.code).toBe(2000)
    ctx.h.clock.advance(61_000)
    expect((await create(accessToken)).body.code).toBe(2000)
  })

  it('pay/providers lists the offline demo with every scene', async () => {
    const res = await ctx.h.post<any>(`${P}/providers`, {})
    expect(res.body.data).toEqual([{ provider: 'demo', scenes: ['native', 'h5', 'jsapi', 'page', 'wap'], demo: true }])
  })
})
