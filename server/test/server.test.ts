import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../src/config.js'
import { DataDirBusyError } from '../src/db/data-dir-lock.js'
import { startServer } from '../src/server.js'
import { memoryLogger } from './helpers/harness.js'

afterEach(() => {
  vi.restoreAllMocks()
})

async function call<T>(url: string, path: string, body: unknown, token?: string) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' }
  if (token) headers.Authorization = `Bearer ${token}`
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
  return (await res.json()) as { code: number; message: string; data: T }
}

describe('startServer', () => {
  it('prints the URL first, logs in over HTTP with the code from stdout, and keeps data across restarts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-start-'))
    // Always the embedded database here, whatever the test run uses elsewhere.
    const config = { ...loadConfig({ DATA_DIR: dataDir, PORT: '1', STATIC_ROOT: join(dataDir, 'no-dist') }), port: 0 }
    const stdout: string[] = []
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void stdout.push(args.join(' ')))
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout.push(String(chunk).replace(/\n$/, ''))
      return true
    })
    const logger = memoryLogger()

    const server = await startServer({ config, logger })
    let accountId: string
    let token: string
    let topicId: string
    try {
      expect(stdout[0]).toMatch(/^Lingxi is running at http:\/\/127\.0\.0\.1:\d+$/)
      expect(server.url).toBe(stdout[0]!.slice('Lingxi is running at '.length))
      expect(existsSync(join(dataDir, 'pglite'))).toBe(true)

      expect((await call(server.url, '/api/v1/auth/send-sms-code', { enCode: '86', phone: '13800138000' })).code).toBe(2000)
      const line = stdout.find((l) => l.startsWith('[sms] '))
      const code = /^\[sms\] \+86 13800138000 (\d{4})$/.exec(line ?? '')?.[1]
      expect(code).toBeDefined()
      const login = await call<{ accessToken: string; accountId: string }>(server.url, '/api/v1/auth/login', {
        enCode: '86',
        phone: '13800138000',
        code,
        platform: 'H5'
      })
      expect(login.code).toBe(2000)
      accountId = login.data.accountId
      token = login.data.accessToken

      // A reply still being generated when the server stops ends as interrput, not streaming forever.
      const topic = await call<{ topicId: string }>(server.url, '/api/v1/ai-chat/topic/create', {}, token)
      topicId = topic.data.topicId
      expect((await call(server.url, '/api/v1/ai-chat/topic/message/send', { topicId, content: '你好' }, token)).code).toBe(2000)

      // While it runs, nothing else may open the embedded database.
      await expect(startServer({ config, logger })).rejects.toThrow(DataDirBusyError)
    } finally {
      await server.close()
    }
    expect(existsSync(join(dataDir, 'lingxi.lock'))).toBe(false)
    expect(logger.entries.find((e) => e.level === 'error')).toBeUndefined()

    const again = await startServer({ config, logger })
    try {
      // The account survived the restart: logging in again finds it.
      expect((await call(again.url, '/api/v1/auth/send-sms-code', { enCode: '86', phone: '13800138000' })).code).toBe(2000)
      const code = /^\[sms\] \+86 13800138000 (\d{4})$/.exec(stdout.filter((l) => l.startsWith('[sms] ')).at(-1) ?? '')?.[1]
      const login = await call<{ accountId: string }>(again.url, '/api/v1/auth/login', { enCode: '86', phone: '13800138000', code, platform: 'PC' })
      expect(login.data.accountId).toBe(accountId)
      const messages = await call<{ list: { role: string; status: string }[] }>(again.url, '/api/v1/ai-chat/topic/messages', { topicId }, token)
      expect(messages.data.list.map((m) => `${m.role}:${m.status}`)).toEqual(['assistant:interrput', 'user:complete'])
      // The public roles were seeded at start.
      const roles = await call<{ total: number }>(again.url, '/api/v1/ai-chat/role-play/list', {}, token)
      expect(roles.data.total).toBeGreaterThanOrEqual(30)
    } finally {
      await again.close()
    }
  })
})
