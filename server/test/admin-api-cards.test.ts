import { eq, sql } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { adminAudit } from '../src/db/schema.js'
import { balancesOf } from './helpers/allowances.js'
import { useHarness } from './helpers/database-hooks.js'

const OPERATOR = '13900000001'

beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
})
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness()
beforeEach(async () => {
  await ctx.db.db.execute(sql`truncate admin_audit, card_batch_cards, card_batches, disabled_accounts`)
})

interface Batch {
  batchId: string
  count: number
  redeemed: number
  voided: number
  note: string
}

describe('recharge cards through the operator API', () => {
  it('creates a batch, shows who redeemed what, voids the rest and exports CSV without codes', async () => {
    const { accessToken: token } = await ctx.h.login(OPERATOR)
    const made = await ctx.h.post<{ batch: Batch; codes: string[] }>(
      '/api/admin/cards/create',
      { grants: { tokens: 1000, mj: 2 }, count: 3, expiresDays: 30, note: '=双十一活动' },
      { token }
    )
    expect(made.body.code).toBe(2000)
    const { batch, codes } = made.body.data
    expect(codes).toHaveLength(3)
    expect(batch).toMatchObject({ count: 3, redeemed: 0, voided: 0, note: '=双十一活动' })

    const user = await ctx.h.login('13800138000')
    const start = (await balancesOf(ctx.db.db, user.accountId)).tokens
    expect((await ctx.h.post('/api/v1/user/rechargeCardCode', { cardCode: codes[0] }, { token: user.accessToken })).body.code).toBe(2000)
    expect((await balancesOf(ctx.db.db, user.accountId)).tokens).toBe(start + 1000)

    const voided = await ctx.h.post<{ voided: number }>('/api/admin/cards/void', { batchId: batch.batchId }, { token })
    expect(voided.body.data.voided).toBe(2)
    const again = await ctx.h.post<{ voided: number }>('/api/admin/cards/void', { batchId: batch.batchId }, { token })
    expect(again.body.data.voided).toBe(0)
    // A voided card redeems nothing.
    const refused = await ctx.h.post('/api/v1/user/rechargeCardCode', { cardCode: codes[1] }, { token: user.accessToken })
    expect(refused.body.code).toBe(40000001)
    expect((await balancesOf(ctx.db.db, user.accountId)).tokens).toBe(start + 1000)

    const detail = await ctx.h.post<{ batch: Batch; cards: { status: string; redeemedPhone: string | null }[] }>(
      '/api/admin/cards/batch',
      { batchId: batch.batchId },
      { token }
    )
    expect(detail.body.data.batch).toMatchObject({ redeemed: 1, voided: 2 })
    expect(detail.body.data.cards.map((c) => c.status)).toEqual(['redeemed', 'voided', 'voided'])
    expect(detail.body.data.cards[0]?.redeemedPhone).toBe('+86 13800138000')

    const list = await ctx.h.post<{ list: Batch[] }>('/api/admin/cards/batches', {}, { token })
    expect(list.body.data.list.map((b) => b.batchId)).toEqual([batch.batchId])

    const csv = await ctx.h.app.request(`/api/admin/cards/batches/${batch.batchId}/csv`, { headers: { Authorization: `Bearer ${token}` } })
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    const text = await csv.text()
    const rows = text
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n')
    expect(rows).toHaveLength(4)
    expect(rows[0]).toContain('code_mask')
    expect(rows[1]).toContain('"redeemed"')
    expect(rows[1]).toContain(`"'=双十一活动"`)
    for (const code of codes) expect(text).not.toContain(code)

    const actions = (await ctx.db.db.select().from(adminAudit).where(eq(adminAudit.target, batch.batchId)).orderBy(adminAudit.id)).map((l) => l.action)
    expect(actions).toEqual(['cards.create', 'cards.void', 'cards.void'])
    const audit = await ctx.h.post<{ list: { action: string; requestId: string | null }[] }>('/api/admin/audit', { target: batch.batchId }, { token })
    expect(audit.body.data.list.map((l) => l.action)).toEqual(['cards.void', 'cards.void', 'cards.create'])
    expect(audit.body.data.list[0]?.requestId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('refuses bad batches with the envelope and creates nothing', async () => {
    const { accessToken: token } = await ctx.h.login(OPERATOR)
    for (const body of [
      { grants: { tokens: 0 }, count: 1 },
      { grants: { gold: 5 }, count: 1 },
      { grants: { tokens: 5 }, count: 0 },
      { grants: { tokens: 5 }, count: 1001 },
      { grants: { tokens: -5 }, count: 1 },
      { grants: 'lots', count: 1 }
    ]) {
      const res = await ctx.h.post('/api/admin/cards/create', body, { token })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe(40000001)
    }
    expect((await ctx.h.post<{ list: Batch[] }>('/api/admin/cards/batches', {}, { token })).body.data.list).toEqual([])
    expect((await ctx.h.post('/api/admin/cards/void', { batchId: '00000000-0000-4000-8000-000000000000' }, { token })).body).toEqual({
      code: 40400001,
      message: '充值卡批次不存在',
      data: null
    })
    const csv = await ctx.h.app.request('/api/admin/cards/batches/nope/csv', { headers: { Authorization: `Bearer ${token}` } })
    expect(csv.status).toBe(400)
  })
})
