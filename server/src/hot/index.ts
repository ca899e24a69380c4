import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { ChatRuntime } from '../chat/runtime.js'
import type { HotSettings } from '../config.js'
import type { Db } from '../db/database.js'
import { ApiError } from '../errors.js'
import { type Api, defineRoute } from '../http/api.js'
import { idField } from '../http/fields.js'
import type { Logger } from '../logger.js'
import { createDailyHotSource } from './dailyhot.js'
import { createDemoSources } from './demo.js'
import { startInterpretation } from './interpret.js'
import { createRssSource } from './rss.js'
import { createHotService, type HotService } from './service.js'
import { HOT_BASE, HOT_PERMISSION, type HotSource, hotListSchema, hotSourceSchema } from './types.js'

export type { HotService } from './service.js'

/** The sources of a configuration: DailyHotApi lists and feeds when configured, else the offline sample. */
export function hotSources(settings: HotSettings, now: () => number, sampleFile?: string): HotSource[] {
  const interval = settings.refreshSeconds ? settings.refreshSeconds * 1000 : undefined
  const sources: HotSource[] = []
  if (settings.apiUrl) {
    for (const route of settings.sources) {
      sources.push(createDailyHotSource({ baseUrl: settings.apiUrl, route, intervalMs: interval, timeoutMs: settings.timeoutMs }))
    }
  }
  for (const feed of settings.feeds) {
    const id = `rss-${createHash('sha1').update(feed.url).digest('hex').slice(0, 10)}`
    if (sources.some((s) => s.id === id)) continue
    sources.push(createRssSource({ id, feed, intervalMs: interval ?? 30 * 60_000, timeoutMs: settings.timeoutMs }))
  }
  if (sources.length > 0) return sources
  return createDemoSources({ now, ...(sampleFile ? { file: sampleFile } : {}), ...(interval ? { intervalMs: interval } : {}) })
}

export function createHot(options: {
  db: Db
  settings: HotSettings
  now: () => number
  logger: Logger
  /** Replaces the configured sources (tests). */
  sources?: HotSource[]
}): HotService {
  return createHotService({
    db: options.db,
    sources: options.sources ?? hotSources(options.settings, options.now),
    now: options.now,
    logger: options.logger
  })
}

const tag = 'hot'
const requiredItemId = idField('itemId')

export function registerHotRoutes(api: Api, hot: HotService, chat: ChatRuntime | undefined): void {
  const path = (p: string) => `${HOT_BASE}/${p}`

  defineRoute(
    api,
    path('sources'),
    { tag, summary: 'Hot-news sources with their cache state (demo: offline sample data)', body: z.object({}), permission: HOT_PERMISSION, response: z.array(hotSourceSchema) },
    async () => hot.sources()
  )

  defineRoute(
    api,
    path('list'),
    {
      tag,
      summary: "A source's ranked list; the last good list (stale: true) while the source fails",
      body: z.object({ sourceId: idField('sourceId') }),
      permission: HOT_PERMISSION,
      response: hotListSchema
    },
    async ({ body }) => hot.list(body.sourceId)
  )

  defineRoute(
    api,
    path('interpret'),
    {
      tag,
      summary: 'Starts a chat reply interpreting one item (topic 热点解读); streamed at ai-chat/sse/subscribe/{requestId}, charged to tokens',
      body: z.object({ sourceId: idField('sourceId'), itemId: requiredItemId }),
      auth: true,
      permission: HOT_PERMISSION,
      response: z.object({ requestId: z.string(), messageId: z.string(), replyId: z.string(), topicId: z.string() })
    },
    async ({ body, auth }) => {
      if (!chat) throw new ApiError(50000000, '对话服务未启动')
      const { source, item } = await hot.item(body.sourceId, body.itemId)
      return startInterpretation({ db: api.db, runtime: chat, now: api.now, auth, source, item })
    }
  )
}

/** Hot-news routes over the service given in deps.tools.hot (the server's, with its schedule), else one fetched on demand. */
export function registerHot(api: Api, deps: { db: Db; config: { hot: HotSettings }; logger: Logger; chat?: ChatRuntime | undefined; hot?: HotService | undefined }): HotService {
  const hot = deps.hot ?? createHot({ db: deps.db, settings: deps.config.hot, now: api.now, logger: deps.logger })
  registerHotRoutes(api, hot, deps.chat)
  return hot
}
