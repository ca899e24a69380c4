import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import { ApiError } from '../errors.js'
import type { Logger } from '../logger.js'
import { createAliyunModeration } from './aliyun.js'
import { createModerationLog } from './log.js'
import { createOpenAiModeration } from './openai.js'
import { blockedMessage, CONTENT_BLOCKED, createModerator, type Moderator, NO_MODERATION } from './pipeline.js'
import type { ModerationSettings } from './settings.js'
import { createTencentModeration } from './tencent.js'
import type { ModerationKind, TextProvider } from './types.js'
import { liveWordsOf } from './word-store.js'

export { blockedMessage, CONTENT_BLOCKED, type Moderator, NO_MODERATION } from './pipeline.js'
export type { ModerationKind } from './types.js'

/** The providers the settings name, in their order. */
export function providersOf(settings: ModerationSettings): TextProvider[] {
  const { timeoutMs } = settings
  return settings.providers.flatMap((name): TextProvider[] => {
    // Live: the console edits it while the service runs (word-store.ts).
    if (name === 'words') return [liveWordsOf(settings)]
    if (name === 'aliyun' && settings.aliyun) return [createAliyunModeration({ ...settings.aliyun, timeoutMs })]
    if (name === 'tencent' && settings.tencent) return [createTencentModeration({ ...settings.tencent, timeoutMs })]
    if (name === 'openai' && settings.openai) return [createOpenAiModeration({ ...settings.openai, timeoutMs })]
    return []
  })
}

const made = new WeakMap<Db, WeakMap<ModerationSettings, Moderator>>()

/**
 * The moderator of one app (its database and settings), made on first use and shared by every
 * module and the reply pipeline: NO_MODERATION when no provider is configured (the default).
 */
export function moderatorFor(deps: { config: Pick<Config, 'moderation'>; db: Db; logger: Logger; now?: () => number }): Moderator {
  const settings = deps.config.moderation
  if (!settings || settings.providers.length === 0) return NO_MODERATION
  let bySettings = made.get(deps.db)
  if (!bySettings) {
    bySettings = new WeakMap()
    made.set(deps.db, bySettings)
  }
  let moderator = bySettings.get(settings)
  if (!moderator) {
    moderator = createModerator({
      providers: providersOf(settings),
      failModes: settings.failModes,
      windowChars: settings.windowChars,
      log: createModerationLog({ db: deps.db, logger: deps.logger, now: deps.now ?? Date.now, retentionDays: settings.retentionDays }),
      logger: deps.logger
    })
    bySettings.set(settings, moderator)
  }
  return moderator
}

/** An input to check before a request goes on: `what` names it in the refusal (昵称, 提示词…). */
export type FieldCheck = { kind: ModerationKind; text: string | null | undefined; source: string; what: string }

/**
 * Checks a request's texts together (empty ones skipped) and throws the 42200001 envelope if any is
 * blocked: called before anything is charged, stored or sent upstream. Free when moderation is off.
 */
export async function assertTexts(moderator: Moderator, accountId: string | null, fields: readonly FieldCheck[]): Promise<void> {
  if (!moderator.enabled) return
  const results = await Promise.all(
    fields.map((f) => (f.text?.trim() ? moderator.check({ kind: f.kind, text: f.text, source: f.source, accountId }) : undefined))
  )
  const blocked = results.findIndex((r) => r?.verdict === 'block')
  if (blocked >= 0) throw new ApiError(CONTENT_BLOCKED, blockedMessage(fields[blocked]!.what))
}
