import type { ModelEntry } from '../models.js'

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant'
  content: string
  /**
   * User turns: images for a vision model, as data: URLs. OpenAI-compatible providers send the
   * turn's content as parts then: the text, then one `image_url` part per image.
   */
  images?: string[]
  /** User turns: what was attached (the demo model describes it; documents' text is in `content`). */
  files?: TurnFile[]
}

/** An attached file as the model's turn knows it. */
export type TurnFile =
  | { kind: 'image'; name: string; size: number; width: number | null; height: number | null }
  | { kind: 'document'; name: string; size: number; pages: number | null; chars: number; firstLine: string }

export interface ChatRequest {
  model: ModelEntry
  messages: ChatTurn[]
  temperature: number
  /** Aborted on stop: the provider must end its upstream request at once. */
  signal: AbortSignal
}

/** What a provider yields while it streams. */
export type ChatChunk =
  | { type: 'content'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'usage'; promptTokens: number; completionTokens: number }

export interface ChatProvider {
  /** Ends normally only when the upstream said it finished; anything else throws (a ProviderError when it was the upstream). */
  stream(request: ChatRequest): AsyncIterable<ChatChunk>
}

/**
 * How an upstream failed:
 * - `upstream`: refused or failed before streaming (HTTP error, unreachable) → 50200001, status error.
 * - `timeout`: no first event, or no new one, within the configured time → 50400001, status timeout.
 * - `truncated`: the stream broke off before its end → 50200001, status error, content kept.
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: 'upstream' | 'timeout' | 'truncated',
    message: string,
    /**
     * Set for a failure before anything was streamed that another channel may not have (replies/channels.ts
     * fails over): an HTTP 429 or 5xx (`status`), or no connection at all (`unreachable`).
     */
    readonly origin?: { status?: number; unreachable?: boolean }
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}
