import { postJson, str } from './http.js'
import { ModerationUnavailable, type TextProvider } from './types.js'

export interface OpenAiModerationOptions {
  /** The base, as OPENAI_BASE_URL: requests go to `{base}/v1/moderations`. */
  baseUrl: string
  apiKey: string
  /** omni-moderation-latest unless set. */
  model: string
  timeoutMs: number
}

/**
 * The OpenAI-compatible `POST /v1/moderations` (bearer key), for deployments outside China: a
 * flagged result is refused, its first flagged category named as the rule. Images go as an
 * `image_url` part holding a data: URL (omni-moderation reads them; Lingxi's files need not be
 * reachable from the service).
 */
export function createOpenAiModeration(options: OpenAiModerationOptions): TextProvider {
  const url = `${options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/moderations`
  async function moderate(input: unknown) {
    const { status, body } = await postJson(
      'openai',
      url,
      {
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${options.apiKey}` },
        body: JSON.stringify({ model: options.model, input })
      },
      options.timeoutMs
    )
    const result = (body as { results?: { flagged?: unknown; categories?: Record<string, unknown> }[] }).results?.[0]
    if (status !== 200 || typeof result?.flagged !== 'boolean') {
      const error = (body as { error?: { message?: unknown } }).error
      throw new ModerationUnavailable('openai', `HTTP ${status}, ${str(error?.message) ?? 'no results'}`.slice(0, 200))
    }
    if (!result.flagged) return { verdict: 'pass' as const }
    const category = Object.entries(result.categories ?? {}).find(([, on]) => on === true)?.[0]
    return { verdict: 'block' as const, rule: category }
  }
  return {
    name: 'openai',
    checkText: (text) => moderate(text),
    checkImage: (image) => moderate([{ type: 'image_url', image_url: { url: `data:${image.mime};base64,${Buffer.from(image.bytes).toString('base64')}` } }])
  }
}
