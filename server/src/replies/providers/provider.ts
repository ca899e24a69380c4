import type { ModelEntry } from '../models.js'

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant'
  content: string
}

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
    message: string
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}
