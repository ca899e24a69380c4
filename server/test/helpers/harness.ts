import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { count, ne, sql } from 'drizzle-orm'
import { type AppDeps, composeApp } from '../../src/app.js'
import { announceAccountChanged } from '../../src/auth/session-cache.js'
import { createChat } from '../../src/replies/index.js'
import type { ChatRuntimeOptions } from '../../src/replies/runtime.js'
import { loadConfig } from '../../src/config.js'
import { accounts, allowances, balanceLog, sessions, smsCodes } from '../../src/db/schema.js'
import type { EventBus } from '../../src/events/bus.js'
import { createMemoryBus, createRedisBus } from '../../src/events/index.js'
import type { Api } from '../../src/http/api.js'
import { createMemoryKv, createRedisKv, type Kv } from '../../src/kv/index.js'
import type { Logger } from '../../src/logger.js'
import { createConsoleSmsProvider } from '../../src/sms/console-provider.js'
import { ADJUSTED } from './allowances.js'
import type { TestDatabase } from './database.js'
import { dropRedisKeys } from './redis.js'

export interface LogEntry {
  level: string
  message: string
  fields?: Record<string, unknown>
}

export function memoryLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = []
  const push = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    entries.push(fields ? { level, message, fields } : { level, message })
  }
  return { entries, info: push('info'), warn: push('warn'), error: push('error') }
}

/** A clock tests move by hand. Starts at real time so Redis keys expire sensibly too. */
export function testClock() {
  let t = Date.now()
  return {
    now: () => t,
    advance(ms: number) {
      t += ms
    }
  }
}

/**
 * The memory store by default; with REDIS_URL, Redis under a key prefix of its own, whose keys
 * are deleted on close.
 */
export function testKv(now: () => number): Kv {
  const url = process.env.REDIS_URL
  if (!url) return createMemoryKv(now)
  const prefix = `lingxi_t_${randomBytes(6).toString('hex')}:`
  const kv = createRedisKv({ url, prefix, now })
  return {
    ...kv,
    async close() {
      try {
        await dropRedisKeys(url, prefix)
      } finally {
        await kv.close()
      }
    }
  }
}

/**
 * The in-memory bus by default; with REDIS_URL, Redis under a key prefix of its own, whose keys
 * are deleted on close.
 */
export function testBus(options: { retentionMs?: number } = {}): EventBus & { prefix?: string } {
  const url = process.env.REDIS_URL
  if (!url) return createMemoryBus(options)
  const prefix = `lingxi_t_${randomBytes(6).toString('hex')}:`
  const bus = createRedisBus({ url, prefix, ...options })
  return {
    ...bus,
    prefix,
    async close() {
      await bus.close()
      await dropRedisKeys(url, prefix)
    }
  }
}

export type ChatTuning = Partial<Pick<ChatRuntimeOptions, 'providers' | 'flushIntervalMs' | 'flushBytes' | 'stopWaitMs'>> & {
  /** Comment heartbeat of the app's event streams. */
  heartbeatMs?: number
}

export interface HarnessOptions {
  /** Chat runtime settings (heartbeat, flush rate, injected providers). */
  chat?: ChatTuning
  env?: Record<string, string>
  extend?: (api: Api) => void
  staticRoot?: string
  sms?: AppDeps['sms']
  /** The tools (default: the module list). */
  modules?: AppDeps['modules']
}

export interface Reply<T = unknown> {
  status: number
  headers: Headers
  body: { code: number; message: string; data: T }
}

export const TEST_ADDRESS = '203.0.113.7'

/**
 * The app over a test database, with a movable clock, a console SMS provider whose lines are
 * captured exactly as they would appear on stdout, and request helpers.
 */
export function createHarness(database: TestDatabase, options: HarnessOptions = {}) {
  const clock = testClock()
  const kv = testKv(clock.now)
  const logger = memoryLogger()
  const smsLines: string[] = []
  const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-data-'))
  const config = loadConfig({ DATA_DIR: dataDir, CHAT_DEMO_DELAY_MS: '0', ...options.env })
  const bus = testBus()
  const { heartbeatMs, ...tuning } = options.chat ?? {}
  const chat = createChat({ db: database.db, config, bus, logger, now: clock.now, ...tuning })
  const {
    app,
    modules,
    streams,
    sessions: sessionCache,
    health
  } = composeApp({
    chat,
    db: database.db,
    config,
    sms: options.sms ?? createConsoleSmsProvider((line) => smsLines.push(line)),
    kv,
    logger,
    now: clock.now,
    checkResponses: true,
    ...(heartbeatMs ? { heartbeatMs } : {}),
    ...(options.modules ? { modules: options.modules } : {}),
    ...(options.staticRoot ? { staticRoot: options.staticRoot } : {}),
    ...(options.extend ? { extend: options.extend } : {})
  })

  async function request<T = unknown>(path: string, init: RequestInit & { address?: string } = {}): Promise<Reply<T>> {
    const { address, ...rest } = init
    const env = { incoming: { socket: { remoteAddress: address ?? TEST_ADDRESS } }, outgoing: {} }
    const res = await app.request(path, rest, env)
    const text = await res.text()
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined }
  }

  async function post<T = unknown>(
    path: string,
    body: unknown = {},
    opts: { token?: string; address?: string; headers?: Record<string, string> } = {}
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...opts.headers }
    if (opts.token !== undefined) headers.Authorization = `Bearer ${opts.token}`
    return request<T>(path, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...(opts.address ? { address: opts.address } : {})
    })
  }

  /** The code of the last SMS to this phone, read from the console line like the e2e test does. */
  function lastCode(phone: string, enCode = '86'): string | undefined {
    for (let i = smsLines.length - 1; i >= 0; i--) {
      const match = /^\[sms\] \+(\d+) (\d+) (\d{4})\n$/.exec(smsLines[i] ?? '')
      if (match && match[1] === enCode && match[2] === phone) return match[3]
    }
    return undefined
  }

  async function sendCode(phone: string, enCode = '86', address?: string) {
    return post<{ withoutCode: 0 | 1 }>('/api/v1/auth/send-sms-code', { enCode, phone, smsType: 'LOGIN', imgVerifyState: 1 }, address ? { address } : {})
  }

  async function login(phone: string, enCode = '86') {
    const sent = await sendCode(phone, enCode)
    if (sent.body.code !== 2000) throw new Error(`send-sms-code failed: ${JSON.stringify(sent.body)}`)
    const code = lastCode(phone, enCode)
    const res = await post<{ accessToken: string; accountId: string; phone: string }>('/api/v1/auth/login', {
      enCode,
      phone,
      code,
      platform: 'PC'
    })
    if (res.body.code !== 2000) throw new Error(`login failed: ${JSON.stringify(res.body)}`)
    // Later sends to this phone must not trip the resend window of this one.
    clock.advance(61_000)
    return res.body.data
  }

  /** Row counts and totals that a refused request must leave as they were. */
  async function snapshot() {
    const db = database.db
    const [a] = await db.select({ n: count() }).from(accounts)
    const [l] = await db
      .select({
        n: count(),
        tokens: sql<string>`coalesce(sum(${allowances.balance}) filter (where ${allowances.kind} = 'tokens'), 0)`,
        total: sql<string>`coalesce(sum(${allowances.balance} + ${allowances.held}), 0)`
      })
      .from(allowances)
    const [s] = await db.select({ n: count(), revoked: sql<number>`count(${sessions.revokedAt})::int` }).from(sessions)
    const [c] = await db
      .select({ n: count(), used: sql<number>`count(${smsCodes.usedAt})::int`, attempts: sql<string>`coalesce(sum(${smsCodes.attempts}), 0)` })
      .from(smsCodes)
    // The app's lines: a test's own balance settings (测试调整) are not what is being checked.
    const [b] = await db.select({ n: count() }).from(balanceLog).where(ne(balanceLog.reason, ADJUSTED))
    return {
      accounts: a?.n,
      /** Spendable tokens of every account. */
      tokens: Number(l?.tokens),
      allowanceRows: l?.n,
      allowances: Number(l?.total),
      sessions: s?.n,
      revoked: s?.revoked,
      codes: c?.n,
      usedCodes: c?.used,
      attempts: Number(c?.attempts),
      balanceLog: b?.n,
      sms: smsLines.length
    }
  }

  return {
    app,
    config,
    clock,
    kv,
    chat,
    modules,
    streams,
    /** The chat runtime's counts, and the event streams open in this app. */
    stats: () => ({ ...chat.stats(), subscribers: streams.open.size }),
    bus,
    logger,
    smsLines,
    request,
    post,
    sendCode,
    lastCode,
    login,
    snapshot,
    sessionCache,
    /** /healthz and /readyz (stopping() as at shutdown). */
    health,
    /**
     * Announces a change a test made to accounts straight in the database, as the server's own
     * changes and the CLI's are announced: their cached sessions are read again (auth/session-cache.ts).
     */
    accountChanged: (...accountIds: string[]) => announceAccountChanged(bus, sessionCache, accountIds),
    async close() {
      await chat.close()
      streams.closeAll()
      await bus.close()
      await kv.close()
    }
  }
}

export type Harness = ReturnType<typeof createHarness>
