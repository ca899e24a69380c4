import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import type { EventBus } from '../events/bus.js'
import type { Api } from '../http/api.js'
import type { Logger } from '../logger.js'
import { createConfigFiles } from '../site/config-files.js'
import { registerMessageRoutes } from './message-routes.js'
import { createChatModels } from './models.js'
import { registerRoleRoutes } from './roles.js'
import { type ChatRuntime, type ChatRuntimeOptions, createChatRuntime } from './runtime.js'
import { registerSseRoutes } from './sse.js'
import { registerTopicRoutes } from './topic-routes.js'

export type { ChatRuntime } from './runtime.js'
export { seedRoles } from './roles.js'

/** The chat runtime of a process: models from chatConfig.json + env, providers, the event bus. */
export function createChat(
  deps: { db: Db; config: Config; bus: EventBus; logger: Logger; now?: () => number } & Partial<
    Pick<ChatRuntimeOptions, 'providers' | 'flushIntervalMs' | 'flushBytes' | 'stopWaitMs' | 'heartbeatMs'>
  >
): ChatRuntime {
  const { db, config, bus, logger, now = Date.now, ...tuning } = deps
  const files = createConfigFiles({ dataDir: config.dataDir, logger })
  return createChatRuntime({ db, bus, models: createChatModels(files, config.chat, logger), settings: config.chat, logger, now, leaseMs: config.chatLeaseMs, nodeId: config.nodeId, ...tuning })
}

export function registerChatRoutes(api: Api, runtime: ChatRuntime, config: Config, logger: Logger): void {
  registerTopicRoutes(api, runtime)
  registerMessageRoutes(api, runtime)
  registerRoleRoutes(api, config.publicUrl)
  registerSseRoutes(api, runtime, logger)
}
