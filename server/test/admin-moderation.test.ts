import { fileURLToPath } from 'node:url'
import { like, sql } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { adminAudit } from '../src/db/schema.js'
import { useHarness } from './helpers/database-hooks.js'

// The moderation log in the operator API (issue 18): listed with filters, exported as CSV (which
// the audit log records), never to anyone without ADMIN.
const OPERATOR = '13900000001'
const WORDS = fileURLToPath(new URL('./fixtures/moderation-words.txt', import.meta.url))

beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
})
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness(() => ({ env: { MODERATION_PROVIDERS: 'words', MODERATION_WORDS_FILE: WORDS } }))
beforeEach(async () => {
  await ctx.db.db.execute(sql`truncate admin_audit, moderation_log`)
})

interface Line {
  id: number
  kind: string
  source: string
  accountId: string | null
  accountPhone: string | null
  excerpt: string
  verdict: string
  rule: string | null
}

async function refusedNicknames() {
  const user = await ctx.h.login('13800138000')
  for (const nickName of ['Bad Word', '灰 色 测 试 词', 'ce shi jin yu']) {
    await ctx.h.post('/api/v1/user/profile/save', { nickName }, { token: user.accessToken })
  }
  return user
}

describe('the moderation log in the operator API', () => {
  it('lists what was refused or kept for review, newest first, with the phone masked, and filters it', async () => {
    const user = await refusedNicknames()
    const { accessToken: token } = await ctx.h.login(OPERATOR)
    const all = await ctx.h.post<{ list: Line[] }>('/api/admin/moderation/log', {}, { token })
    expect(all.body.code).toBe(2000)
    const list = all.body.data.list
    expect(list.map((l) => [l.verdict, l.rule])).toEqual([
      ['block', '测试禁语'],
      ['review', '灰色测试词'],
      ['block', 'badword']
    ])
    expect(list[0]).toMatchObject({ kind: 'name', source: 'user.nickname', accountId: user.accountId, accountPhone: '138****8000' })

    const blocked = await ctx.h.post<{ list: Line[] }>('/api/admin/moderation/log', { verdict: 'block', limit: 1 }, { token })
    expect(blocked.body.data.list.map((l) => l.rule)).toEqual(['测试禁语'])
    const older = await ctx.h.post<{ list: Line[] }>('/api/admin/moderation/log', { verdict: 'block', before: blocked.body.data.list[0]?.id }, { token })
    expect(older.body.data.list.map((l) => l.rule)).toEqual(['badword'])
    const none = await ctx.h.post<{ list: Line[] }>('/api/admin/moderation/log', { kind: 'chat', from: '2020-01-01' }, { token })
    expect(none.body.data.list).toEqual([])
    const future = await ctx.h.post<{ list: Line[] }>('/api/admin/moderation/log', { from: '2999-01-01T00:00:00Z' }, { token })
    expect(future.body.data.list).toEqual([])
  })

  it('exports the filtered log as CSV for spreadsheets, and audits the export', async () => {
    await refusedNicknames()
    const { accessToken: token } = await ctx.h.login(OPERATOR)
    const res = await ctx.h.app.request('/api/admin/moderation/log/csv?verdict=block', { headers: { authorization: `Bearer ${token}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="moderation-log-\d{4}-\d{2}-\d{2}\.csv"$/)
    const bytes = Buffer.from(await res.arrayBuffer())
    // A byte-order mark first, so that Excel reads the Chinese right.
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const text = bytes.subarray(3).toString('utf8')
    expect(text.startsWith('"id","created_at","kind"')).toBe(true)
    const rows = text.trim().split('\r\n')
    expect(rows).toHaveLength(3)
    expect(rows[1]).toContain('"ce shi jin yu"')
    expect(rows[2]).toContain('"Bad Word"')
    const audited = await ctx.db.db
      .select({ action: adminAudit.action, after: adminAudit.after })
      .from(adminAudit)
      .where(like(adminAudit.action, 'moderation.%'))
    expect(audited).toEqual([{ action: 'moderation.export', after: { filters: { verdict: 'block' }, rows: 2 } }])
  })

  it('refuses a normal user and an anonymous caller, and bad filters with a message naming them', async () => {
    await refusedNicknames()
    const user = await ctx.h.login('13800138001')
    const list = await ctx.h.post('/api/admin/moderation/log', {}, { token: user.accessToken })
    expect(list.body.code).toBe(40300001)
    const csv = await ctx.h.request('/api/admin/moderation/log/csv', { headers: { authorization: `Bearer ${user.accessToken}` } })
    expect(csv.status).toBe(403)
    expect((await ctx.h.request('/api/admin/moderation/log/csv')).status).toBe(401)

    const { accessToken: token } = await ctx.h.login(OPERATOR)
    const bad = await ctx.h.post<unknown>('/api/admin/moderation/log', { kind: 'everything', limit: 5000 }, { token })
    expect(bad.body.code).toBe(40000001)
    expect(bad.body.message).toMatch(/kind|limit/)
    const badCsv = await ctx.h.request<unknown>('/api/admin/moderation/log/csv?from=yesterday', { headers: { authorization: `Bearer ${token}` } })
    expect(badCsv.status).toBe(400)
    expect(badCsv.body).toMatchObject({ code: 40000001, message: '筛选条件不正确：from' })
    expect(await ctx.db.db.select().from(adminAudit).where(like(adminAudit.action, 'moderation.%'))).toEqual([])
  })
})
