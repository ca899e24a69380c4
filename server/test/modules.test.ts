import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { defineAllowanceKind } from '../src/allowances/kinds.js'
import { spend } from '../src/allowances/ledger.js'
import { loadConfig } from '../src/config.js'
import { accounts } from '../src/db/schema.js'
import { defineRoute } from '../src/http/api.js'
import { MODULES } from '../src/modules/index.js'
import { defineModule } from '../src/modules/module.js'
import { createCards } from '../src/modules/user-center/cards.js'
import { startServer } from '../src/server.js'
import { parseFrames, readAll, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'
import { memoryLogger } from './helpers/harness.js'

/**
 * A tool that exists only in this file, added the way a new tool is: one module object, one line in
 * a list. Nothing else in the server names it, yet its routes, its permission code, its job, its
 * events on the account channel, its allowance kind and its start and close all work.
 */
const CODE = 'AI_TOOLS_THROWAWAY'
const calls: string[] = []
const ECHOES = defineAllowanceKind({ id: 'echo', field: 'echoCount', label: '回声次数', exhausted: '回声次数不足，请充值后再试' })

const throwaway = defineModule({
  name: 'throwaway',
  permissionCodes: [CODE],
  allowances: [ECHOES],
  allowanceKinds: ['echo'],
  channelCodes: [CODE],
  create(deps) {
    return {
      jobs(queue) {
        queue.define<{ accountId: string; text: string }>('throwaway:echo', async (data) => {
          await deps.bus.publish(data.accountId, { event: 'throwaway', data: { text: data.text } })
        })
      },
      routes(api) {
        defineRoute(
          api,
          '/api/v1/throwaway/echo',
          {
            tag: 'throwaway',
            summary: 'Echoes the text now, and again on the account channel from a job',
            body: z.object({ text: z.string().max(20) }),
            auth: true,
            permission: CODE,
            response: z.object({ text: z.string() })
          },
          async ({ body, auth }) => {
            await api.jobs.add('throwaway:echo', { accountId: auth.account.id, text: body.text })
            return { text: body.text }
          }
        )
        defineRoute(
          api,
          '/api/v1/throwaway/loud',
          {
            tag: 'throwaway',
            summary: 'Echoes loudly, for one echo of allowance',
            body: z.object({}),
            auth: true,
            permission: CODE,
            response: z.object({ left: z.number() })
          },
          async ({ auth }) => ({ left: await api.db.transaction((tx) => spend(tx, auth.account.id, ECHOES, 1, '回声', new Date(api.now()))) })
        )
      },
      async sweep() {
        calls.push('sweep')
        return 0
      },
      async start() {
        calls.push('start')
      },
      async resume() {
        calls.push('resume')
      },
      async close() {
        calls.push('close')
      }
    }
  }
})

const ctx = useHarness({ modules: [...MODULES, throwaway] })

async function grant(accountId: string, codes: string[]) {
  await ctx.db.db.update(accounts).set({ permissionCodes: codes }).where(eq(accounts.id, accountId))
  await ctx.h.accountChanged(accountId)
}

describe('a module added to the list', () => {
  it('documents its routes in /api/openapi.json', async () => {
    const res = await ctx.h.request<never>('/api/openapi.json')
    const doc = res.body as unknown as { paths: Record<string, Record<string, { tags: string[]; security: unknown[] }>> }
    expect(doc.paths['/api/v1/throwaway/echo']?.post?.tags).toEqual(['throwaway'])
    expect(doc.paths['/api/v1/throwaway/echo']?.post?.security).toEqual([{ bearer: [] }])
  })

  it('answers requests, behind its own permission code', async () => {
    const { accessToken, accountId } = await ctx.h.login('13800138000')
    await grant(accountId, ['AI_TOOLS_CHAT'])
    const refused = await ctx.h.post('/api/v1/throwaway/echo', { text: '你好' }, { token: accessToken })
    expect(refused.body).toEqual({ code: 40300001, message: `您没有使用「${CODE}」的权限`, data: null })

    await grant(accountId, [CODE])
    const answered = await ctx.h.post('/api/v1/throwaway/echo', { text: '你好' }, { token: accessToken })
    expect(answered.body).toEqual({ code: 2000, message: '操作成功', data: { text: '你好' } })
    // The chat tool's code does not open it, nor its code the chat tool.
    expect((await ctx.h.post('/api/v1/ai-chat/topic/create', {}, { token: accessToken })).body.code).toBe(40300001)
  })

  it('publishes to the account channel from its job, which its code alone opens', async () => {
    const { accessToken, accountId } = await ctx.h.login('13900139000')
    await grant(accountId, [CODE])
    const channel = await ctx.h.app.request('/api/v1/ai-chat/sse/subscribe', { headers: { Authorization: `Bearer ${accessToken}` } })
    expect(channel.status).toBe(200)
    await waitUntil(() => ctx.h.chat.stats().accountListeners === 1)
    expect((await ctx.h.post('/api/v1/throwaway/echo', { text: '来自任务' }, { token: accessToken })).body.code).toBe(2000)
    const text = await readAll(channel, (t) => t.includes('event: throwaway'))
    expect(parseFrames(text).filter((f) => f.event === 'throwaway')).toEqual([{ id: '1', event: 'throwaway', data: JSON.stringify({ text: '来自任务' }) }])
  })
})

describe('an allowance kind a module brings', () => {
  it('appears in user/info, cards, the logs and the documents, and its spends refuse with its own message', async () => {
    const { accessToken: token, accountId } = await ctx.h.login('13700137000')
    await grant(accountId, [CODE])
    const info = await ctx.h.post<Record<string, unknown>>('/api/v1/user/info', {}, { token })
    expect(info.body.data).toMatchObject({ tokens: 100000, mjCount: 20, sunoCount: 10, echoCount: 0 })
    expect(Object.keys(info.body.data)).toEqual([
      'accountId',
      'userId',
      'phone',
      'nickName',
      'avatarUrl',
      'state',
      'tokens',
      'mjCount',
      'sunoCount',
      'echoCount',
      'permissionCodes'
    ])
    expect(await ctx.h.post('/api/v1/throwaway/loud', {}, { token })).toMatchObject({
      status: 402,
      body: { code: 40200001, message: '回声次数不足，请充值后再试' }
    })

    const {
      codes: [card]
    } = await createCards(ctx.db.db, { grants: { echo: 2 }, count: 1, expiresAt: null })
    const redeemed = await ctx.h.post('/api/v1/user/rechargeCardCode', { cardCode: card }, { token })
    expect(redeemed.body.data).toEqual({ tokens: 100000, mjCount: 20, sunoCount: 10, echoCount: 2 })
    expect((await ctx.h.post('/api/v1/throwaway/loud', {}, { token })).body.data).toEqual({ left: 1 })
    expect((await ctx.h.post('/api/v1/throwaway/loud', {}, { token })).body.data).toEqual({ left: 0 })
    expect((await ctx.h.post('/api/v1/throwaway/loud', {}, { token })).body.code).toBe(40200001)

    const log = await ctx.h.post<{ list: { kind: string; amount: number; balance: number }[] }>('/api/v1/user/balanceLog', {}, { token })
    expect(log.body.data.list.filter((l) => l.kind === 'echo').map(({ amount, balance }) => [amount, balance])).toEqual([
      [-1, 0],
      [-1, 1],
      [2, 2]
    ])
    const recharges = await ctx.h.post<{ list: unknown[] }>('/api/v1/user/rechargeLog', {}, { token })
    expect(recharges.body.data.list).toMatchObject([{ tokens: 0, mjCount: 0, sunoCount: 0, echoCount: 2 }])
    const doc = (await ctx.h.request<never>('/api/openapi.json')).body as unknown as { paths: Record<string, { post: any }> }
    const infoSchema = doc.paths['/api/v1/user/info']!.post.responses['200'].content['application/json'].schema
    expect(JSON.stringify(infoSchema)).toContain('echoCount')
  })
})

describe('startServer with a module added', () => {
  it('sweeps and starts it before listening, resumes it once listening, and closes it at shutdown', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-modules-'))
    // The embedded database, whatever the test run uses elsewhere.
    const config = { ...loadConfig({ DATA_DIR: dataDir, STATIC_ROOT: join(dataDir, 'no-dist') }), port: 0 }
    calls.length = 0
    const server = await startServer({ config, logger: memoryLogger(), modules: [...MODULES, throwaway] })
    try {
      expect(calls.slice(0, 2)).toEqual(['sweep', 'start'])
      await waitUntil(() => calls.includes('resume'))
      const res = await fetch(`${server.url}/api/v1/throwaway/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
      expect(((await res.json()) as { code: number }).code).toBe(50011004)
    } finally {
      await server.close()
    }
    expect(calls).toEqual(['sweep', 'start', 'resume', 'close'])
  }, 90_000)
})
