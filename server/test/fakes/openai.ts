import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A fake OpenAI-compatible upstream on loopback that speaks the real streaming protocol
 * (upstreams.md): `data: {chunk}\n\n` events with choices[0].delta.content / reasoning_content,
 * a finish chunk, a usage chunk with empty choices, then `data: [DONE]`. Each request follows a
 * scripted behaviour.
 */
export type Behaviour =
  | {
      kind: 'stream'
      /** Content deltas, in order. */
      chunks: string[]
      /** reasoning_content deltas, sent before the content. */
      reasoning?: string[]
      /** The usage chunk; null: none is sent (some backends, or an interrupted stream). */
      usage?: { prompt_tokens: number; completion_tokens: number } | null
      /** Pause before each delta (ms). */
      delayMs?: number
      /** Pause before the first byte of the body (headers are sent at once). */
      firstByteDelayMs?: number
      /** Stop after this many deltas and close the connection without [DONE]. */
      cutAfter?: number
      /** Stop after this many deltas and send nothing more, keeping the connection open. */
      hangAfter?: number
      /** Waits for this before sending anything (benchmarks release all streams together). */
      hold?: Promise<void>
      /** Called with the time each delta was written (benchmarks). */
      onDelta?: (index: number, at: number) => void
      /** A keep-alive comment line before the first event. */
      comment?: boolean
      /** What ends each line (the SSE spec allows all three); `\n` by default. */
      lineEnd?: '\n' | '\r\n' | '\r'
      /** Writes each event's CR and the LF after it separately, a little apart, so they arrive in two reads. */
      splitCrLf?: boolean
      /** After this many deltas, an error event `data: {"error": …}` instead of the rest, then the end of the response. */
      errorAfter?: number
      /** The error object of errorAfter. */
      error?: unknown
      /** The Content-Type of the stream; `text/event-stream` by default. */
      contentType?: string
    }
  | { kind: 'http-error'; status: number; body: unknown }
  /**
   * A server that ignores `stream: true`: one `chat.completion` object, as with `stream: false`
   * (choices[0].message with content and reasoning_content, and the usage).
   */
  | {
      kind: 'completion'
      content: string
      reasoning?: string
      usage?: { prompt_tokens: number; completion_tokens: number }
      /** `application/json` by default; servers that get it wrong send text/plain or text/event-stream. */
      contentType?: string
    }
  /** Any body with any status and Content-Type (e.g. an error object with status 200). */
  | { kind: 'raw'; status: number; body: string; contentType?: string }
  /** Accepts the request and never answers. */
  | { kind: 'silent' }

export interface RecordedRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: {
    model: string
    messages: { role: string; content: string }[]
    stream: boolean
    stream_options?: { include_usage?: boolean }
    temperature?: number
    max_tokens?: number
  }
  receivedAt: number
  /** When the client closed the connection before the answer was complete. */
  abortedAt: number | undefined
  /** When the answer was completely written. */
  finishedAt: number | undefined
  /** Resolves when the exchange is over, either way. */
  closed: Promise<void>
}

export interface FakeOpenAi {
  /** Base URL without /v1, as OPENAI_BASE_URL takes it. */
  url: string
  apiKey: string
  requests: RecordedRequest[]
  /** The behaviour of the following requests: a fixed one, or one chosen per request. */
  script(behaviour: Behaviour | ((request: RecordedRequest) => Behaviour)): void
  close(): Promise<void>
}

export const FAKE_MODEL = 'fake-gpt'

/** The chunk objects exactly as OpenAI sends them. */
export function completionChunk(model: string, delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1710000000,
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function startFakeOpenAi({ apiKey = 'sk-fake-key-123456' }: { apiKey?: string } = {}): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = []
  let choose: (request: RecordedRequest) => Behaviour = () => ({
    kind: 'stream',
    chunks: ['你好', '，', '世界'],
    usage: { prompt_tokens: 9, completion_tokens: 3 }
  })
  const sockets = new Set<import('node:net').Socket>()

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (raw += chunk))
    req.on('end', () => void handle(req, res, raw))
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    let markClosed!: () => void
    const record: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: JSON.parse(raw || '{}') as RecordedRequest['body'],
      receivedAt: Date.now(),
      abortedAt: undefined,
      finishedAt: undefined,
      closed: new Promise<void>((resolve) => (markClosed = resolve))
    }
    requests.push(record)
    res.on('close', () => {
      if (!res.writableFinished) record.abortedAt = Date.now()
      markClosed()
    })
    res.on('finish', () => (record.finishedAt = Date.now()))

    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return json(404, { error: { message: `Invalid URL (${req.method} ${req.url})`, type: 'invalid_request_error', param: null, code: null } })
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return json(401, { error: { message: 'Incorrect API key provided: sk-wron*****', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } })
    }
    const behaviour = choose(record)
    if (behaviour.kind === 'http-error') return json(behaviour.status, behaviour.body)
    if (behaviour.kind === 'silent') return
    if (behaviour.kind === 'raw') {
      res.writeHead(behaviour.status, behaviour.contentType === undefined ? {} : { 'Content-Type': behaviour.contentType })
      res.end(behaviour.body)
      return
    }
    if (behaviour.kind === 'completion') {
      const usage = behaviour.usage ?? { prompt_tokens: 10, completion_tokens: 1 }
      res.writeHead(200, { 'Content-Type': behaviour.contentType ?? 'application/json' })
      res.end(
        JSON.stringify({
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: 1710000000,
          model: record.body.model,
          system_fingerprint: 'fp_fake',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: behaviour.content,
                ...(behaviour.reasoning === undefined ? {} : { reasoning_content: behaviour.reasoning })
              },
              logprobs: null,
              finish_reason: 'stop'
            }
          ],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }
        })
      )
      return
    }

    const model = record.body.model
    const alive = () => !res.destroyed && record.abortedAt === undefined
    const eol = behaviour.lineEnd ?? '\n'
    let flushed = Promise.resolve()
    const written = (text: string) => new Promise<void>((resolve) => (alive() ? res.write(text, () => resolve()) : resolve()))
    const write = (text: string) => {
      if (alive()) flushed = written(text)
    }
    const send = (data: unknown) => {
      const line = `data: ${typeof data === 'string' ? data : JSON.stringify(data)}`
      if (!behaviour.splitCrLf) return write(`${line}${eol}${eol}`)
      // The CR ends one write, the LF starts the next: one line end split across two reads.
      flushed = flushed.then(async () => {
        await written(`${line}\r`)
        await sleep(15)
        await written('\n\r\n')
      })
    }
    // A cut connection: what was written reaches the client, then the socket closes without [DONE].
    const cut = async () => {
      await flushed
      await sleep(5)
      res.destroy()
    }
    if (behaviour.hold) await behaviour.hold
    res.writeHead(200, { 'Content-Type': behaviour.contentType ?? 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' })
    res.flushHeaders()
    if (behaviour.firstByteDelayMs) await sleep(behaviour.firstByteDelayMs)
    if (behaviour.comment) write(`: keep-alive${eol}${eol}`)
    send(completionChunk(model, { role: 'assistant', content: '' }))
    const deltas = [...(behaviour.reasoning ?? []).map((text) => ({ reasoning_content: text })), ...behaviour.chunks.map((text) => ({ content: text }))]
    for (const [index, delta] of deltas.entries()) {
      if (behaviour.cutAfter !== undefined && index >= behaviour.cutAfter) return cut()
      if (behaviour.hangAfter !== undefined && index >= behaviour.hangAfter) return
      if (behaviour.errorAfter !== undefined && index >= behaviour.errorAfter) break
      if (behaviour.delayMs) await sleep(behaviour.delayMs)
      if (!alive()) return
      send(completionChunk(model, delta))
      behaviour.onDelta?.(index, performance.now())
    }
    if (behaviour.cutAfter !== undefined) return cut()
    if (behaviour.hangAfter !== undefined) return
    if (behaviour.errorAfter !== undefined) {
      // As gateways do when their upstream fails after the headers went out: an error event, then the end.
      send({ error: behaviour.error })
      await flushed
      res.end()
      return
    }
    send(completionChunk(model, {}, 'stop'))
    if (behaviour.usage !== null) {
      const usage = behaviour.usage ?? { prompt_tokens: 10, completion_tokens: deltas.length }
      send({ ...completionChunk(model, {}), choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })
    }
    send('[DONE]')
    if (behaviour.splitCrLf) await flushed
    res.end()
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    script(behaviour) {
      choose = typeof behaviour === 'function' ? behaviour : () => behaviour
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
