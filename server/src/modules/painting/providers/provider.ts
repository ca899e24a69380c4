import type { PaintingTask } from '../../../db/schema.js'
import type { BlendDimensions, PanDirection } from '../wire.js'

export type ZoomMode = '2x' | '1.5x' | 'custom'

/** An image Lingxi holds in its storage, read for an upstream that wants bytes (describe, blend, references). */
export interface ImageInput {
  key: string
  body: Uint8Array
  contentType: string
}

export interface Txt2ImgParams {
  prompt: string
  negativePrompt: string
  width: number
  height: number
  steps: number
  cfgScale: number
  sampler: string
  /** -1: the upstream picks one. */
  seed: number
}

/** Image to image (and inpaint): txt2img's settings plus how far to move from the picture. */
export interface Img2ImgParams extends Txt2ImgParams {
  /** 0..1: how much of the picture is redrawn. */
  denoisingStrength: number
  /** Inpaint: what the masked area starts from (0 fill, 1 original, 2 latent noise, 3 latent nothing). */
  inpaintingFill: number
  /** Inpaint: pixels of blur at the mask's edge. */
  maskBlur: number
}

/** What to draw. `parent` is the task an action started from (SUCCESS, the account's own). */
export type PaintingJob =
  | { action: 'IMAGINE'; prompt: string; images: ImageInput[]; seed: number | undefined; aspect: string | undefined }
  | { action: 'UPSCALE' | 'VARIATION'; parent: PaintingTask; index: number }
  | { action: 'REROLL'; parent: PaintingTask }
  | { action: 'PAN'; parent: PaintingTask; direction: PanDirection }
  | { action: 'DESCRIBE'; image: ImageInput }
  | { action: 'BLEND'; images: ImageInput[]; dimensions: BlendDimensions }
  | { action: 'TXT2IMG'; params: Txt2ImgParams }
  | { action: 'ZOOM'; parent: PaintingTask; mode: ZoomMode; zoom: number; prompt: string }
  | { action: 'VARY'; parent: PaintingTask; strong: boolean }
  | { action: 'VARY_REGION'; parent: PaintingTask; mask: ImageInput; prompt: string }
  | { action: 'UPSCALE_HD'; parent: PaintingTask; creative: boolean }
  | { action: 'SHORTEN'; prompt: string }
  | { action: 'SWAP_FACE'; source: ImageInput; target: ImageInput }
  | { action: 'IMG2IMG' | 'INPAINT'; params: Img2ImgParams; image: ImageInput; mask: ImageInput | null }

/** A change of an upstream task, in Lingxi's terms. Images are copied into storage before it is saved. */
export interface PaintingUpdate {
  status: 'SUBMITTED' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE'
  progress: number
  promptEn?: string
  /** SUCCESS: the finished image, at the upstream (URL) or in hand (bytes). */
  image?: { url: string } | { body: Uint8Array; contentType: string }
  /** DESCRIBE: the four prompts; SHORTEN: the shorter ones. */
  prompts?: string[]
  /** Chinese, shown as is (FAILURE). */
  failReason?: string
  /** Merged into the task's `upstream` (button customIds, seed …). */
  upstream?: Record<string, unknown>
  /** Replaces the task's params (SD: the seed actually used). */
  params?: Record<string, unknown>
  /** The upstream channel that drew it (in-process painters with channels); null: the env's. */
  channelId?: number | null
}

export interface SubmitContext {
  taskId: string
  job: PaintingJob
  /** In-process painters (demo, AUTOMATIC1111) report their progress here; it never moves a task backwards. */
  report(update: PaintingUpdate): Promise<void>
  /** Aborted when the person stops the task, it times out, or the server shuts down. */
  signal: AbortSignal
  /** Work that goes on after submit answered (in-process painters); the runtime waits for it on close. */
  background(work: Promise<void>): void
  /** Reads an image Lingxi stored (the parent's grid for the demo painter). */
  readImage(key: string): Promise<Uint8Array | null>
}

export interface SubmitResult {
  /** The upstream's task id (midjourney-proxy), or null when the work runs in this process. */
  upstreamId: string | null
  upstream?: Record<string, unknown>
  /** The upstream channel that took it (painters behind channels); null: the env's. Saved on the task. */
  channelId?: number | null
}

export interface PaintingProvider {
  /** Saved on the task: `demo`, `midjourney-proxy`, `a1111`. */
  name: string
  demo: boolean
  /**
   * In-process painters that take this many pictures at once across every node (AUTOMATIC1111: 1);
   * their jobs get a queue of their own. Absent: a few at once in each process.
   */
  globalConcurrency?: number
  /**
   * Hands the job to the upstream. Resolves once it is accepted; rejects with ProviderError
   * (a Chinese message) when refused. In-process painters keep working afterwards and report.
   */
  submit(ctx: SubmitContext): Promise<SubmitResult>
  /**
   * Painters behind channels: whether a channel of their kind is enabled now. When not, new tasks
   * go to the demo painter (painters.ts); absent: always.
   */
  available?(): Promise<boolean>
  /** What it can do beyond imagine / U / V / reroll / pan (probed once in a while for upstreams). */
  features?(): Promise<{ actions: boolean; shorten: boolean; faceSwap: boolean }>
  /** Stable diffusion: the sampler names the upstream has (`/sdapi/v1/samplers`). */
  samplers?(): Promise<string[]>
  /** External upstreams: the current state of tasks by upstream id (polling), at the tasks' channel (null: the env's). */
  fetch?(upstreamIds: string[], channelId?: number | null): Promise<Map<string, PaintingUpdate>>
}

/** The upstream refused or failed; `message` is Chinese and shown to the person. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly timeout = false,
    /** The upstream's own words, for the server log only: users never see an upstream's text. */
    readonly detail?: string,
    /** A 429, a 5xx or no connection: the upstream took nothing, and another channel may take it. */
    readonly retryable = false
  ) {
    super(message, detail ? { cause: detail } : undefined)
    this.name = 'ProviderError'
  }
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
