import { ApiError } from '../errors.js'
import type { Logger } from '../logger.js'
import type { ModerationLogWriter } from './log.js'
import type { FailMode } from './settings.js'
import { createHash } from 'node:crypto'
import { type ImageCheck, type ModerationKind, type ModerationResult, ModerationUnavailable, SEVERITY, type TextProvider } from './types.js'

/** The envelope's code for input refused by moderation (HTTP 422), and its message. */
export const CONTENT_BLOCKED = 42200001
export const blockedMessage = (what = '内容') => `${what}包含违规信息，请修改后重试`

export interface CheckInput {
  kind: ModerationKind
  text: string
  /** Where the text was going (chat.message, painting.prompt, user.nickname…), for the log. */
  source: string
  accountId?: string | null
  /** Review verdicts are not logged (a stream already logged its first one). */
  quietReview?: boolean
}

/** An image before it is stored for others to see: a painting's result, an image-host upload. */
export interface ImageCheckInput extends ImageCheck {
  source: string
  accountId?: string | null
}

export interface Moderator {
  /** False when no provider is configured: every check passes at once, nothing is logged. */
  readonly enabled: boolean
  /** Streamed replies are checked every this many characters. */
  readonly windowChars: number
  check(input: CheckInput): Promise<ModerationResult>
  /** Throws the 42200001 envelope (`what` names the field: 昵称, 提示词…) when the text is blocked. */
  assertAllowed(input: CheckInput & { what?: string }): Promise<ModerationResult>
  /**
   * An image, by every configured provider that checks images (kind `image`, its fail mode):
   * a pass when none of them does (the word list reads no pictures).
   */
  checkImage(input: ImageCheckInput): Promise<ModerationResult>
}

const PASS: ModerationResult = { verdict: 'pass' }

/** Moderation off: no provider, no log, no cost. */
export const NO_MODERATION: Moderator = {
  enabled: false,
  windowChars: Number.POSITIVE_INFINITY,
  check: async () => PASS,
  assertAllowed: async () => PASS,
  checkImage: async () => PASS
}

/** Remote services cap one text: Aliyun's Plus scenes at 2000 characters, TMS at 5000 (15 000 bytes). */
const MAX_CHARS: Record<string, number> = { aliyun: 2000, tencent: 5000, openai: 8000 }

async function checkWith(provider: TextProvider, text: string, kind: ModerationKind): Promise<{ verdict: ModerationResult['verdict']; rule?: string }> {
  const max = MAX_CHARS[provider.name] ?? Number.POSITIVE_INFINITY
  if (text.length <= max) return provider.checkText(text, kind)
  let worst: { verdict: ModerationResult['verdict']; rule?: string } = { verdict: 'pass' }
  for (let i = 0; i < text.length && worst.verdict !== 'block'; i += max) {
    const part = await provider.checkText(text.slice(i, i + max), kind)
    if (SEVERITY[part.verdict] > SEVERITY[worst.verdict]) worst = part
  }
  return worst
}

/**
 * The pipeline: every configured provider looks at the text (at once), the worst verdict wins. A
 * provider that cannot answer is decided by the kind's fail mode: `closed` blocks, `open` lets the
 * text through as review. Anything but a clean pass goes to the moderation log.
 */
export function createModerator(deps: {
  providers: readonly TextProvider[]
  failModes: Record<ModerationKind, FailMode>
  windowChars: number
  log: ModerationLogWriter
  logger: Logger
}): Moderator {
  const { providers, failModes, log, logger } = deps
  if (providers.length === 0) return NO_MODERATION

  /** The worst of the answers; a provider that could not answer is decided by the kind's fail mode. */
  function decide(
    kind: ModerationKind,
    asked: readonly TextProvider[],
    answers: PromiseSettledResult<{ verdict: ModerationResult['verdict']; rule?: string }>[]
  ) {
    let result: ModerationResult = PASS
    const failures: string[] = []
    answers.forEach((answer, i) => {
      const provider = asked[i]!.name
      if (answer.status === 'rejected') {
        const reason = answer.reason instanceof ModerationUnavailable ? answer.reason.message : `${provider}: ${String(answer.reason).slice(0, 200)}`
        failures.push(reason)
        return
      }
      if (SEVERITY[answer.value.verdict] > SEVERITY[result.verdict]) result = { verdict: answer.value.verdict, provider, rule: answer.value.rule }
    })
    if (failures.length > 0) {
      logger.warn('a moderation provider could not answer; the fail mode decides', { kind, failures, mode: failModes[kind] })
      const failed = failures.join('; ')
      if (failModes[kind] === 'closed' && result.verdict !== 'block') result = { verdict: 'block', failed }
      else if (result.verdict === 'pass') result = { verdict: 'review', failed }
      else result = { ...result, failed }
    }
    return result
  }

  async function check(input: CheckInput): Promise<ModerationResult> {
    if (input.text.trim() === '') return PASS
    const answers = await Promise.allSettled(providers.map((p) => checkWith(p, input.text, input.kind)))
    const result = decide(input.kind, providers, answers)
    if (result.verdict === 'block' || (result.verdict === 'review' && !input.quietReview)) {
      await log.write({ kind: input.kind, source: input.source, accountId: input.accountId, text: input.text, result })
    }
    return result
  }

  const imageProviders = providers.filter((p) => p.checkImage)

  async function checkImage(input: ImageCheckInput): Promise<ModerationResult> {
    if (imageProviders.length === 0) return PASS
    const image: ImageCheck = { bytes: input.bytes, mime: input.mime }
    const answers = await Promise.allSettled(imageProviders.map((p) => (p.checkImage as NonNullable<TextProvider['checkImage']>)(image)))
    const result = decide('image', imageProviders, answers)
    if (result.verdict !== 'pass') {
      await log.write({
        kind: 'image',
        source: input.source,
        accountId: input.accountId,
        text: `[图片 ${input.mime}, ${input.bytes.length} 字节]`,
        contentHash: createHash('sha256').update(input.bytes).digest('hex'),
        result
      })
    }
    return result
  }

  return {
    enabled: true,
    windowChars: deps.windowChars,
    check,
    checkImage,
    async assertAllowed(input) {
      const result = await check(input)
      if (result.verdict === 'block') throw new ApiError(CONTENT_BLOCKED, blockedMessage(input.what))
      return result
    }
  }
}
