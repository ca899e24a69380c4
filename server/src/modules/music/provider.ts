/** What a music provider speaks, in suno-api's terms (upstreams.md). */
export const CLIP_STATUSES = ['submitted', 'queued', 'streaming', 'complete', 'error'] as const
export type ClipStatus = (typeof CLIP_STATUSES)[number]

export interface Clip {
  /** The provider's clip id. */
  id: string
  title: string
  tags: string
  lyric: string
  prompt: string
  status: ClipStatus
  /** The provider's audio (a stream URL while streaming); http(s), or `demo:` for the demo composer. */
  audioUrl: string | null
  imageUrl: string | null
  duration: number | null
  errorMessage: string | null
}

export type GenerateInput =
  | { mode: 'describe'; prompt: string; instrumental: boolean }
  | {
      mode: 'custom'
      lyric: string
      tags: string
      title: string
      instrumental: boolean
      negativeTags: string
      /** A new version of one of the account's songs: edited lyrics, or without vocals (only the charge's label differs). */
      purpose?: 'relyric' | 'instrumental'
    }
  /** Continues a clip (the provider's id) from `continueAt` seconds, with the lyrics of the continuation. */
  | { mode: 'extend'; audioId: string; continueAt: number; lyric: string; tags: string; title: string }

export interface MusicProvider {
  kind: 'demo' | 'suno'
  /** The offline demo composer: its songs are labelled as demos. */
  demo: boolean
  /**
   * Providers behind channels: whether a suno channel is enabled now. When not, new requests go to
   * the demo composer (runtime.ts); absent: always.
   */
  available?(): Promise<boolean>
  /** Submits a request; answers its clips (usually two), as first reported. */
  generate(input: GenerateInput): Promise<Clip[]>
  /** Providers behind channels: generate, and which channel took the request (null: the env's). */
  submit?(input: GenerateInput): Promise<{ clips: Clip[]; channelId: number | null }>
  /** The current state of clips (asked of the channel that took their request; null: the env's). */
  get(ids: string[], channelId?: number | null): Promise<Clip[]>
  lyrics(prompt: string): Promise<{ title: string; text: string }>
  /** The bytes behind a clip's audio or image URL, to copy into Lingxi's storage (for a request taken by `channelId`). */
  download(url: string, kind: 'audio' | 'image', channelId?: number | null): Promise<{ bytes: Uint8Array; contentType: string }>
}

/** A provider failed; `message` is Chinese and safe to show. */
export class MusicProviderError extends Error {
  constructor(
    readonly kind: 'credits' | 'timeout' | 'upstream' | 'rejected',
    message: string,
    /** The upstream's own words, for the server log only: users never see an upstream's text. */
    readonly detail?: string,
    /** A 429, a 5xx or no connection: the upstream took nothing, and another channel may take it. */
    readonly retryable = false
  ) {
    super(message, detail ? { cause: detail } : undefined)
    this.name = 'MusicProviderError'
  }
}
