import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import type { EventBus } from '../events/bus.js'
import type { Logger } from '../logger.js'
import { moderatorFor } from '../moderation/index.js'
import { createConfigFiles } from '../site/config-files.js'
import { createChannels } from './channels.js'
import { createChatModels } from './models.js'
import { type ChatRuntime, type ChatRuntimeOptions, createChatRuntime } from './runtime.js'

export type { ChatRuntime } from './runtime.js'

/**
 * The chat reply pipeline of a process: models from chatConfig.json + env, providers, generation on
 * the event bus, token holds and charges. Shared: chat answers with it, and so do the tools whose
 * features are chat replies (hot news' 解读, order drafts, see tool-reply.ts).
 */
export function createChat(
  deps: { db: Db; config: Config; bus: EventBus; logger: Logger; now?: () => number } & Partial<
    Pick<ChatRuntimeOptions, 'providers' | 'flushIntervalMs' | 'flushBytes' | 'stopWaitMs'>
  >
): ChatRuntime {
  const { db, config, bus, logger, now = Date.now, providers, ...tuning } = deps
  const files = createConfigFiles({ dataDir: config.dataDir, logger })
  // The `openai` models go through the upstream channels (channels.ts), which also add models and prices.
  const channels = createChannels({ db, settings: config.chat, logger, now })
  const runtime = createChatRuntime({
    db,
    bus,
    models: createChatModels(files, config.chat, logger, channels.catalog),
    providers: { openai: channels.provider, ...providers },
    settings: config.chat,
    logger,
    now,
    leaseMs: config.chatLeaseMs,
    nodeId: config.nodeId,
    moderation: moderatorFor({ config, db, logger, now }),
    ...tuning
  })
  return Object.assign(runtime, { channels })
}
