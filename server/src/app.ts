import { sql } from 'drizzle-orm'
import { Hono } from 'hono'
import { guardLogins, registerAdminRoutes } from './admin/http/index.js'
import { createAllowanceRegistry } from './allowances/registry.js'
import { registerAuthRoutes } from './auth/routes.js'
import { registerPartnerIdentify } from './auth/partner.js'
import { partnerOriginsOf } from './auth/partner-origin.js'
import { createSessionCache, type SessionCache } from './auth/session-cache.js'
import { createSmsSender } from './auth/sms-sender.js'
import type { Config } from './config.js'
import type { Db } from './db/database.js'
import { ApiError, envelope, SYSTEM_ERROR_MESSAGE } from './errors.js'
import type { EventBus } from './events/bus.js'
import { createMemoryBus } from './events/memory-bus.js'
import { registerAccountChannel } from './http/account-channel.js'
import { compressStep } from './http/compress.js'
import type { Api, App, AppEnv } from './http/api.js'
import { drainBody } from './http/drain-body.js'
import { buildOpenApi } from './http/openapi.js'
import { edge } from './http/edge.js'
import { checkPathStep } from './http/path-check.js'
import { corsStep, noStoreStep, securityStep } from './http/security.js'
import { createEventStreams, type EventStreams } from './http/sse.js'
import { bodyLimitStep } from './http/json-body.js'
import { type Health, registerHealthRoutes } from './http/health.js'
import { staticSite } from './http/static-site.js'
import { createMemoryQueue, type JobQueue } from './jobs/index.js'
import type { Kv } from './kv/kv.js'
import type { Logger } from './logger.js'
import { trackRequests } from './metrics/http.js'
import { type OpsOptions, readOpsEnv } from './metrics/options.js'
import { createMetrics, type Metrics } from './metrics/registry.js'
import { registerMetricsRoute } from './metrics/route.js'
import { MODULES } from './modules/index.js'
import type { ModuleDeps, ModuleInstance, ToolModule } from './modules/module.js'
import { registerPermissionRoutes } from './permissions/routes.js'
import { type ChatRuntime, createChat } from './replies/index.js'
import { createConfigFiles } from './site/config-files.js'
import { registerConfigFileRoutes } from './site/routes.js'
import type { SmsProvider } from './sms/provider.js'
import { createStorage, type Storage } from './storage/index.js'
import { registerFileRoutes } from './storage/routes.js'
import { moderatorFor } from './moderation/index.js'
import { startWordStore } from './moderation/word-store.js'
import { PUT_PREFIX as UPLOAD_PUT_PREFIX, registerUploadRoutes } from './storage/uploads.js'
import { registerUserRoutes } from './user/routes.js'
import { registerWechatLogin } from './wechat/login.js'

export const MAX_BODY_BYTES = 1024 * 1024

type KnownModule = (typeof MODULES)[number]
/** Per module of the list, by name: what replaces its configured providers and timings (tests). */
export type ModuleOptions = { [M in KnownModule as M['name']]?: M extends ToolModule<infer O, ModuleInstance> ? O : never }
/** The modules made for one app, by name. */
export type ModuleInstances = { [M in KnownModule as M['name']]: ReturnType<M['create']> } & Record<string, ModuleInstance>

export interface AppDeps {
  db: Db
  config: Config
  sms: SmsProvider
  kv: Kv
  logger: Logger
  /** The clock; tests move it. */
  now?: () => number
  /** The frontend build (dist/); the site and CDN files are served only when given. */
  staticRoot?: string
  /** Check handler results against their response schemas (tests). */
  checkResponses?: boolean
  /** The event bus; the chat runtime's when absent, else an in-memory one. */
  bus?: EventBus
  /** The chat reply pipeline (generations, models); one on the bus when absent. */
  chat?: ChatRuntime
  /** Files (uploads, generated images and audio); local disk under DATA_DIR when absent. */
  storage?: Storage
  /** Background jobs; an in-process queue when absent (server.ts passes BullMQ when REDIS_URL is set). */
  jobs?: JobQueue
  /** Comment heartbeat of event streams (default 15 s). */
  heartbeatMs?: number
  /** How long a session read from the database is reused (auth/session-cache.ts; default 5 s, 0: never). */
  sessionCacheMs?: number
  /** The tools; MODULES when absent (tests add a throwaway one). */
  modules?: readonly ToolModule<unknown, ModuleInstance>[]
  /** Replacements for the modules' configured providers and timings, by module name (tests). */
  moduleOptions?: ModuleOptions
  /** Registers more routes before the site fallback (tests add routes this way). */
  extend?: (api: Api) => void
  /** Metrics token and access log; from METRICS_TOKEN and ACCESS_LOG when absent (metrics/options.ts). */
  ops?: OpsOptions
}

export interface ComposedApp {
  app: App
  /** The modules made for this app, to sweep, start, resume and close (server.ts) or drive (tests). */
  modules: ModuleInstances
  /** The list they were made from, in order. */
  list: readonly { name: string; instance: ModuleInstance }[]
  /** Open event streams; closeAll() at shutdown, once the chat replies have ended. */
  streams: EventStreams
  /** Recently read sessions (auth/session-cache.ts). */
  sessions: SessionCache
  /** /healthz and /readyz; stopping() when shutdown begins. */
  health: Health
  /** What /metrics answers (metrics/registry.ts). */
  metrics: Metrics
}

export function createApp(deps: AppDeps): App {
  return composeApp(deps).app
}

/** The app: shared middleware and routes, then every module of the list, then the site fallback. */
export function composeApp(deps: AppDeps): ComposedApp {
  const { config, logger } = deps
  const now = deps.now ?? Date.now
  const app = new Hono<AppEnv>()
  const configFiles = createConfigFiles({ dataDir: config.dataDir, logger })
  const bus = deps.bus ?? deps.chat?.bus ?? createMemoryBus()
  const chat = deps.chat ?? createChat({ db: deps.db, config, bus, logger, now })
  const sessions = createSessionCache({ now, bus, ...(deps.sessionCacheMs !== undefined ? { ttlMs: deps.sessionCacheMs } : {}) })
  const api: Api = {
    app,
    bus,
    docs: [],
    db: deps.db,
    now,
    permissionName: configFiles.permissionName,
    checkResponses: deps.checkResponses ?? false,
    storage: deps.storage ?? createStorage(config),
    jobs: deps.jobs ?? createMemoryQueue({ logger }),
    sessions,
    partnerOrigins: partnerOriginsOf(config.partners)
  }
  const streams = createEventStreams({ bus, db: deps.db, now, logger, ...(deps.heartbeatMs ? { heartbeatMs: deps.heartbeatMs } : {}) })

  // Outermost: whatever answers, a body left unread is read before the answer goes out (keep-alive).
  app.use(drainBody)
  // Request id, log context, metrics and the access log (metrics/http.ts).
  const ops = deps.ops ?? readOpsEnv()
  const metrics = createMetrics({ openStreams: () => streams.open.size, jobDepths: () => api.jobs.depths() })
  app.use(trackRequests({ metrics, trustProxy: config.trustProxy, ...(ops.accessLog ? { accessLog: ops.accessLog } : {}) }))
  // Compression, the headers every answer carries, then what every API call is checked for, as one
  // layer (http/edge.ts). JSON and other whole bodies are compressed from 1 KB, at once with
  // node:zlib; site files (streams of a known length) from 256 bytes, so the small lazy chunks of the
  // embed (the 0.9 KB markdown component) go out gzip too. Path parameters are checked once for all
  // routes, before any of them runs (its refusals still get the headers before it: nosniff, CORS,
  // no-store). Signed uploads carry files of up to 10 MB and cap their own size (storage/uploads.ts).
  app.use(
    edge([
      compressStep({ threshold: 1024, streamThreshold: 256 }),
      securityStep,
      corsStep('/api', config.corsOrigins),
      noStoreStep('/api'),
      corsStep('/config', config.corsOrigins),
      checkPathStep,
      bodyLimitStep({
        under: '/api',
        except: UPLOAD_PUT_PREFIX,
        maxSize: MAX_BODY_BYTES,
        onError: () => {
          throw new ApiError(40000003, '请求体过大，最大 1 MB')
        }
      })
    ])
  )
  const health = registerHealthRoutes(app, {
    checks: {
      database: () => deps.db.execute(sql`select 1`),
      // A real round trip to Redis when it is configured (the in-memory store has nothing to fail).
      ...(config.redisUrl ? { redis: () => deps.kv.ttl('readyz') } : {})
    }
  })

  registerMetricsRoute(app, metrics, ops.metricsToken)

  const sendCode = createSmsSender({
    db: deps.db,
    kv: deps.kv,
    sms: deps.sms,
    logger,
    now,
    hourlyPerPhone: config.sms.hourlyPerPhone,
    hourlyPerIp: config.sms.hourlyPerIp
  })
  const list: readonly ToolModule<unknown, ModuleInstance>[] = deps.modules ?? MODULES
  // The allowance kinds are what the modules declare; a kind is added in its module alone.
  const allowances = createAllowanceRegistry(list, config.start)

  guardLogins(api)
  registerAuthRoutes(api, config, sendCode)
  registerWechatLogin(api, config)
  registerPartnerIdentify(api, config, deps.kv)
  registerUserRoutes(api, allowances, config)
  registerPermissionRoutes(api)
  registerFileRoutes(api, api.storage)
  registerUploadRoutes(api, { config, kv: deps.kv, moderator: moderatorFor({ config, db: deps.db, logger, now }) })
  registerAdminRoutes(api, { allowances, adminPhones: ops.adminPhones, chat, moderation: config.moderation })
  // The word list lives in the database, editable in the console; every node follows it (event bus).
  startWordStore({ settings: config.moderation, db: deps.db, bus, logger, now })

  const codes = (pick: (m: ToolModule<unknown, ModuleInstance>) => readonly string[] | undefined) => [...new Set(list.flatMap((m) => pick(m) ?? []))]
  registerAccountChannel(
    api,
    streams,
    codes((m) => m.channelCodes)
  )
  const moduleDeps: ModuleDeps = {
    config,
    db: deps.db,
    kv: deps.kv,
    logger,
    now,
    bus,
    jobs: api.jobs,
    storage: api.storage,
    replies: chat,
    streams,
    replyCodes: codes((m) => m.replyCodes),
    allowances
  }
  const made: { name: string; instance: ModuleInstance }[] = []
  const options = (deps.moduleOptions ?? {}) as Record<string, unknown>
  for (const module of list) {
    if (made.some((m) => m.name === module.name)) throw new Error(`two modules are named ${module.name}`)
    const instance = module.create(moduleDeps, options[module.name])
    instance.jobs?.(api.jobs)
    instance.routes(api)
    made.push({ name: module.name, instance })
  }
  registerConfigFileRoutes(api, configFiles, {
    // Served as resolved: the env's models merged in, keys never included.
    'chatConfig.json': async () => `${JSON.stringify(await chat.models.read(), null, 2)}\n`,
    // wechatLogin: whether the login dialog offers WeChat (the website app's QR login, or the official account's inside WeChat).
    'system.json': async () => {
      const { json } = await configFiles.read('system.json')
      return `${JSON.stringify({ ...(json as object), wechatLogin: Boolean(config.wechat.oauth || config.wechat.mp) }, null, 2)}\n`
    }
  })
  deps.extend?.(api)

  api.docs.push({ method: 'get', path: '/api/openapi.json', tag: 'meta', summary: 'This document', auth: false, contentType: 'application/json' })
  let openApi: string | undefined
  app.get('/api/openapi.json', (c) => {
    openApi ??= JSON.stringify(buildOpenApi(api.docs, config.publicUrl))
    return c.body(openApi, 200, { 'Content-Type': 'application/json; charset=utf-8' })
  })

  if (deps.staticRoot) app.use(staticSite(deps.staticRoot))

  app.notFound((c) => {
    const known = api.docs.filter((doc) => doc.path === c.req.path).map((doc) => doc.method.toUpperCase())
    if (known.length > 0) {
      const allow = known.includes('GET') ? [...known, 'HEAD'] : known
      throw new ApiError(40400001, `请求方法不支持，请使用 ${known.join(' 或 ')}`, {
        status: 405,
        headers: { Allow: allow.join(', ') }
      })
    }
    throw new ApiError(40400001, '接口不存在')
  })

  // The one place that turns an error into the envelope.
  app.onError((error, c) => {
    if (error instanceof ApiError) {
      return c.json(envelope(error.code, error.message, null), error.status, error.headers)
    }
    logger.error('unexpected error', { requestId: c.get('requestId'), method: c.req.method, path: c.req.path, error })
    return c.json(envelope(50000000, SYSTEM_ERROR_MESSAGE, null), 500)
  })

  return { app, modules: Object.fromEntries(made.map((m) => [m.name, m.instance])) as ModuleInstances, list: made, streams, sessions, health, metrics }
}
