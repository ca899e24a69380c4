/** What a check decides: allowed, allowed but kept for an operator to look at, or refused. */
export type Verdict = 'pass' | 'review' | 'block'

/**
 * What is being checked, which picks the provider's scene and the fail mode:
 * - `chat`: a user's chat message; `prompt`: a role, painting or music prompt (and its English);
 * - `name`: nicknames, topic and gallery titles, upload names; `reply`: model output as it streams;
 * - `image`: an image before it is published (gallery, image host).
 */
export const MODERATION_KINDS = ['chat', 'prompt', 'name', 'reply', 'image'] as const
export type ModerationKind = (typeof MODERATION_KINDS)[number]

/** One provider's answer on one text. */
export interface ProviderVerdict {
  verdict: Verdict
  /** The rule, label or category that decided (word list entry, Aliyun label, OpenAI category). */
  rule?: string
}

/** An image to check: its bytes as stored and their type. */
export interface ImageCheck {
  bytes: Uint8Array
  mime: string
}

/** A moderation service (local word list, Aliyun, Tencent, OpenAI-compatible). */
export interface TextProvider {
  readonly name: string
  /** Throws when the service cannot answer (down, timed out, refused the request): the fail mode decides. */
  checkText(text: string, kind: ModerationKind): Promise<ProviderVerdict>
  /** Present when the service checks images (Tencent IMS, OpenAI omni-moderation); throws like checkText. */
  checkImage?(image: ImageCheck): Promise<ProviderVerdict>
}

/** The outcome of the pipeline on one text. */
export interface ModerationResult {
  verdict: Verdict
  /** The provider that decided (the first to block, else the first to ask for review). */
  provider?: string
  rule?: string
  /** Set when a provider could not answer and the fail mode decided instead. */
  failed?: string
}

/** The order of severity: a stack of providers answers with the worst verdict. */
export const SEVERITY: Record<Verdict, number> = { pass: 0, review: 1, block: 2 }

export class ModerationUnavailable extends Error {
  constructor(
    readonly provider: string,
    message: string
  ) {
    super(`${provider}: ${message}`)
    this.name = 'ModerationUnavailable'
  }
}
