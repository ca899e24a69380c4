import { mkdtempSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAdaptorServer } from '@hono/node-server'
import { eq, sql } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { runAdmin } from '../src/admin.js'
import { accounts, adminAudit } from '../src/db/schema.js'
import { useHarness } from './helpers/database-hooks.js'

// lingxi-admin while the server holds the embedded database: with an operator token, the commands
// that the operator API covers go through it instead of being refused.

const OPERATOR = '13900000077'
beforeEach(() => vi.stubEnv('ADMIN_PHONES', OPERATOR))
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness()
beforeEach(async () => {
  await ctx.db.db.execute(sql`truncate admin_audit, card_batch_cards, card_batches`)
})

/** A data dir whose lock a live process holds (our parent stands in for the running server). */
function busyDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lingxi-remote-'))
  writeFileSync(join(dir, 'lingxi.lock'), JSON.stringify({ pid: process.ppid, host: hostname(), owner: 'server', since: 'earlier' }))
  return dir
}

async function withServer<T>(run: (url: string) => Promise<T>): Promise<T> {
  const server = createAdaptorServer({ fetch: ctx.h.app.fetch }) as Server
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

async function admin(argv: string[], env: Record<string, string>) {
  const out: string[] = []
  const err: string[] = []
  const code = await runAdmin(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: { DATA_DIR: busyDataDir(), ...env } })
  return { code, out, err }
}

describe('lingxi-admin through the operator API', () => {
  it('lists, grants and makes cards through the running server, each audited; sets the state; refuses an unknown command', async () => {
    const { accessToken } = await ctx.h.login(OPERATOR)
    const user = await ctx.h.login('13800138055')
    await withServer(async (url) => {
      const env = { LINGXI_ADMIN_TOKEN: accessToken, LINGXI_ADMIN_URL: url }
      const listed = await admin(['list', '--phone', '13800138055'], env)
      expect(listed).toMatchObject({ code: 0, out: [expect.stringContaining(`${user.accountId}  +86 13800138055  state 1`)] })

      const granted = await admin(['grant', '13800138055', 'AI_TOOLS_HOT'], env)
      expect(granted.code).toBe(0)
      const [row] = await ctx.db.db.select().from(accounts).where(eq(accounts.id, user.accountId))
      expect(row!.permissionCodes).toContain('AI_TOOLS_HOT')
      const revoked = await admin(['revoke', user.accountId, 'AI_TOOLS_HOT'], env)
      expect(revoked.out[0]).toMatch(/^Revoked\./)

      const cards = await admin(['cards', 'create', '--tokens', '500', '--count', '2'], env)
      expect(cards.code).toBe(0)
      expect(cards.out).toHaveLength(2)
      const actions = (await ctx.db.db.select().from(adminAudit)).map((a) => a.action)
      expect(actions).toEqual(expect.arrayContaining(['permission.change', 'cards.create']))

      const state = await admin(['state', '13800138055', '0'], env)
      expect(state.code).toBe(0)
      const [expired] = await ctx.db.db.select().from(accounts).where(eq(accounts.id, user.accountId))
      expect(expired!.state).toBe(0)
      const unknown = await admin(['cards', 'burn'], env)
      expect(unknown.code).toBe(2)

      const user2 = await ctx.h.login('13800138066')
      const refused = await admin(['list'], { LINGXI_ADMIN_TOKEN: user2.accessToken, LINGXI_ADMIN_URL: url })
      expect(refused.code).toBe(1)
      expect(refused.err.join('\n')).toContain('您没有使用「运营后台」的权限')
    })
  })

  it('without a token, still says how to go on', async () => {
    const res = await admin(['list'], {})
    expect(res.code).toBe(1)
    expect(res.err.join('\n')).toContain('LINGXI_ADMIN_TOKEN')
  })
})
