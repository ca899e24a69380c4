import { createHash } from 'node:crypto'
import type { HotSettings } from '../../config.js'
import type { Db } from '../../db/database.js'
import type { Logger } from '../../logger.js'
import { defineModule, type ModuleDeps, type ModuleInstance } from '../module.js'
import { createDailyHotSource } from './dailyhot.js'
import { createDemoSources } from './demo.js'
import { createRssSource } from './rss.js'
import { registerHotRoutes } from './routes.js'
import { createHotService, type HotService } from './service.js'
import { HOT_PERMISSION, type HotSource } from './types.js'

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
export interface HotNewsOptions {
  /** Replaces the configured sources (tests). */
  sources?: HotSource[]
}

export interface HotNewsInstance extends ModuleInstance {
  hot: HotService
}

function createHotNews(deps: ModuleDeps, options: HotNewsOptions = {}): HotNewsInstance {
  const hot = createHot({ db: deps.db, settings: deps.config.hot, now: deps.now, logger: deps.logger, ...options })
  return {
    hot,
    routes: (api) => registerHotRoutes(api, hot, deps.replies),
    // Lists are fetched on their own schedule in a server; an app without start() fetches on demand.
    async start() {
      hot.start(deps.jobs)
    },
    close: () => hot.stop()
  }
}

/** Ranked lists from DailyHotApi-compatible sources and RSS, and AI 解读 of an item (a chat reply). */
export const hotNews = defineModule({
  name: 'hot-news',
  permissionCodes: [HOT_PERMISSION],
  allowanceKinds: ['tokens'],
  channelCodes: [HOT_PERMISSION],
  replyCodes: [HOT_PERMISSION],
  create: createHotNews
})
