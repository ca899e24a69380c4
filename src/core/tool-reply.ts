import type { FinalStatus, ToolReply } from '@lingxi/server/wire'
import { request } from './api'
import { refreshUser } from './auth'
import { MSG_SYSTEM_ERROR } from './messages'
import { subscribe } from './sse'

// Replies that other tools start through the chat pipeline (hot news' AI 解读, an order's AI 起草):
// the server answers {requestId, …} and the text streams at /ai-chat/sse/subscribe/{requestId}.

/** How such a reply ended: `complete`, `interrput` (stopped; wire spelling), `error` or `timeout`. */
export type ToolReplyStatus = FinalStatus

/** What the tool answered: the reply streams at `ai-chat/sse/subscribe/{requestId}`, in the topic `topicId`. */
export type ToolReplyStart = ToolReply

export interface ToolReplyResult {
  status: ToolReplyStatus
  text: string
  /** `error`/`timeout`: the reason, in Chinese. */
  message?: string
}

export interface FollowReplyOptions {
  /** The text so far, each time it grows. */
  onText: (text: string) => void
  /** Aborting stops following (not the server: see stopToolReply). */
  signal?: AbortSignal
}

/**
 * Follows a reply to its end: events replayed after a reconnect are skipped by id, the text is
 * passed on as it grows, and the balances are refreshed after (the reply was charged).
 */
export async function followToolReply(requestId: string, opts: FollowReplyOptions): Promise<ToolReplyResult> {
  let text = ''
  let lastId = 0
  let result: ToolReplyResult = { status: 'complete', text: '' }
  await subscribe(`/ai-chat/sse/subscribe/${encodeURIComponent(requestId)}`, {
    signal: opts.signal,
    onEvent(name, data, id) {
      const n = Number(id)
      if (id !== undefined && Number.isFinite(n)) {
        if (n <= lastId) return // replayed after a reconnect
        lastId = n
      }
      const d = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>
      if (name === 'delta' && typeof d.content === 'string') {
        text += d.content
        opts.onText(text)
      } else if (name === 'done') {
        result = { status: 'complete', text }
      } else if (name === 'moderated') {
        // Content safety stopped the reply: the notice replaces what was shown.
        text = typeof d.content === 'string' ? d.content : ''
        opts.onText(text)
      } else if (name === 'stopped') {
        result = { status: 'interrput', text }
      } else if (name === 'error') {
        result = {
          status: d.status === 'timeout' ? 'timeout' : 'error',
          text,
          message: typeof d.message === 'string' && d.message ? d.message : MSG_SYSTEM_ERROR
        }
      }
    }
  })
  result.text = text
  refreshUser().catch(() => {})
  return result
}

/** Stops such a reply on the server (its stream then ends with `stopped`); resolves the saved text. */
export async function stopToolReply(requestId: string): Promise<string | null> {
  const message = await request<{ content?: string } | null>('/ai-chat/topic/message/stop', { requestId })
  return typeof message?.content === 'string' ? message.content : null
}
