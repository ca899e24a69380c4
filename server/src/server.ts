import { existsSync, mkdirSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { createApp } from './app.js'
import { type Config, loadConfig } from './config.js'
import { type Database, openDatabase } from './db/database.js'
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
  try {
    mkdirSync(config.dataDir, { recursive: true })
    database = await openDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir, owner: 'server' })
    await database.migrate()
    kv = createKv({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger })
  } catch (error) {
    await kv?.close().catch(() => {})
    await database?.close().catch(() => {})
    throw error
  }
  const db = database
  const store = kv

  const staticRoot = existsSync(config.staticRoot) ? config.staticRoot : undefined
  const app = createApp({
    db: db.db,
    config,
    sms: options.sms ?? createSmsProvider(config.sms),
    kv: store,
    logger,
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
    await store.close().catch(() => {})
    await db.close().catch(() => {})
    throw error
  }

  const { port } = server.address() as AddressInfo
  const url = `http://${hostForUrl(config.host)}:${port}`
  console.log(`Lingxi is running at ${url}`)
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
        server.closeIdleConnections()
        // Requests still running get a moment to finish; then their sockets are cut.
        const force = setTimeout(() => server.closeAllConnections(), 3000)
        force.unref()
        await closed
        clearTimeout(force)
        await store.close().catch((error) => logger.error('closing the kv store failed', { error }))
        await db.close()
      })()
      return closing
    }
  }
}
