import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { compress } from 'hono/compress'
import { requestId } from 'hono/request-id'
import { registerAuthRoutes } from './auth/routes.js'
import { createSmsSender } from './auth/sms-sender.js'
import { type ChatRuntime, createChat, registerChatRoutes } from './chat/index.js'
import type { Config } from './config.js'
import type { Db } from './db/database.js'
import { ApiError, envelope, SYSTEM_ERROR_MESSAGE } from './errors.js'
import { createMemoryBus } from './events/memory-bus.js'
import type { Api, App, AppEnv } from './http/api.js'
import { drainBody } from './http/drain-body.js'
import { buildOpenApi } from './http/openapi.js'
import { checkPath } from './http/path-check.js'
import { PUT_PREFIX as UPLOAD_PUT_PREFIX } from './images/index.js'
import { cors, noStore, securityHeaders } from './http/security.js'
import { staticSite } from './http/static-site.js'
import type { Kv } from './kv/kv.js'
import type { Logger } from './logger.js'
import { type PaintingDeps, registerPainting } from './painting/index.js'
import { registerPermissionRoutes } from './permissions/routes.js'
import { createConfigFiles } from './site/config-files.js'
import { registerConfigFileRoutes } from './site/routes.js'
import type { SmsProvider } from './sms/provider.js'
import { createStorage, type Storage } from './storage/index.js'
import { registerTools, type ToolsDeps } from './tools/index.js'
import { createMemoryQueue, type JobQueue } from './jobs/index.js'
import { registerUserRoutes } from './user/routes.js'
import { registerWechatLogin } from './wechat/login.js'

export const MAX_BODY_BYTES = 1024 * 1024

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
  /** Chat generations, their event bus and models; one on an in-memory bus when absent. */
  chat?: ChatRuntime
  /** Files (uploads, generated images and audio); local disk under DATA_DIR when absent. */
  storage?: Storage
  /** Background jobs; an in-process queue when absent (server.ts passes BullMQ when REDIS_URL is set). */
  jobs?: JobQueue
  /** Painting providers and runtime (demo painter when absent). */
  painting?: PaintingDeps
  /** Music, hot news and image-host providers (offline demos when absent). */
  tools?: ToolsDeps
  /** Registers more routes before the site fallback (tests add tool routes this way). */
  extend?: (api: Api) => void
}

export function createApp(deps: AppDeps): App {
  const { config, logger } = deps
  const now = deps.now ?? Date.now
  const app = new Hono<AppEnv>()
  const configFiles = createConfigFiles({ dataDir: config.dataDir, logger })
  const chat = deps.chat ?? createChat({ db: deps.db, config, bus: createMemoryBus(), logger, now })
  const api: Api = {
    app,
    bus: chat.bus,
    docs: [],
    db: deps.db,
    now,
    permissionName: configFiles.permissionName,
    checkResponses: deps.checkResponses ?? false,
    storage: deps.storage ?? createStorage(config),
    jobs: deps.jobs ?? createMemoryQueue({ logger })
  }

  // Outermost: whatever answers, a body left unread is read before the answer goes out (keep-alive).
  app.use(drainBody)
  app.use(requestId())
  app.use(securityHeaders)
  // From 256 bytes: the small lazy chunks of the embed (e.g. the 0.9 KB markdown component) go out gzip too.
  app.use(compress({ threshold: 256 }))
  app.use('/api/*', cors(config.corsOrigins), noStore)
  app.use('/config/*', cors(config.corsOrigins))
  // Path parameters are checked once for all routes, before any of them runs (its refusals still get
  // the headers above: CORS, nosniff, no-store).
  app.use(checkPath)
  const jsonBodyLimit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(40000003, '请求体过大，最大 1 MB')
    }
  })
  // Signed uploads carry files of up to 10 MB and cap their own size (images/uploads.ts).
  app.use('/api/*', (c, next) => (c.req.path.startsWith(UPLOAD_PUT_PREFIX) ? next() : jsonBodyLimit(c, next)))

  const sendCode = createSmsSender({
    db: deps.db,
    kv: deps.kv,
    sms: deps.sms,
    logger,
    now,
    hourlyPerPhone: config.sms.hourlyPerPhone,
    hourlyPerIp: config.sms.hourlyPerIp
  })
  registerAuthRoutes(api, config, sendCode)
  registerWechatLogin(api, config)
  registerUserRoutes(api)
  registerPermissionRoutes(api)
  registerChatRoutes(api, chat, config, logger)
  registerPainting(api, deps)
  // The chat runtime goes along: hot-news interpretations are chat replies.
  registerTools(api, { ...deps, chat })
  registerConfigFileRoutes(api, configFiles, {
    // Served as resolved: the env's models merged in, keys never included.
    'chatConfig.json': async () => `${JSON.stringify(await chat.models.read(), null, 2)}\n`,
    // wechatLogin: whether the login dialog offers WeChat (WECHAT_APP_ID and WECHAT_APP_SECRET set).
    'system.json': async () => {
      const { json } = await configFiles.read('system.json')
      return `${JSON.stringify({ ...(json as object), wechatLogin: Boolean(config.wechat.oauth) }, null, 2)}\n`
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

  return app
}
