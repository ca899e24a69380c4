import { eq } from 'drizzle-orm'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { accounts } from '../src/db/schema.js'
import { defineRoute, requirePermission } from '../src/http/api.js'
import { useHarness } from './helpers/database-hooks.js'

const ctx = useHarness({
  env: { DEFAULT_PERMISSIONS: 'AI_TOOLS_CHAT,AI_TOOLS_PAINTING,AI_TOOLS_SD' },
  extend(api) {
    // Test-only tool endpoints, standing in for the chat and music tools to come.
    defineRoute(
      api,
      '/api/v1/test/chat',
      { tag: 'test', summary: 'chat', body: z.object({ text: z.string() }), permission: 'AI_TOOLS_CHAT' },
      async ({ body, auth }) => ({
        echo: body.text,
        accountId: auth?.account.id
      })
    )
    defineRoute(api, '/api/v1/test/music', { tag: 'test', summary: 'music', body: z.object({}), permission: 'AI_TOOLS_MUSIC' }, async () => 'ok')
    api.app.get('/api/v1/test/stream', requirePermission(api, 'AI_TOOLS_MUSIC'), (c) => c.text('stream'))
  }
})
const TREE = '/api/v1/userPermission'

describe('userPermission', () => {
  it('returns the children of AI_TOOLS, checked by the codes the account holds', async () => {
    const { accessToken } = await ctx.h.login('13800138000')
    const res = await ctx.h.post(TREE, { appPermissionCode: 'AI_TOOLS' }, { token: accessToken })
    const leaf = (code: string, checked: 0 | 1) => ({ permissionCode: code, checked, childList: [] })
    expect(res.body).toEqual({
      code: 2000,
      message: '操作成功',
      data: {
        bodyList: [
          leaf('AI_TOOLS_CHAT', 1),
          leaf('AI_TOOLS_ROLE', 0),
          { permissionCode: 'AI_TOOLS_PAINTING', checked: 1, childList: [leaf('AI_TOOLS_SD', 1)] },
          leaf('AI_TOOLS_MUSIC', 0),
          leaf('AI_TOOLS_HOT', 0),
          leaf('AI_TOOLS_GALLERY', 0),
          leaf('AI_TOOLS_IMAGE', 0),
          leaf('AI_TOOLS_ORDER_PLATFORM', 0),
          leaf('AI_TOOLS_ORDER_PLATFORM_QUALITY', 0),
          leaf('ADMIN', 0)
        ]
      }
    })
  })

  it('refuses unknown application codes and anonymous callers', async () => {
    const { accessToken } = await ctx.h.login('13800138000')
    for (const [body, message] of [
      [{ appPermissionCode: 'AI_TOOLS_CHAT' }, 'appPermissionCode 不存在'],
      [{ appPermissionCode: 'NOPE' }, 'appPermissionCode 不存在'],
      [{}, 'appPermissionCode 不能为空'],
      [{ appPermissionCode: 1 }, 'appPermissionCode 格式不正确']
    ] as const) {
      expect((await ctx.h.post(TREE, body, { token: accessToken })).body).toEqual({ code: 40000001, message, data: null })
    }
    expect((await ctx.h.post(TREE, { appPermissionCode: 'AI_TOOLS' })).body.code).toBe(50011004)
  })
})

describe('tool permission gate', () => {
  it('lets accounts with the code through', async () => {
    const { accessToken, accountId } = await ctx.h.login('13800138000')
    const res = await ctx.h.post(`/api/v1/test/chat`, { text: 'hi' }, { token: accessToken })
    expect(res.body).toEqual({ code: 2000, message: '操作成功', data: { echo: 'hi', accountId } })
  })

  it('refuses accounts without the code, naming the tool', async () => {
    const { accessToken } = await ctx.h.login('13800138000')
    const res = await ctx.h.post('/api/v1/test/music', {}, { token: accessToken })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ code: 40300001, message: '您没有使用「AI音乐」的权限', data: null })
    const stream = await ctx.h.request('/api/v1/test/stream', { headers: { Authorization: `Bearer ${accessToken}` } })
    expect(stream.status).toBe(403)
    expect(stream.body.message).toBe('您没有使用「AI音乐」的权限')
    expect((await ctx.h.request('/api/v1/test/stream')).body.code).toBe(50011004)
  })

  it('takes the tool name from the operator override of system.json', async () => {
    const { accessToken } = await ctx.h.login('13800138000')
    mkdirSync(join(ctx.h.config.dataDir, 'config'), { recursive: true })
    writeFileSync(
      join(ctx.h.config.dataDir, 'config', 'system.json'),
      JSON.stringify({ permissionCodes: { AI_TOOLS_MUSIC: { icon: 'music', path: '/music', permissionName: '灵犀音乐' } }, pathMap: {} })
    )
    expect((await ctx.h.post('/api/v1/test/music', {}, { token: accessToken })).body.message).toBe('您没有使用「灵犀音乐」的权限')
  })

  it('refuses accounts whose state is 0, even with the code', async () => {
    const { accessToken, accountId } = await ctx.h.login('13800138000')
    await ctx.db.db.update(accounts).set({ state: 0 }).where(eq(accounts.id, accountId))
    const res = await ctx.h.post('/api/v1/test/chat', { text: 'hi' }, { token: accessToken })
    expect(res.body).toEqual({ code: 40300001, message: '账号已过期', data: null })
    // They can still see who they are.
    expect((await ctx.h.post<{ state: number }>('/api/v1/user/info', {}, { token: accessToken })).body.data.state).toBe(0)
  })

  it('checks login before permission, and permission before the body', async () => {
    expect((await ctx.h.post('/api/v1/test/chat', { text: 'hi' })).body.code).toBe(50011004)
    const { accessToken } = await ctx.h.login('13800138000')
    expect((await ctx.h.post('/api/v1/test/music', '{oops', { token: accessToken })).body.code).toBe(40300001)
  })
})
