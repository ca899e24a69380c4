import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { eq, sql } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { adminAudit, accounts, balanceLog } from '../src/db/schema.js'
import { balancesOf, setBalance } from './helpers/allowances.js'
import { waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

const OPERATOR = '13900000001'
const USERS = '/api/admin/users'

beforeEach(() => {
  vi.stubEnv('ADMIN_PHONES', `${OPERATOR}, not-a-phone`)
})
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness()
// The operator tables are not among the ones every test file empties.
beforeEach(async () => {
  await ctx.db.db.execute(sql`truncate admin_audit, card_batch_cards, card_batches, disabled_accounts`)
})

async function operator() {
  const login = await ctx.h.login(OPERATOR)
  return login.accessToken
}

describe('who may use the operator API', () => {
  it('refuses anonymous callers (401) and normal users (403) on every route, before looking at the body', async () => {
    const user = await ctx.h.login('13800138000')
    const routes = ['search', 'detail', 'adjust', 'disable', 'enable', 'permissions'].map((p) => `${USERS}/${p}`)
    routes.push('/api/admin/cards/batches', '/api/admin/cards/create', '/api/admin/cards/void', '/api/admin/audit')
    const before = await ctx.h.snapshot()
    for (const path of routes) {
      expect((await ctx.h.post(path, { accountId: user.accountId, kind: 'tokens', amount: 5, reason: 'x' })).status).toBe(401)
      const refused = await ctx.h.post(path, 'not json', { token: user.accessToken })
      expect(refused.status).toBe(403)
      expect(refused.body).toEqual({ code: 40300001, message: '您没有使用「运营后台」的权限', data: null })
    }
    const csv = await ctx.h.request('/api/admin/cards/batches/00000000-0000-4000-8000-000000000000/csv', {
      headers: { Authorization: `Bearer ${user.accessToken}` }
    })
    expect(csv.status).toBe(403)
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('makes the ADMIN_PHONES account an operator on its first call, once, in the audit log', async () => {
    const token = await operator()
    const first = await ctx.h.post<{ list: unknown[] }>(`${USERS}/search`, {}, { token })
    expect(first.body.code).toBe(2000)
    await ctx.h.post(`${USERS}/search`, {}, { token })
    const [row] = await ctx.db.db.select().from(accounts).where(eq(accounts.phone, OPERATOR))
    expect(row?.permissionCodes).toContain('ADMIN')
    const lines = await ctx.db.db.select().from(adminAudit)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ action: 'permission.change', target: row?.id, reason: 'ADMIN_PHONES', actorPhone: `+86 ${OPERATOR}` })
  })
})

describe('users', () => {
  it('finds accounts by phone, nickname and id; shows one with allowances, logs and sessions', async () => {
    const token = await operator()
    const user = await ctx.h.login('13800138123')
    await ctx.h.post('/api/v1/user/profile/save', { nickName: '小明同学' }, { token: user.accessToken })
    for (const query of ['138123', '小明', user.accountId]) {
      const res = await ctx.h.post<{ list: { accountId: string }[] }>(`${USERS}/search`, { query }, { token })
      expect(res.body.data.list.map((u) => u.accountId)).toEqual([user.accountId])
    }
    // LIKE wildcards are text, not patterns.
    expect((await ctx.h.post<{ list: unknown[] }>(`${USERS}/search`, { query: '%' }, { token })).body.data.list).toEqual([])
    const detail = await ctx.h.post<{ phone: string; balances: Record<string, number>; balanceLog: unknown[]; sessions: { active: boolean }[] }>(
      `${USERS}/detail`,
      { accountId: user.accountId },
      { token }
    )
    expect(detail.body.code).toBe(2000)
    expect(detail.body.data.phone).toBe('+86 13800138123')
    expect(detail.body.data.balances).toHaveProperty('tokens')
    expect(detail.body.data.sessions).toEqual([expect.objectContaining({ active: true })])
    expect((await ctx.h.post(`${USERS}/detail`, { accountId: 'nope' }, { token })).body).toEqual({
      code: 40000001,
      message: 'accountId 格式不正确',
      data: null
    })
  })

  it('adjusts an allowance with a reason that goes into the balance log, never below 0', async () => {
    const token = await operator()
    const user = await ctx.h.login('13800138000')
    await setBalance(ctx.db.db, user.accountId, 'tokens', 80)
    const added = await ctx.h.post(`${USERS}/adjust`, { accountId: user.accountId, kind: 'tokens', amount: 20, reason: '补偿故障' }, { token })
    expect(added.body).toMatchObject({ code: 2000, data: { balance: 100 } })
    const [line] = await ctx.db.db.select().from(balanceLog).where(eq(balanceLog.reason, '运营调整：补偿故障'))
    expect(line).toMatchObject({ amount: 20, balance: 100, kind: 'tokens' })

    const before = await ctx.h.snapshot()
    for (const [body, message] of [
      [{ accountId: user.accountId, kind: 'tokens', amount: 5 }, '请填写原因'],
      [{ accountId: user.accountId, kind: 'tokens', amount: 5, reason: '   ' }, '请填写原因'],
      [{ accountId: user.accountId, kind: 'tokens', amount: 0, reason: 'x' }, 'amount 不能为 0，绝对值最多 10 亿'],
      [{ accountId: user.accountId, kind: 'tokens', amount: 1.5, reason: 'x' }, 'amount 必须是整数'],
      [{ accountId: user.accountId, kind: 'gold', amount: 5, reason: 'x' }, 'kind 格式不正确']
    ] as const) {
      const res = await ctx.h.post(`${USERS}/adjust`, body, { token })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe(40000001)
      if (!message.includes('格式')) expect(res.body.message).toBe(message)
    }
    const short = await ctx.h.post(`${USERS}/adjust`, { accountId: user.accountId, kind: 'tokens', amount: -101, reason: '扣回' }, { token })
    expect(short.status).toBe(402)
    expect(short.body.message).toContain('调整后不能小于 0')
    expect(await ctx.h.snapshot()).toEqual(before)
  })

  it('two concurrent deductions never take a balance below zero', async () => {
    const token = await operator()
    const user = await ctx.h.login('13800138000')
    await setBalance(ctx.db.db, user.accountId, 'tokens', 80)
    const take = () => ctx.h.post(`${USERS}/adjust`, { accountId: user.accountId, kind: 'tokens', amount: -50, reason: '扣回误发' }, { token })
    const answers = await Promise.all([take(), take(), take()])
    expect(answers.map((a) => a.body.code).sort()).toEqual([2000, 40200001, 40200001])
    expect((await balancesOf(ctx.db.db, user.accountId)).tokens).toBe(30)
    expect(await ctx.db.db.select().from(adminAudit).where(eq(adminAudit.action, 'allowance.adjust'))).toHaveLength(1)
  })

  it('disabling ends every session and closes open streams at once; login is refused until enabled', async () => {
    const token = await operator()
    const user = await ctx.h.login('13800138000')
    const server = createAdaptorServer({ fetch: ctx.h.app.fetch }) as Server
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const stream = await fetch(`${url}/api/v1/ai-chat/sse/subscribe`, { headers: { Authorization: `Bearer ${user.accessToken}` } })
      expect(stream.status).toBe(200)
      await waitUntil(() => ctx.h.streams.open.size === 1)
      const reader = stream.body!.getReader()
      const ended = (async () => {
        for (;;) if ((await reader.read()).done) return true
      })()

      const refused = await ctx.h.post(`${USERS}/disable`, { accountId: user.accountId }, { token })
      expect(refused.body).toEqual({ code: 40000001, message: '请填写原因', data: null })
      const self = await ctx.h.post(
        `${USERS}/disable`,
        {
          accountId: (await ctx.h.post<{ list: { accountId: string }[] }>(`${USERS}/search`, { query: OPERATOR }, { token })).body.data.list[0]!.accountId,
          reason: 'x'
        },
        { token }
      )
      expect(self.body.message).toBe('不能停用自己的账号')

      const res = await ctx.h.post(`${USERS}/disable`, { accountId: user.accountId, reason: '违规内容' }, { token })
      expect(res.body).toMatchObject({ code: 2000, data: { disabled: true, state: 0 } })
      expect(await ended).toBe(true)
      await waitUntil(() => ctx.h.streams.open.size === 0)
      expect((await ctx.h.post('/api/v1/user/info', {}, { token: user.accessToken })).status).toBe(401)

      const sent = await ctx.h.sendCode('13800138000')
      expect(sent.body.code).toBe(2000)
      const login = await ctx.h.post('/api/v1/auth/login', { enCode: '86', phone: '13800138000', code: ctx.h.lastCode('13800138000'), platform: 'PC' })
      expect(login.body).toEqual({ code: 40300001, message: '该账号已被停用，如有疑问请联系客服', data: null })
      const detail = await ctx.h.post<{ sessions: { active: boolean }[] }>(`${USERS}/detail`, { accountId: user.accountId }, { token })
      expect(detail.body.data.sessions.every((s) => !s.active)).toBe(true)

      expect((await ctx.h.post(`${USERS}/enable`, { accountId: user.accountId }, { token })).body).toMatchObject({
        code: 2000,
        data: { disabled: false, state: 1 }
      })
      ctx.h.clock.advance(61_000)
      const again = await ctx.h.login('13800138000')
      expect((await ctx.h.post('/api/v1/user/info', {}, { token: again.accessToken })).status).toBe(200)
      const actions = (await ctx.db.db.select().from(adminAudit).where(eq(adminAudit.target, user.accountId))).map((l) => l.action)
      expect(actions).toEqual(['account.disable', 'account.enable'])
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('grants and revokes permissions of the tree, refusing unknown codes', async () => {
    const token = await operator()
    const user = await ctx.h.login('13800138000')
    const before = await ctx.h.snapshot()
    const bad = await ctx.h.post(`${USERS}/permissions`, { accountId: user.accountId, grant: ['AI_TOOLS_MUSIC', 'ROOT'] }, { token })
    expect(bad.body).toEqual({ code: 40000001, message: '未知的权限代码：ROOT', data: null })
    expect(await ctx.h.snapshot()).toEqual(before)
    const res = await ctx.h.post<{ permissionCodes: string[] }>(
      `${USERS}/permissions`,
      { accountId: user.accountId, grant: ['AI_TOOLS_MUSIC'], revoke: ['AI_TOOLS_CHAT'] },
      { token }
    )
    expect(res.body.data.permissionCodes).toContain('AI_TOOLS_MUSIC')
    expect(res.body.data.permissionCodes).not.toContain('AI_TOOLS_CHAT')
    // Seen at once (no cached session keeps the old codes).
    const tree = await ctx.h.post<{ bodyList: { permissionCode: string; checked: number }[] }>(
      '/api/v1/userPermission',
      { appPermissionCode: 'AI_TOOLS' },
      { token: user.accessToken }
    )
    expect(tree.body.data.bodyList.find((n) => n.permissionCode === 'AI_TOOLS_CHAT')?.checked).toBe(0)
    const [line] = await ctx.db.db.select().from(adminAudit).where(eq(adminAudit.action, 'permission.change')).orderBy(adminAudit.id).offset(1)
    expect(line?.before).toContain('AI_TOOLS_CHAT')
    expect(line?.after).not.toContain('AI_TOOLS_CHAT')
  })
})
