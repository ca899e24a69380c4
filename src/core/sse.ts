import { createParser } from 'eventsource-parser'
import { ApiError, authHeaders } from './api'
import { $config } from './config'
import { CODE_OK } from './wire'

/** Events after which a reply's stream is over (chat-wire.md, Streams). */
export const TERMINAL_EVENTS: readonly string[] = ['done', 'error', 'stopped']

export interface SubscribeOptions {
  /** Resume after this event id (sent as `Last-Event-ID`); omitted = from the first event. */
  lastEventId?: string
  /** Aborting ends the subscription: `subscribe` rejects with the abort reason. */
  signal?: AbortSignal
  /** Every event, in order. `data` is the parsed JSON (the raw text when it is not JSON). */
  onEvent: (name: string, data: unknown, id: string | undefined) => void
  /** Wait before reconnect number `attempt` (1, 2, …); default `retryDelay`. */
  backoff?: (attempt: number) => number
  /** Each time a stream is opened: 1 for the first connection, 2 after the first reconnect… */
  onOpen?: (connection: number) => void
  /** Events that end the subscription; default TERMINAL_EVENTS. The account channel passes none. */
  terminal?: readonly string[]
}

/** 1 s, 2 s, 4 s, 8 s, then 10 s between reconnects. */
export function retryDelay(attempt: number): number {
  return Math.min(10_000, 1000 * 2 ** Math.max(0, attempt - 1))
}

/** A connection ended without a terminal event: worth reconnecting. */
class Dropped extends Error {}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const done = () => {
      signal?.removeEventListener('abort', abort)
      resolve()
    }
    const abort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', abort, { once: true })
  })
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data)
  } catch {
    return data
  }
}

/**
 * Follows a server-sent event stream at `${apiBase}/api/v1${path}` with fetch (EventSource
 * cannot send the X-Lingxi-Request header). After a network drop — or a stream that ends before a
 * terminal event — it reconnects with `Last-Event-ID` (backing off 1 s, 2 s, 4 s … 10 s) until a
 * terminal event (`done`, `error`, `stopped`) arrives or `signal` aborts.
 *
 * Resolves once the terminal event has been delivered. Rejects with ApiError when the server
 * answers the envelope instead of a stream (e.g. 40400001, or a refused token), and with the
 * abort reason when aborted.
 */
export async function subscribe(path: string, opts: SubscribeOptions): Promise<void> {
  const { signal, onEvent, backoff = retryDelay, onOpen, terminal = TERMINAL_EVENTS } = opts
  let lastEventId = opts.lastEventId
  let attempt = 0
  let connections = 0
  const opened = () => onOpen?.(++connections)
  for (;;) {
    signal?.throwIfAborted()
    let progressed = false
    try {
      const ended = await connect(path, lastEventId, signal, terminal, opened, (name, data, id) => {
        progressed = true
        if (id !== undefined) lastEventId = id
        onEvent(name, data, id)
      })
      if (ended) return
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error
      if (!(error instanceof Dropped)) throw error
    }
    // A connection that delivered something starts the back-off over.
    attempt = progressed ? 1 : attempt + 1
    await wait(backoff(attempt), signal)
  }
}

/** One connection. True when a terminal event arrived; throws Dropped when worth retrying. */
async function connect(
  path: string,
  lastEventId: string | undefined,
  outer: AbortSignal | undefined,
  terminal: readonly string[],
  opened: () => void,
  deliver: (name: string, data: unknown, id: string | undefined) => void
): Promise<boolean> {
  const controller = new AbortController()
  const forward = () => controller.abort(outer?.reason)
  outer?.addEventListener('abort', forward, { once: true })
  try {
    const headers: Record<string, string> = { ...authHeaders(), Accept: 'text/event-stream' }
    if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId
    let response: Response
    try {
      response = await fetch(`${$config.get().apiBase}/api/v1${path}`, {
        headers,
        signal: controller.signal,
        credentials: 'include'
      })
    } catch (cause) {
      throw new Dropped('no answer', { cause })
    }
    const type = response.headers.get('content-type') ?? ''
    if (!response.ok || !type.includes('text/event-stream') || !response.body) {
      await refuse(response)
      throw new Dropped(`HTTP ${response.status}`)
    }
    opened()

    let ended = false
    const parser = createParser({
      onEvent(message) {
        if (ended) return
        const name = message.event ?? 'message'
        deliver(name, parse(message.data), message.id)
        if (terminal.includes(name)) ended = true
      }
    })
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    try {
      while (!ended) {
        const { done, value } = await reader.read()
        if (done) break
        parser.feed(decoder.decode(value, { stream: true }))
      }
    } catch (cause) {
      if (!ended) throw new Dropped('connection lost', { cause })
    }
    if (!ended) throw new Dropped('stream ended early')
    return true
  } finally {
    outer?.removeEventListener('abort', forward)
    // Stops the download after a terminal event (the server closes anyway) or an error.
    controller.abort()
  }
}

/** A non-stream answer: the envelope of a refusal becomes ApiError; anything else is retried. */
async function refuse(response: Response): Promise<void> {
  let body: unknown
  try {
    body = JSON.parse(await response.text())
  } catch {
    return
  }
  if (typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'number') {
    const { code, message } = body as { code: number; message?: unknown }
    if (code !== CODE_OK) throw new ApiError(code, String(message ?? ''))
  }
}
