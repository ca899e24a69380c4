import type { ModelEntry } from './models.js'
import type { ChatTurn } from './providers/provider.js'

type Tokenizer = { countTokens(text: string): number }
let tokenizer: Tokenizer | undefined

/** gpt-tokenizer (o200k_base), loaded on first use: its tables cost a moment and some memory. */
export async function loadTokenizer(): Promise<Tokenizer> {
  tokenizer ??= (await import('gpt-tokenizer')) as Tokenizer
  return tokenizer
}

export async function countTokens(text: string): Promise<number> {
  if (text === '') return 0
  return (await loadTokenizer()).countTokens(text)
}

/** Role markers and separators around each message, as the chat format adds them. */
export const TOKENS_PER_MESSAGE = 4
/** The answer's priming ("<|start|>assistant"). */
export const TOKENS_PER_REPLY = 3

/** Room kept for the answer: the model's max_tokens, else a quarter of the context, at most 2048. */
export function answerReserve(model: Pick<ModelEntry, 'contextLength' | 'maxTokens'>): number {
  return model.maxTokens ?? Math.min(2048, Math.floor(model.contextLength / 4))
}

export interface HistoryTurn extends ChatTurn {
  /** Tokens of content, when already known. */
  tokens: number | null
}

export interface BuiltContext {
  messages: ChatTurn[]
  /** Prompt tokens as counted here; billing uses it when the upstream reports no usage. */
  promptTokens: number
  /** History messages that were left out for lack of room. */
  dropped: number
}

/**
 * The messages sent upstream: the system prompt first, then as much history as fits, newest
 * first (so the oldest goes when room runs out), then the new message. Returns undefined when
 * the system prompt and the new message alone do not fit.
 */
export async function buildContext(input: {
  model: Pick<ModelEntry, 'contextLength' | 'maxTokens'>
  systemPrompt: string | null
  /** Oldest first. */
  history: HistoryTurn[]
  message: string
}): Promise<BuiltContext | undefined> {
  const budget = input.model.contextLength - answerReserve(input.model)
  const { countTokens: count } = await loadTokenizer()
  let used = TOKENS_PER_REPLY + TOKENS_PER_MESSAGE + count(input.message)
  const head: ChatTurn[] = []
  if (input.systemPrompt) {
    used += TOKENS_PER_MESSAGE + count(input.systemPrompt)
    head.push({ role: 'system', content: input.systemPrompt })
  }
  if (used > budget) return undefined
  const kept: ChatTurn[] = []
  let i = input.history.length - 1
  for (; i >= 0; i--) {
    const turn = input.history[i]!
    const cost = TOKENS_PER_MESSAGE + (turn.tokens ?? count(turn.content))
    if (used + cost > budget) break
    used += cost
    kept.push({ role: turn.role, content: turn.content })
  }
  return {
    messages: [...head, ...kept.reverse(), { role: 'user', content: input.message }],
    promptTokens: used,
    dropped: i + 1
  }
}
