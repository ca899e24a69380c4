// Streams as the Chinese OpenAI-compatible upstreams send them (docs/deployment.md, "Models popular
// in China"), byte for byte in their shape, for the fake upstream's `raw` behaviour to serve over
// loopback. Each keeps the quirk it is known for.

const sse = (frames: unknown[]) => `${frames.map((f) => `data: ${typeof f === 'string' ? f : JSON.stringify(f)}\n\n`).join('')}`

/**
 * DeepSeek (deepseek-reasoner): the thinking in `reasoning_content` (with `content: null`), then the
 * answer (with `reasoning_content: null`); keep-alive comments while it thinks; the usage only in the
 * LAST frame, the one with finish_reason, never in a frame of its own.
 */
export function deepseekStream(o: { reasoning: string[]; content: string[]; usage: { prompt_tokens: number; completion_tokens: number } }): string {
  const frame = (delta: Record<string, unknown>, finish: string | null = null, usage: unknown = null) => ({
    id: '5f2e1b0c-1c3b-4a55-9a8e-2d1b6c7e8f90',
    object: 'chat.completion.chunk',
    created: 1737000000,
    model: 'deepseek-reasoner',
    system_fingerprint: 'fp_7e73fd9a08_prod0225',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage ? { usage } : {})
  })
  const total = o.usage.prompt_tokens + o.usage.completion_tokens
  return [
    ': keep-alive\n\n',
    sse([frame({ role: 'assistant', content: null, reasoning_content: '' })]),
    sse(o.reasoning.map((text) => frame({ content: null, reasoning_content: text }))),
    ': keep-alive\n\n',
    sse(o.content.map((text) => frame({ content: text, reasoning_content: null }))),
    sse([
      frame({ content: '', reasoning_content: null }, 'stop', {
        ...o.usage,
        total_tokens: total,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: o.reasoning.length },
        prompt_cache_hit_tokens: 0,
        prompt_cache_miss_tokens: o.usage.prompt_tokens
      }),
      '[DONE]'
    ])
  ].join('')
}

/**
 * Qwen through DashScope's compatible mode (qwen3 with thinking on): `usage: null` in every frame,
 * `system_fingerprint: null`, the thinking in `reasoning_content`, and with stream_options.include_usage
 * the usage in a last frame of its own whose `choices` is empty.
 */
export function dashscopeStream(o: { reasoning: string[]; content: string[]; usage: { prompt_tokens: number; completion_tokens: number } }): string {
  const frame = (delta: Record<string, unknown>, finish: string | null = null) => ({
    choices: [{ delta, finish_reason: finish, index: 0, logprobs: null }],
    object: 'chat.completion.chunk',
    usage: null,
    created: 1737000000,
    system_fingerprint: null,
    model: 'qwen-plus',
    id: 'chatcmpl-3a9c1f2e-7b6d-9e8f-a1b2-c3d4e5f60718'
  })
  return sse([
    frame({ content: null, role: 'assistant', reasoning_content: '' }),
    ...o.reasoning.map((text) => frame({ content: null, reasoning_content: text })),
    ...o.content.map((text) => frame({ content: text, reasoning_content: null })),
    frame({ content: '', reasoning_content: null }, 'stop'),
    {
      choices: [],
      object: 'chat.completion.chunk',
      usage: {
        prompt_tokens: o.usage.prompt_tokens,
        completion_tokens: o.usage.completion_tokens,
        total_tokens: o.usage.prompt_tokens + o.usage.completion_tokens
      },
      created: 1737000000,
      system_fingerprint: null,
      model: 'qwen-plus',
      id: 'chatcmpl-3a9c1f2e-7b6d-9e8f-a1b2-c3d4e5f60718'
    },
    '[DONE]'
  ])
}

/** DashScope's refusal of content its inspection flagged: HTTP 400, its own error code. */
export const DASHSCOPE_INSPECTION_FAILED = {
  error: {
    code: 'data_inspection_failed',
    param: null,
    message: 'Input data may contain inappropriate content.',
    type: 'data_inspection_failed'
  },
  id: 'chatcmpl-0b7f1c1e-9d8a-4c5b-8e7f-6a5b4c3d2e1f',
  request_id: '0b7f1c1e-9d8a-4c5b-8e7f-6a5b4c3d2e1f'
}
