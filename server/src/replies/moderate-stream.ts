import { CONTENT_BLOCKED, type Moderator } from '../moderation/index.js'

/** The abort reason of a generation stopped by moderation. */
export const STOPPED_BY_MODERATION = 'stopped-by-moderation'
/** What a blocked reply is saved as (and what the `moderated` event tells followers to show instead). */
export const BLOCKED_REPLY_NOTICE = '（该回复包含违规信息，已被屏蔽）'
export const BLOCKED_REPLY_MESSAGE = '回复包含违规信息，已停止生成'

/** Text before a window that is checked again with it, so an entry split across two windows is still found. */
const OVERLAP_CHARS = 32

/** How a reply blocked by moderation ends: the checked text the user was shown before the bad window is what is billed. */
export interface StreamBlock {
  billed: string
  rule?: string
}

export interface StreamWatch {
  /** The reply's whole content so far (already sent to its followers): full windows are checked in the background. */
  grew(content: string): void
  /** Once the stream ended (or was stopped): waits for the checks, checks the rest, and says whether the reply is blocked. */
  finish(content: string): Promise<StreamBlock | undefined>
}

/**
 * Moderation of a streamed reply, in windows of `windowChars` as text arrives: deltas go out as
 * they come (no added latency), each full window is checked in order behind them, and a blocked
 * window stops the generation (`stop`). Undefined when moderation is off: the runtime does nothing.
 */
export function watchStream(
  moderator: Moderator | undefined,
  job: { accountId: string; replyId: string },
  stop: (reason: string) => void
): StreamWatch | undefined {
  if (!moderator?.enabled) return undefined
  let checkedTo = 0
  let chain: Promise<void> = Promise.resolve()
  let blocked: StreamBlock | undefined
  let reviewed = false

  const checkWindow = (content: string, from: number, to: number) => {
    const text = content.slice(Math.max(0, from - OVERLAP_CHARS), to)
    chain = chain.then(async () => {
      if (blocked) return
      const result = await moderator.check({ kind: 'reply', text, source: 'chat.reply', accountId: job.accountId, quietReview: reviewed })
      reviewed ||= result.verdict === 'review'
      if (result.verdict !== 'block') return
      blocked = { billed: content.slice(0, from), rule: result.rule }
      stop(STOPPED_BY_MODERATION)
    })
    // The pipeline logs and fails open or closed itself; a fault here must not break the chain.
    chain = chain.catch(() => {})
  }

  return {
    grew(content) {
      if (blocked || content.length - checkedTo < moderator.windowChars) return
      checkWindow(content, checkedTo, content.length)
      checkedTo = content.length
    },
    async finish(content) {
      if (!blocked && content.length > checkedTo) checkWindow(content, checkedTo, content.length)
      checkedTo = content.length
      await chain
      return blocked
    }
  }
}

/** The end a blocked reply is saved with: the notice instead of its text, the blocked code, billed for what passed. */
export function blockedEnd(block: StreamBlock) {
  return {
    status: 'error' as const,
    content: BLOCKED_REPLY_NOTICE,
    thinking: '',
    errorCode: CONTENT_BLOCKED,
    errorMessage: BLOCKED_REPLY_MESSAGE,
    billed: block.billed
  }
}
