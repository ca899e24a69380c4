import { existsSync, mkdirSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { createApp } from './app.js'
import { type ChatRuntime, createChat, seedRoles } from './chat/index.js'
import { type Config, loadConfig } from './config.js'
import { type Database, openDatabase } from './db/database.js'
import type { EventBus } from './events/bus.js'
import { createEventBus } from './events/index.js'
import type { Kv } from './kv/kv.js'
import { createKv } from './kv/index.js'
import { createConsoleLogger, type Logger } from './logger.js'
import { createSmsProvider } from './sms/index.js'
import type { SmsProvider } from './sms/provider.js'

export interface StartOptions {
  /** Defaults to loadConfig(process.env). */
  config?: Config
  logger?: Logger
  sms?: SmsProvider
}

export interface RunningServer {
  /** e.g. http://127.0.0.1:8787 */
  url: string
  config: Config
  /** Stops accepting requests, then closes Redis and the database. */
  close(): Promise<void>
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}

/** Opens the database, migrates, listens; prints `Lingxi is running at <url>` as its first line. */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const config = options.config ?? loadConfig()
  const logger = options.logger ?? createConsoleLogger()

  let database: Database | undefined
  let kv: Kv | undefined
  let bus: EventBus | undefined
  let chat: ChatRuntime | undefined
  let swept = 0
  try {
    mkdirSync(config.dataDir, { recursive: true })
    database = await openDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir, owner: 'server' })
    await database.migrate()
    await seedRoles(database.db)
    kv = createKv({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger })
    bus = createEventBus({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger })
    chat = createChat({ db: database.db, config, bus, logger })
    // Nothing generates yet in this process: a reply still streaming was cut off by the last stop.
    swept = await chat.sweep()
  } catch (error) {
    await chat?.close().catch(() => {})
    await bus?.close().catch(() => {})
    await kv?.close().catch(() => {})
    await database?.close().catch(() => {})
    throw error
  }
  const db = database
  const store = kv
  const events = bus
  const runtime = chat

  const staticRoot = existsSync(config.staticRoot) ? config.staticRoot : undefined
  const app = createApp({
    db: db.db,
    config,
    sms: options.sms ?? createSmsProvider(config.sms),
    kv: store,
    logger,
    chat: runtime,
    ...(staticRoot ? { staticRoot } : {})
  })

  const server = createAdaptorServer({ fetch: app.fetch }) as Server
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(config.port, config.host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    await runtime.close().catch(() => {})
    await events.close().catch(() => {})
    await store.close().catch(() => {})
    await db.close().catch(() => {})
    throw error
  }

  const { port } = server.address() as AddressInfo
  const url = `http://${hostForUrl(config.host)}:${port}`
  console.log(`Lingxi is running at ${url}`)
  if (swept > 0) logger.warn('replies left streaming by the previous run were marked interrput', { count: swept })
  if (!staticRoot) logger.info(`no frontend build at ${config.staticRoot}; serving the API only`)
  if (config.production && config.sms.provider === 'console') {
    logger.warn('SMS_PROVIDER is console in production: login codes go to stdout, not to phones')
  }

  let closing: Promise<void> | undefined
  return {
    url,
    config,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        // Replies being generated end as interrput (saved and charged), then open streams end.
        await runtime.close().catch((error: unknown) => logger.error('stopping chat generations failed', { error }))
        server.closeIdleConnections()
        // Requests still running get a moment to finish; then their sockets are cut.
        const force = setTimeout(() => server.closeAllConnections(), 3000)
        force.unref()
        await closed
        clearTimeout(force)
        await events.close().catch((error: unknown) => logger.error('closing the event bus failed', { error }))
        await store.close().catch((error) => logger.error('closing the kv store failed', { error }))
        await db.close()
      })()
      return closing
    }
  }
}
