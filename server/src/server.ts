import { existsSync, mkdirSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { type AppDeps, type ComposedApp, composeApp } from './app.js'
import { type Config, configuredSecrets, loadConfig } from './config.js'
import { type Database, openDatabase } from './db/database.js'
import { scheduleMaintenance } from './db/maintenance.js'
import type { EventBus } from './events/bus.js'
import { createEventBus } from './events/index.js'
import { answerClientError } from './http/client-error.js'
import { createJobQueue, type JobQueue } from './jobs/index.js'
import { createKv } from './kv/index.js'
import type { Kv } from './kv/kv.js'
import { createConsoleLogger, type Logger, redactingLogger } from './logger.js'
import { prepareChannels } from './replies/channels.js'
import { type ChatRuntime, createChat } from './replies/index.js'
import { createSmsProvider } from './sms/index.js'
import type { SmsProvider } from './sms/provider.js'

export interface StartOptions {
  /** Defaults to loadConfig(process.env). */
  config?: Config
  logger?: Logger
  sms?: SmsProvider
  /** The tools (default: modules/index.ts); tests add a throwaway one. */
  modules?: AppDeps['modules']
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
    // Stored channels need CHANNEL_SECRET_KEY (refused without); an empty table gets OPENAI_* as channel #1.
    await prepareChannels(database.db, config.chat)
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
  let composed: ComposedApp | undefined
  /** Each module's step, in list order; a failure is logged and the others go on. */
  const each = async (step: 'sweep' | 'resume' | 'close', what: string) => {
    for (const { name, instance } of composed?.list ?? []) {
      try {
        const count = await instance[step]?.()
        if (typeof count === 'number' && count > 0) logger.warn('work the previous run left unfinished was ended', { module: name, count })
      } catch (error) {
        logger.error(`${what} failed`, { module: name, error })
      }
    }
  }
  /** Stops what started, when the server could not. */
  const abandon = async () => {
    await runtime.close().catch(() => {})
    composed?.streams.closeAll()
    await each('close', 'stopping a module')
    await queue.close().catch(() => {})
    await events.close().catch(() => {})
    await store.close().catch(() => {})
    await db.close().catch(() => {})
  }

  let server!: Server
  try {
    composed = composeApp({
      db: db.db,
      config,
      sms: options.sms ?? createSmsProvider(config.sms),
      kv: store,
      logger,
      bus: events,
      chat: runtime,
      jobs: queue,
      ...(options.modules ? { modules: options.modules } : {}),
      ...(staticRoot ? { staticRoot } : {})
    })
    // What the last run left unfinished that nothing will finish (painting on the memory queue: cut
    // off, refunded); then seed data and schedules. All before the first request.
    await each('sweep', 'sweeping unfinished work')
    for (const { instance } of composed.list) await instance.start?.()
    server = createAdaptorServer({ fetch: composed.app.fetch }) as Server
    // What Node's parser refuses (a raw control character in the path) is answered with the envelope too.
    server.on('clientError', answerClientError)
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(config.port, config.host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    await abandon()
    throw error
  }
  const { streams } = composed

  const { port } = server.address() as AddressInfo
  const url = `http://${hostForUrl(config.host)}:${port}`
  console.log(`Lingxi is running at ${url}`)
  // Several nodes: whichever survives ends the replies of a node that died mid-stream.
  const orphanSweep = config.databaseUrl
    ? setInterval(
        () => {
          runtime
            .sweep({ staleMs: config.chatLeaseMs })
            .then((count) => {
              if (count > 0) logger.warn('replies whose node stopped renewing them were marked interrput', { count })
            })
            .catch((error: unknown) => logger.error('sweeping orphaned replies failed', { error }))
        },
        Math.max(250, Math.floor(config.chatLeaseMs / 3))
      )
    : undefined
  orphanSweep?.unref()
  // The embedded database: ANALYZE now (after the migrations), VACUUM ANALYZE every few hours.
  const maintenance = scheduleMaintenance(db, logger)
  // Work the last run left (music polls, red packets): picked up again while requests are served.
  void each('resume', 'resuming unfinished work')
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
        // Load balancers stop sending new requests here while the ones in flight finish.
        composed.health.stopping()
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        clearInterval(orphanSweep)
        maintenance.stop()
        // Replies being generated end as interrput (saved, their final events sent), then open streams end.
        await runtime.close().catch((error: unknown) => logger.error('stopping chat generations failed', { error }))
        streams.closeAll()
        await each('close', 'stopping a module')
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
        await maintenance.running()
        await db.close()
      })()
      return closing
    }
  }
}
