import { type ChatChunk, type ChatProvider, type ChatRequest, ProviderError } from './provider.js'
import { createSseDataParser } from './sse-lines.js'

export interface OpenAiProviderOptions {
  /** Without /v1: requests go to `${baseUrl}/v1/chat/completions`. */
  baseUrl: string
  apiKey: string
  firstByteTimeoutMs: number
  idleTimeoutMs: number
  /** How users see the upstream named in error messages. */
  label?: string
}

interface Delta {
  content?: unknown
  reasoning_content?: unknown
  reasoning?: unknown
}

interface CompletionChunk {
  choices?: { delta?: Delta | null }[] | null
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null
  error?: { message?: unknown } | null
}

/** Keys must never reach a browser, not even inside an upstream's error text. */
export function redact(text: string): string {
  return text.replace(/\b(sk|key|token)-[A-Za-z0-9_-]{6,}/gi, '$1-***').replace(/Bearer\s+\S+/gi, 'Bearer ***')
}

function upstreamMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    const message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message)
    if (typeof message === 'string' && message.trim()) return message.trim()
  } catch {}
  return body.trim()
}

const clip = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max)}…` : text)

/** OpenAI-compatible `/v1/chat/completions` with `stream: true` (OpenAI, DeepSeek, Qwen, vLLM, Ollama, one-api/new-api). */
export function createOpenAiProvider(options: OpenAiProviderOptions): ChatProvider {
  const label = options.label ?? 'OpenAI 兼容接口'
  const url = `${options.baseUrl}/v1/chat/completions`
  const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} 秒` : `${ms} 毫秒`)

  return {
    async *stream(request: ChatRequest): AsyncIterable<ChatChunk> {
      const { model, signal } = request
      const controller = new AbortController()
      // One timer per timeout period, not one per event: each event only moves the deadline, and
      // the timer, when it fires early, sleeps again until the deadline it finds.
      let timedOut: string | undefined
      let deadline = 0
      let timeoutMessage = ''
      let timer: NodeJS.Timeout | undefined
      const check = () => {
        const left = deadline - Date.now()
        if (left > 0) {
          timer = setTimeout(check, left)
          return
        }
        timer = undefined
        timedOut = timeoutMessage
        controller.abort()
      }
      const arm = (ms: number, message: string) => {
        deadline = Date.now() + ms
        timeoutMessage = message
        timer ??= setTimeout(check, ms)
      }
      const onAbort = () => controller.abort(signal.reason)
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
      arm(options.firstByteTimeoutMs, `AI 服务「${label}」响应超时：${seconds(options.firstByteTimeoutMs)}内没有返回内容`)

      const failure = (error: unknown, otherwise: () => ProviderError): unknown => {
        if (signal.aborted) return signal.reason ?? error
        if (timedOut) return new ProviderError('timeout', timedOut)
        return otherwise()
      }

      try {
        let res: Response
        try {
          res = await fetch(url, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${options.apiKey}`,
              'Content-Type': 'application/json',
              Accept: 'text/event-stream'
            },
            body: JSON.stringify({
              model: model.upstreamModel ?? model.id,
              messages: request.messages,
              stream: true,
              stream_options: { include_usage: true },
              temperature: request.temperature,
              ...(model.maxTokens ? { max_tokens: model.maxTokens } : {})
            }),
            signal: controller.signal
          })
        } catch (error) {
          throw failure(error, () => new ProviderError('upstream', `无法连接 AI 服务「${label}」，请稍后重试`))
        }

        if (!res.ok) {
          let body = ''
          try {
            body = await res.text()
          } catch (error) {
            throw failure(error, () => new ProviderError('upstream', `AI 服务「${label}」出错（HTTP ${res.status}）`))
          }
          const detail = clip(redact(upstreamMessage(body)))
          throw new ProviderError('upstream', `AI 服务「${label}」出错（HTTP ${res.status}）${detail ? `：${detail}` : ''}`)
        }
        if (!res.body) throw new ProviderError('upstream', `AI 服务「${label}」没有返回内容`)

        const reader = res.body.getReader()
        const decoder = new TextDecoder()
        const parser = createSseDataParser()
        const cut = () => new ProviderError('truncated', `AI 服务「${label}」的连接中断，回答不完整`)
        for (;;) {
          let read: Awaited<ReturnType<typeof reader.read>>
          try {
            read = await reader.read()
          } catch (error) {
            throw failure(error, cut)
          }
          if (read.done) throw failure(undefined, cut)
          for (const data of parser.push(decoder.decode(read.value, { stream: true }))) {
            arm(options.idleTimeoutMs, `AI 服务「${label}」响应超时：超过 ${seconds(options.idleTimeoutMs)}没有新内容`)
            if (data.trim() === '[DONE]') return
            let chunk: CompletionChunk
            try {
              chunk = JSON.parse(data) as CompletionChunk
            } catch {
              continue
            }
            if (chunk.error) {
              const detail = typeof chunk.error.message === 'string' ? clip(redact(chunk.error.message)) : ''
              throw new ProviderError('truncated', `AI 服务「${label}」在回答中途出错${detail ? `：${detail}` : ''}`)
            }
            for (const choice of chunk.choices ?? []) {
              const delta = choice?.delta
              if (!delta) continue
              const thinking = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : delta.reasoning
              if (typeof thinking === 'string' && thinking !== '') yield { type: 'thinking', text: thinking }
              if (typeof delta.content === 'string' && delta.content !== '') yield { type: 'content', text: delta.content }
            }
            const usage = chunk.usage
            if (usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number') {
              yield { type: 'usage', promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }
            }
          }
        }
      } finally {
        if (timer) clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        // Ends the upstream request if it is still open (stop, timeout, or the caller gave up).
        controller.abort()
      }
    }
  }
}
