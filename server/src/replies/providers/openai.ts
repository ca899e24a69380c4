import { StringDecoder } from 'node:string_decoder'
import { Agent, type Dispatcher, request } from 'undici'
import type { Logger } from '../../logger.js'
import { createRedactor, redactKeyPatterns } from '../../redact.js'
import { type ChatChunk, type ChatProvider, type ChatRequest, type ChatTurn, ProviderError } from './provider.js'
import { createSseDataParser } from './sse-lines.js'

export interface OpenAiProviderOptions {
  /** Without /v1: requests go to `${baseUrl}/v1/chat/completions`. */
  baseUrl: string
  apiKey: string
  firstByteTimeoutMs: number
  idleTimeoutMs: number
  /** How users see the upstream named in error messages. */
  label?: string
  /**
   * Where the upstream's own words about a failure go (users only see a short message of ours):
   * the operator needs them, and they may hold the key, so this should be a redacting logger.
   */
  logger?: Logger
}

interface Delta {
  content?: unknown
  reasoning_content?: unknown
  reasoning?: unknown
}

interface CompletionChunk {
  /** `delta` in a stream; `message` in a whole completion (a server that ignored `stream: true`). */
  choices?: ({ delta?: Delta | null; message?: Delta | null } | null)[] | null
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null
  error?: unknown
  /** vLLM's errors are `{"object":"error","message":…,"type":…,"code":…}`. */
  object?: unknown
}

const isError = (body: CompletionChunk) => Boolean(body.error) || body.object === 'error'

/** Kept for text whose secrets are not known in advance; upstream text never reaches users at all. */
export { redactKeyPatterns as redact }

/** A body of a whole completion larger than this is no answer to a chat message. */
const MAX_JSON_BODY = 8 * 1024 * 1024
/** How much of an upstream's body goes to the log. */
const LOGGED_BODY = 2000

const clip = (text: string, max = LOGGED_BODY) => (text.length > max ? `${text.slice(0, max)}…` : text)

/**
 * The identifiers of an upstream's error object (`error.code`, `error.type`), lower-cased, to
 * recognise the class of a failure. Only ever compared with known words: an upstream's text,
 * its message above all, is never shown to users (it may echo the key, or anything else).
 */
function errorIds(body: unknown): string {
  const error = (body as CompletionChunk | null)?.object === 'error' ? body : (body as CompletionChunk | null)?.error
  if (typeof error !== 'object' || error === null) return ''
  const { code, type } = error as { code?: unknown; type?: unknown }
  return [code, type]
    .filter((id) => typeof id === 'string' || typeof id === 'number')
    .join(' ')
    .toLowerCase()
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * A turn as the chat completions API takes it: text alone as a string; with images, the content
 * parts `[{type: "text"}, {type: "image_url", image_url: {url}}…]` that vision models read
 * (data: URLs, so the upstream need not reach this server, and the files stay private).
 */
export function wireTurn(turn: ChatTurn): { role: ChatTurn['role']; content: string | unknown[] } {
  if (!turn.images || turn.images.length === 0) return { role: turn.role, content: turn.content }
  return {
    role: turn.role,
    content: [{ type: 'text', text: turn.content }, ...turn.images.map((url) => ({ type: 'image_url', image_url: { url } }))]
  }
}

/**
 * The connections to upstreams, shared by every provider of the process. undici's `request` gives
 * each reply a Node stream of its body; the global `fetch` kept a WHATWG Response, its
 * ReadableStream, reader and Headers per reply besides, a measurable part of a held stream's memory
 * (docs/benchmarks.md, independent streams).
 */
const dispatcher = new Agent({ keepAliveTimeout: 10_000 })

/** OpenAI-compatible `/v1/chat/completions` with `stream: true` (OpenAI, DeepSeek, Qwen, vLLM, Ollama, one-api/new-api). */
export function createOpenAiProvider(options: OpenAiProviderOptions): ChatProvider {
  const label = options.label ?? 'OpenAI 兼容接口'
  // A base that names its own API version (Zhipu's …/api/paas/v4, Ark's …/api/v3) is used as is.
  const url = /\/v\d+$/.test(options.baseUrl) ? `${options.baseUrl}/chat/completions` : `${options.baseUrl}/v1/chat/completions`
  const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} 秒` : `${ms} 毫秒`)
  // Our own key is scrubbed here too, so the detail is safe even with a logger that does not redact.
  const ownKey = createRedactor([options.apiKey])
  const scrub = (text: string) => redactKeyPatterns(ownKey(text))

  /**
   * The message users see for a failure the upstream reported (an HTTP status, or an error object
   * in a 200 answer or mid-stream): the class of the problem in our words, nothing of theirs.
   */
  function classify(status: number | undefined, ids: string, midStream: boolean): ProviderError {
    const kind = midStream ? 'truncated' : 'upstream'
    const named = `AI 服务「${label}」`
    if (/context_length|context_window|too_long|too_many_tokens|tokens_exceeded/.test(ids)) {
      return new ProviderError(kind, '对话内容超出了模型能处理的长度，请新建话题，或关闭上下文后重试')
    }
    if (/content_filter|content_policy|safety|sensitive|moderation|data_inspection|^1301$/.test(ids)) {
      return new ProviderError(kind, `内容未通过${named}的安全审核，请修改后重试`)
    }
    if (/quota|balance|billing|credit/.test(ids) || status === 402) {
      return new ProviderError(kind, `${named}的额度已用完，请联系管理员`)
    }
    if (/model_not_found|model_not_exist|no_available_channel/.test(ids)) return new ProviderError(kind, `${named}没有这个模型，请联系管理员`)
    if (/invalid_api_key|invalid_token|unauthori[sz]ed|authentication|permission/.test(ids) || status === 401 || status === 403) {
      return new ProviderError(kind, `${named}鉴权失败，请联系管理员`)
    }
    if (/rate_limit|overload|busy/.test(ids) || status === 429) return new ProviderError(kind, `${named}繁忙，请稍后重试`)
    // The upstream (or a gateway in front of it) timed out.
    if (status === 408 || status === 504 || status === 524) return new ProviderError('timeout', `${named}响应超时，请稍后重试`)
    if (status === 404) return new ProviderError(kind, `${named}找不到所请求的模型或接口，请联系管理员`)
    if (status === 413) return new ProviderError(kind, '对话内容超出了模型能处理的长度，请新建话题，或关闭上下文后重试')
    if (status !== undefined && status >= 500) return new ProviderError(kind, `${named}暂时不可用，请稍后重试`)
    if (status !== undefined && status >= 400) return new ProviderError(kind, `请求被${named}拒绝（HTTP ${status}）`)
    return new ProviderError(kind, midStream ? `${named}在回答中途出错，回答不完整` : `${named}出错，请稍后重试`)
  }

  return {
    async *stream(request_: ChatRequest): AsyncIterable<ChatChunk> {
      const { model, signal } = request_
      const log = (message: string, fields: Record<string, unknown>) => options.logger?.warn(message, { upstream: label, model: model.id, ...fields })
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
      const idle = () => arm(options.idleTimeoutMs, `AI 服务「${label}」响应超时：超过 ${seconds(options.idleTimeoutMs)}没有新内容`)

      const failure = (error: unknown, otherwise: () => ProviderError): unknown => {
        if (signal.aborted) return signal.reason ?? error
        if (timedOut) {
          log('AI upstream timed out', { reason: timedOut })
          return new ProviderError('timeout', timedOut)
        }
        return otherwise()
      }
      /** An error object or status from the upstream: logged in full (scrubbed), shown as its class. */
      const reported = (status: number | undefined, body: string, midStream: boolean) => {
        log(midStream ? 'AI upstream failed mid-stream' : 'AI upstream refused the request', {
          ...(status === undefined ? {} : { status }),
          body: clip(scrub(body))
        })
        const error = classify(status, errorIds(parseJson(body)), midStream)
        return status === undefined ? error : new ProviderError(error.kind, error.message, { status })
      }
      const unrecognised = (body: string) => {
        log('AI upstream answered something that is neither a stream nor a completion', { body: clip(scrub(body)) })
        return new ProviderError('upstream', `AI 服务「${label}」返回了无法识别的内容`)
      }
      const cut = () => {
        log('AI upstream connection ended before the answer did', {})
        return new ProviderError('truncated', `AI 服务「${label}」的连接中断，回答不完整`)
      }

      /** The chunks of one event of a stream, or of a whole completion (`message` instead of `delta`). */
      function chunksOf(chunk: CompletionChunk): ChatChunk[] {
        const out: ChatChunk[] = []
        for (const choice of chunk.choices ?? []) {
          const delta = choice?.delta ?? choice?.message
          if (!delta) continue
          const thinking = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : delta.reasoning
          if (typeof thinking === 'string' && thinking !== '') out.push({ type: 'thinking', text: thinking })
          if (typeof delta.content === 'string' && delta.content !== '') out.push({ type: 'content', text: delta.content })
        }
        const usage = chunk.usage
        if (usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number') {
          out.push({ type: 'usage', promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens })
        }
        return out
      }

      try {
        let res: Dispatcher.ResponseData
        try {
          res = await request(url, {
            method: 'POST',
            dispatcher,
            headers: {
              Authorization: `Bearer ${options.apiKey}`,
              'Content-Type': 'application/json',
              Accept: 'text/event-stream'
            },
            body: JSON.stringify({
              model: model.upstreamModel ?? model.id,
              messages: request_.messages.map(wireTurn),
              stream: true,
              stream_options: { include_usage: true },
              temperature: request_.temperature,
              ...(model.maxTokens ? { max_tokens: model.maxTokens } : {})
            }),
            // Our own first-byte and idle deadlines apply (arm/idle above), not undici's 300 s defaults.
            headersTimeout: 0,
            bodyTimeout: 0,
            signal: controller.signal
          })
        } catch (error) {
          throw failure(error, () => {
            log('AI upstream unreachable', { error })
            return new ProviderError('upstream', `无法连接 AI 服务「${label}」，请稍后重试`, { unreachable: true })
          })
        }
        const body = res.body

        if (res.statusCode < 200 || res.statusCode > 299) {
          let text = ''
          try {
            text = await body.text()
          } catch (error) {
            throw failure(error, () => reported(res.statusCode, '', false))
          }
          throw reported(res.statusCode, text, false)
        }

        // Some OpenAI-compatible servers ignore `stream: true` and answer one JSON completion. The
        // Content-Type says which; a body whose first character is `{` is JSON whatever its type
        // claims (no SSE line starts with it), and one starting with `<` is an HTML page.
        const type = res.headers['content-type']
        let mode: 'sse' | 'json' | undefined = /[/+]json\b/i.test(String(type ?? '')) ? 'json' : undefined
        let text = ''
        const parser = createSseDataParser()
        // Decoded as it arrives: a multi-byte character split across reads is held back until whole.
        const decoder = new StringDecoder('utf8')
        const reads = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>
        for (;;) {
          let read: IteratorResult<Buffer>
          try {
            read = await reads.next()
          } catch (error) {
            throw failure(error, cut)
          }
          if (read.done) {
            if (mode !== 'json') throw failure(undefined, cut)
            text += decoder.end()
            const whole = parseJson(text) as CompletionChunk | undefined
            if (typeof whole !== 'object' || whole === null) throw unrecognised(text)
            if (isError(whole)) throw reported(undefined, text, false)
            if (!Array.isArray(whole.choices)) throw unrecognised(text)
            for (const chunk of chunksOf(whole)) yield chunk
            return
          }
          let decoded = decoder.write(read.value)
          if (mode === undefined) {
            text += decoded
            const first = text.trimStart()[0]
            if (first === undefined) continue
            if (first === '<') throw unrecognised(text)
            mode = first === '{' ? 'json' : 'sse'
            decoded = text
            text = ''
          }
          if (mode === 'json') {
            idle()
            text += decoded
            if (text.length > MAX_JSON_BODY) throw unrecognised(text)
            continue
          }
          for (const data of parser.push(decoded)) {
            idle()
            if (data.trim() === '[DONE]') return
            const chunk = parseJson(data) as CompletionChunk | undefined
            // Not an object (a stray line, `null`): nothing to take from it.
            if (typeof chunk !== 'object' || chunk === null) continue
            if (isError(chunk)) throw reported(undefined, data, true)
            for (const out of chunksOf(chunk)) yield out
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
