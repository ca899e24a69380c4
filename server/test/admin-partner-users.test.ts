import { createHmac, randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useHarness } from './helpers/database-hooks.js'

// The console's users tab with partner users (issue 16 item 3): a partner's user has no phone, so
// the operator API names its partner and the partner's own user id (sub), and filters by partner.

const ACME = 'https://acme.example'
const GLOBEX = 'https://globex.example'
const SECRETS = { acme: 'acme-secret-0123456789-abcdefghijklmnop', globex: 'globex-secret-0123456789-abcdefghijklmn' } as const
const PARTNERS = [
  { id: 'acme', origins: [ACME], secret: SECRETS.acme },
  { id: 'globex', origins: [GLOBEX], secret: SECRETS.globex, trusted: true }
]
const OPERATOR = '13900000079'
beforeEach(() => vi.stubEnv('ADMIN_PHONES', OPERATOR))
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness({ env: { LINGXI_PARTNERS: JSON.stringify(PARTNERS) } })

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
async function identify(partner: keyof typeof SECRETS, sub: string): Promise<string> {
  const iat = Math.floor(ctx.h.clock.now() / 1000)
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: partner, sub, aud: 'lingxi', iat, exp: iat + 120, jti: randomUUID() })}`
  const assertion = `${unsigned}.${createHmac('sha256', SECRETS[partner]).update(unsigned).digest('base64url')}`
  const res = await ctx.h.post<{ accountId: string }>(
    '/api/v1/auth/partner/identify',
    { assertion, platform: 'PC' },
    { headers: { Origin: partner === 'acme' ? ACME : GLOBEX } }
  )
  expect(res.body.code).toBe(2000)
  return res.body.data.accountId
}

type Row = { accountId: string; phone: string; partner: { id: string; sub: string } | null }

describe('partner users in the operator API', () => {
  it('names the partner and sub instead of a phone, and filters by partner', async () => {
    const a1 = await identify('acme', 'shop-user-1')
    const a2 = await identify('acme', 'shop-user-2')
    const g1 = await identify('globex', 'g-7')
    const plain = await ctx.h.login('13800138077')
    const { accessToken: token } = await ctx.h.login(OPERATOR)

    const all = await ctx.h.post<{ list: Row[] }>('/api/admin/users/search', { limit: 100 }, { token })
    const byId = new Map(all.body.data.list.map((u) => [u.accountId, u]))
    expect(byId.get(a1)).toMatchObject({ phone: '', partner: { id: 'acme', sub: 'shop-user-1' } })
    expect(byId.get(g1)).toMatchObject({ phone: '', partner: { id: 'globex', sub: 'g-7' } })
    expect(byId.get(plain.accountId)).toMatchObject({ phone: '+86 13800138077', partner: null })

    const acme = await ctx.h.post<{ list: Row[] }>('/api/admin/users/search', { partner: 'acme' }, { token })
    expect(acme.body.data.list.map((u) => u.accountId).sort()).toEqual([a1, a2].sort())
    const sub = await ctx.h.post<{ list: Row[] }>('/api/admin/users/search', { query: 'g-7' }, { token })
    expect(sub.body.data.list.map((u) => u.accountId)).toEqual([g1])
    const none = await ctx.h.post<{ list: Row[] }>('/api/admin/users/search', { partner: 'nobody' }, { token })
    expect(none.body.data.list).toEqual([])

    const detail = await ctx.h.post<Row>('/api/admin/users/detail', { accountId: a2 }, { token })
    expect(detail.body.data).toMatchObject({ phone: '', partner: { id: 'acme', sub: 'shop-user-2' } })

    const bad = await ctx.h.post('/api/admin/users/search', { partner: 'x'.repeat(65) }, { token })
    expect(bad.body).toMatchObject({ code: 40000001, message: 'partner 最多 64 个字符' })
    // Not an operator: refused, whatever the filter.
    const refused = await ctx.h.post('/api/admin/users/search', { partner: 'acme' }, { token: plain.accessToken })
    expect(refused.status).toBe(403)
  })
})

describe('the partners list on an operator’s first visit', () => {
  // Issue 17: the console asks for the partners (users tab's 按合作方筛选) at the same time as its
  // first other call; the ADMIN_PHONES bootstrap must run before /api/admin/partners too, or a
  // fresh operator is refused it and the filter never appears.
  it('makes an ADMIN_PHONES account an operator when its first admin call is /api/admin/partners', async () => {
    const { accessToken: token } = await ctx.h.login(OPERATOR)
    const res = await ctx.h.post<{ list: { id: string; users: number }[] }>('/api/admin/partners', {}, { token })
    expect(res.body.code).toBe(2000)
    expect(res.body.data.list.map((p) => p.id)).toEqual(['acme', 'globex'])
    expect(JSON.stringify(res.body.data)).not.toContain(SECRETS.acme)
  })

  it('still refuses anyone else', async () => {
    const { accessToken: token } = await ctx.h.login('13800138078')
    const res = await ctx.h.post('/api/admin/partners', {}, { token })
    expect(res.status).toBe(403)
    expect(res.body).toMatchObject({ code: 40300001, data: null })
    const anonymous = await ctx.h.post('/api/admin/partners', {})
    expect(anonymous.status).toBe(401)
  })
})
