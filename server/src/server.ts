import { existsSync, mkdirSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { createApp } from './app.js'
import { type ChatRuntime, createChat, seedRoles } from './chat/index.js'
import { type Config, configuredSecrets, loadConfig } from './config.js'
import { type Database, openDatabase } from './db/database.js'
import type { EventBus } from './events/bus.js'
import { createEventBus } from './events/index.js'
import { answerClientError } from './http/client-error.js'
import type { Kv } from './kv/kv.js'
import { createKv } from './kv/index.js'
import { createJobQueue, type JobQueue } from './jobs/index.js'
import { createHot } from './hot/index.js'
import type { MusicRuntime } from './music/index.js'
import type { OrdersRuntime } from './orders/index.js'
import { createConsoleLogger, type Logger, redactingLogger } from './logger.js'
import type { PaintingRuntime } from './painting/index.js'
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
  // Every configured secret is scrubbed from every log line, whichever logger writes them.
  const logger = options.logger ? redactingLogger(options.logger, configuredSecrets(config)) : createConsoleLogger({ config })

  let database: Database | undefined
  let kv: Kv | undefined
  let bus: EventBus | undefined
  let chat: ChatRuntime | undefined
  let jobs: JobQueue | undefined
  let swept = 0
  try {
    mkdirSync(config.dataDir, { recursive: true })
    database = await openDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir, owner: 'server' })
    await database.migrate()
    await seedRoles(database.db)
    kv = createKv({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger })
    bus = createEventBus({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger })
    chat = createChat({ db: database.db, config, bus, logger })
    jobs = createJobQueue({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger })
    // Nothing generates yet in this process: a reply still streaming was cut off by the last stop.
    // On a shared database other nodes may be generating: only replies whose lease ran out, and
    // this node's own (under its NODE_ID), which died with its last run — no need to wait for them.
    swept = await chat.sweep(config.databaseUrl ? { staleMs: config.chatLeaseMs, own: true } : {})
  } catch (error) {
    await chat?.close().catch(() => {})
    await jobs?.close().catch(() => {})
    await bus?.close().catch(() => {})
    await kv?.close().catch(() => {})
    await database?.close().catch(() => {})
    throw error
  }
  const db = database
  const store = kv
  const events = bus
  const runtime = chat
  const queue = jobs!

  const staticRoot = existsSync(config.staticRoot) ? config.staticRoot : undefined
  // Hot-news lists are fetched on their own schedule (started once the server listens).
  const hot = createHot({ db: db.db, settings: config.hot, now: Date.now, logger })
  let music: MusicRuntime | undefined
  let painting: PaintingRuntime | undefined
  let orders: OrdersRuntime | undefined
  const app = createApp({
    db: db.db,
    config,
    sms: options.sms ?? createSmsProvider(config.sms),
    kv: store,
    logger,
    chat: runtime,
    jobs: queue,
    tools: { hot, music: { onRuntime: (r) => (music = r) }, orders: { onRuntime: (r) => (orders = r) } },
    painting: { onRuntime: (r) => (painting = r) },
    ...(staticRoot ? { staticRoot } : {})
  })
  // Memory queue: painting tasks this process drew when it last stopped were cut off and end FAILURE
  // (refunded). BullMQ: their jobs are in Redis, maybe being drawn by another node; nothing ends.
  const paintingSwept = await painting?.sweep().catch((error: unknown) => {
    logger.error('painting sweep failed', { error })
    return 0
  })
  if (paintingSwept) logger.warn('painting tasks left running by the previous run were marked FAILURE', { count: paintingSwept })

  const server = createAdaptorServer({ fetch: app.fetch }) as Server
  // What Node's parser refuses (a raw control character in the path) is answered with the envelope too.
  server.on('clientError', answerClientError)
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(config.port, config.host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    await painting?.close().catch(() => {})
    await runtime.close().catch(() => {})
    await queue.close().catch(() => {})
    await events.close().catch(() => {})
    await store.close().catch(() => {})
    await db.close().catch(() => {})
    throw error
  }

  const { port } = server.address() as AddressInfo
  const url = `http://${hostForUrl(config.host)}:${port}`
  console.log(`Lingxi is running at ${url}`)
  hot.start(queue)
  // Several nodes: whichever survives ends the replies of a node that died mid-stream.
  const orphanSweep = config.databaseUrl
    ? setInterval(() => {
        runtime
          .sweep({ staleMs: config.chatLeaseMs })
          .then((count) => {
            if (count > 0) logger.warn('replies whose node stopped renewing them were marked interrput', { count })
          })
          .catch((error: unknown) => logger.error('sweeping orphaned replies failed', { error }))
      }, Math.max(250, Math.floor(config.chatLeaseMs / 3)))
    : undefined
  orphanSweep?.unref()
  // Music requests left unfinished by the last run (or whose jobs Redis lost) are polled again (or end,
  // refunded, when too old); a request still scheduled keeps its one poll per round.
  void music?.resume().catch((error: unknown) => logger.error('resuming music requests failed', { error }))
  // Red packets being paid or followed by the last run (memory queue only; BullMQ keeps them in Redis).
  void orders?.resume().catch((error: unknown) => logger.error('resuming red packet jobs failed', { error }))
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
        clearInterval(orphanSweep)
        // Replies being generated end as interrput (saved and charged), then open streams end.
        await runtime.close().catch((error: unknown) => logger.error('stopping chat generations failed', { error }))
        await music?.close().catch((error: unknown) => logger.error('stopping music polls failed', { error }))
        await hot.stop().catch((error: unknown) => logger.error('stopping hot news fetches failed', { error }))
        await painting?.close().catch((error: unknown) => logger.error('stopping painting jobs failed', { error }))
        // Running jobs finish; with BullMQ, waiting and delayed ones stay in Redis for the other nodes.
        await queue.close().catch((error: unknown) => logger.error('closing the job queue failed', { error }))
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
