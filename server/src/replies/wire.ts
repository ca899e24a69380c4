import { z } from 'zod'

/**
 * The wire spellings of a message's status (API.md), here and nowhere else.
 * - `streaming`: the reply is being generated; its events can be followed by requestId.
 * - `complete`: the model finished its answer.
 * - `error`: the upstream refused, failed, or cut the stream; `content` keeps what arrived.
 * - `interrput` (sic, the spec's spelling): stopped by the user, or by a server restart.
 * - `timeout`: the upstream sent nothing for too long.
 */
export const MESSAGE_STATUSES = ['streaming', 'complete', 'error', 'interrput', 'timeout'] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]
export const STOPPED = 'interrput' satisfies MessageStatus
export type FinalStatus = Exclude<MessageStatus, 'streaming'>

export const usageSchema = z.object({ promptTokens: z.number(), completionTokens: z.number(), charged: z.number() }).meta({ id: 'Usage' })
export type Usage = z.infer<typeof usageSchema>

/**
 * What a tool answers when it starts a reply on the shared pipeline (hot news' 解读, order drafts):
 * the reply streams at `ai-chat/sse/subscribe/{requestId}`, in the topic `topicId`.
 */
export const toolReplySchema = z.object({ requestId: z.string(), messageId: z.string(), replyId: z.string(), topicId: z.string() }).meta({ id: 'ToolReply' })

export type ProviderKind = 'demo' | 'openai'

/** A model users may pick, as listed by `GET /config/chatConfig.json` (resolved in models.ts). */
export interface ModelEntry {
  id: string
  name: string
  provider: ProviderKind
  /** The model name sent upstream; the id when absent. */
  upstreamModel?: string
  /** Tokens the model accepts, prompt and answer together. */
  contextLength: number
  /** Allowance (tokens) charged per prompt token and per completion token. */
  price: { input: number; output: number }
  description: string
  /** Sent as max_tokens, and the room kept for the answer; unset: no limit sent, a quarter of the context (≤ 2048) kept. */
  maxTokens?: number
  /** Accepts images (sent as OpenAI-compatible `image_url` parts); others are refused images. */
  vision?: boolean
}

/** `GET /config/chatConfig.json` as served: the file merged with the environment's models; no keys. */
export interface ChatSiteConfig {
  models: ModelEntry[]
  defaultModel: string
  defaultTemperature: number
  contextEnabled: boolean
  [key: string]: unknown
}

/** The final event of a stream, as `event` name and `data` object (chat-wire.md). */
export interface TerminalEvent {
  event: 'done' | 'error' | 'stopped'
  data: Record<string, unknown>
}

/** Built from the saved reply, so the live stream and a replay from the database agree byte for byte. */
export function terminalEvent(reply: {
  id: string
  status: FinalStatus
  promptTokens: number | null
  completionTokens: number | null
  charged: number | null
  errorCode: number | null
  errorMessage: string | null
}): TerminalEvent {
  if (reply.status === 'complete') {
    return {
      event: 'done',
      data: { status: 'complete', usage: usageOf(reply) ?? { promptTokens: 0, completionTokens: 0, charged: 0 }, messageId: reply.id }
    }
  }
  if (reply.status === 'interrput') return { event: 'stopped', data: { status: 'interrput', messageId: reply.id } }
  return {
    event: 'error',
    data: { status: reply.status, code: reply.errorCode ?? 50200001, message: reply.errorMessage ?? '', messageId: reply.id }
  }
}

export function usageOf(row: { promptTokens: number | null; completionTokens: number | null; charged: number | null }): Usage | null {
  if (row.promptTokens === null && row.completionTokens === null && row.charged === null) return null
  return { promptTokens: row.promptTokens ?? 0, completionTokens: row.completionTokens ?? 0, charged: row.charged ?? 0 }
}
