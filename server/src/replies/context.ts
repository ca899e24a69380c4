import type { ModelEntry } from './models.js'
import type { ChatTurn, TurnFile } from './providers/provider.js'

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

/** Images go upstream within this many pixels a side (modules/chat/attachments.ts). */
export const VISION_SIDE = 2048

/**
 * Prompt tokens of an image as OpenAI counts one in high detail: fit in 2048², the short side
 * scaled to 768, then 170 per 512-px tile plus 85. Other upstreams count less or about as much;
 * their own usage, when they report it, is what is charged.
 */
export function imageTokens(width: number, height: number): number {
  if (!(width > 0 && height > 0)) return 85
  let w = width
  let h = height
  const fit = Math.min(1, VISION_SIDE / Math.max(w, h))
  w *= fit
  h *= fit
  const short = Math.min(1, 768 / Math.min(w, h))
  w *= short
  h *= short
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512)
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
  /** The message's attachments: documents' text is already in `message`; images and their tokens here. */
  attachments?: { images: string[]; files: TurnFile[]; imageTokens: number }
}): Promise<BuiltContext | undefined> {
  const budget = input.model.contextLength - answerReserve(input.model)
  const { countTokens: count } = await loadTokenizer()
  let used = TOKENS_PER_REPLY + TOKENS_PER_MESSAGE + count(input.message) + (input.attachments?.imageTokens ?? 0)
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
    messages: [...head, ...kept.reverse(), { role: 'user', content: input.message, ...attached(input.attachments) }],
    promptTokens: used,
    dropped: i + 1
  }
}

function attached(attachments: { images: string[]; files: TurnFile[] } | undefined): Pick<ChatTurn, 'images' | 'files'> {
  if (!attachments || attachments.files.length === 0) return {}
  return { ...(attachments.images.length > 0 ? { images: attachments.images } : {}), files: attachments.files }
}
