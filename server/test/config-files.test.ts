import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useHarness } from './helpers/database-hooks.js'
import { createHarness } from './helpers/harness.js'

const ctx = useHarness()

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await ctx.h.app.request(path, { headers })
  return { res, text: await res.text() }
}

describe('config files', () => {
  it('serves system.json with every permission code, no-cache, ignoring ?t', async () => {
    const { res, text } = await get(`/config/system.json?t=${Date.now()}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    const system = JSON.parse(text)
    expect(system.siteName).toBe('灵犀')
    expect(system.permissionCodes.AI_TOOLS_CHAT).toEqual({ icon: 'chat', path: '/chat', permissionName: 'AI对话' })
    expect(system.permissionCodes.AI_TOOLS_SD).toEqual({ icon: 'painting', path: '/sd', permissionName: 'SD绘画' })
    expect(system.permissionCodes.AI_TOOLS_ORDER_PLATFORM_QUALITY).toEqual({ icon: 'quality', path: '/miracleOrders', permissionName: '优质接单平台' })
    // The ten tools and the operator console (ADMIN, /admin).
    expect(Object.keys(system.permissionCodes)).toHaveLength(11)
    expect(system.pathMap.production['/mjHelper']).toBe('AI_TOOLS_PAINTING')
  })

  it('serves chatConfig.json and MJHelper.json', async () => {
    const chat = JSON.parse((await get('/config/chatConfig.json?t=1')).text)
    expect(chat).toEqual({
      models: [
        {
          id: 'lingxi-demo',
          name: '灵犀演示模型（离线）',
          provider: 'demo',
          contextLength: 8192,
          price: { input: 1, output: 1 },
          description: expect.stringContaining('离线演示模型'),
          // The demo model takes images (it describes them), so attachments work offline.
          vision: true
        }
      ],
      defaultModel: 'lingxi-demo',
      defaultTemperature: 0.7,
      contextEnabled: true
    })
    const mj = JSON.parse((await get('/config/MJHelper.json')).text)
    expect(mj.categories.length).toBeGreaterThanOrEqual(5)
    for (const category of mj.categories) {
      expect(category.items.length).toBeGreaterThanOrEqual(8)
      for (const item of category.items) expect(item).toEqual({ label: expect.any(String), value: expect.any(String) })
    }
  })

  it('lists the OPENAI_MODELS of the environment in chatConfig.json, without the key', async () => {
    await ctx.h.close()
    ctx.h = createHarness(ctx.db, {
      env: { OPENAI_API_KEY: 'sk-very-secret-key', OPENAI_BASE_URL: 'https://llm.internal/v1', OPENAI_MODELS: 'qwen-plus,deepseek-chat' }
    })
    const { text } = await get('/config/chatConfig.json')
    expect(JSON.parse(text).models.map((m: { id: string; provider: string }) => `${m.provider}:${m.id}`)).toEqual([
      'demo:lingxi-demo',
      'openai:qwen-plus',
      'openai:deepseek-chat'
    ])
    expect(text).not.toContain('sk-very-secret-key')
    expect(text).not.toContain('llm.internal')
  })

  it('answers 304 to a matching ETag', async () => {
    const { res } = await get('/config/system.json')
    const etag = res.headers.get('etag')
    expect(etag).toBeTruthy()
    expect((await get('/config/system.json?t=2', { 'If-None-Match': etag! })).res.status).toBe(304)
  })

  it('serves the operator override from DATA_DIR/config, and the default when it is broken', async () => {
    const dir = join(ctx.h.config.dataDir, 'config')
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, 'chatConfig.json'),
      JSON.stringify({ models: [{ id: 'mine', name: '我的演示', provider: 'demo', contextLength: 4096 }], defaultModel: 'mine', defaultTemperature: 0.3 })
    )
    const chat = JSON.parse((await get('/config/chatConfig.json')).text)
    expect(chat).toMatchObject({ defaultModel: 'mine', defaultTemperature: 0.3, contextEnabled: true })
    expect(chat.models).toEqual([
      { id: 'mine', name: '我的演示', provider: 'demo', contextLength: 4096, price: { input: 1, output: 1 }, description: expect.any(String), vision: true }
    ])
    // The other files keep their defaults.
    expect(JSON.parse((await get('/config/system.json')).text).siteName).toBe('灵犀')

    writeFileSync(join(dir, 'chatConfig.json'), '{ broken')
    expect(JSON.parse((await get('/config/chatConfig.json')).text).defaultModel).toBe('lingxi-demo')
    expect(ctx.h.logger.entries.some((e) => e.level === 'error' && String(e.fields?.file).endsWith('chatConfig.json'))).toBe(true)
  })

  it('serves nothing else under /config', async () => {
    for (const path of ['/config/permission-tree.json', '/config/../package.json', '/config/']) {
      const { res } = await get(path)
      expect(res.status, path).toBe(404)
    }
  })
})
