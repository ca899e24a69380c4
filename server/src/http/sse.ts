import type { ServerResponse } from 'node:http'
import { createSessionStreams, type SessionStreams } from '../auth/session-streams.js'
import type { AuthInfo } from '../auth/sessions.js'
import type { Db } from '../db/database.js'
import type { EventBus } from '../events/bus.js'
import type { Logger } from '../logger.js'

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  // nginx would otherwise buffer the stream.
  'X-Accel-Buffering': 'no'
} as const

export interface SseSink {
  send(id: number, event: string, data: string): void
  close(): void
  readonly closed: boolean
}

const encoder = new TextEncoder()
const LINE_BREAK = /\r\n|\r|\n/

/**
 * One event, as the wire has it (docs/chat-wire.md). A field cannot hold a line break: `data` with
 * line breaks goes out as one `data:` line per line (the client joins them with "\n" again, as
 * the SSE standard says), an `event` name with one is refused, as is an id that is not a whole number.
 */
export function frame(id: number, event: string, data: string): string {
  if (!Number.isSafeInteger(id) || id < 0) throw new TypeError(`an SSE id must be a whole number, not ${id}`)
  if (LINE_BREAK.test(event) || event === '') throw new TypeError('an SSE event name must be one line')
  const lines = LINE_BREAK.test(data) ? data.split(LINE_BREAK).join('\ndata: ') : data
  return `id: ${id}\nevent: ${event}\ndata: ${lines}\n\n`
}

/**
 * Writes are gathered per stream and sent once per turn of the event loop: a burst of deltas is
 * one write, and one setImmediate serves every stream that has something to send.
 */
const dirty = new Set<{ flush(): void }>()
let flushScheduled = false
function flushAll() {
  flushScheduled = false
  for (const sink of dirty) sink.flush()
  dirty.clear()
}
function scheduleFlush(sink: { flush(): void }) {
  dirty.add(sink)
  if (!flushScheduled) {
    flushScheduled = true
    setImmediate(flushAll)
  }
}

/**
 * One timer per heartbeat period beats every open stream, instead of an interval per stream: with
 * thousands of streams open, a timer and its closure each were a measurable part of a stream's memory.
 */
const heartbeats = new Map<number, { timer: NodeJS.Timeout; beats: Set<() => void> }>()
function onHeartbeatTick(periodMs: number, beat: () => void): () => void {
  let group = heartbeats.get(periodMs)
  if (!group) {
    const beats = new Set<() => void>()
    group = {
      beats,
      timer: setInterval(() => {
        for (const fn of [...beats]) fn()
      }, periodMs)
    }
    heartbeats.set(periodMs, group)
  }
  const own = group
  own.beats.add(beat)
  return () => {
    own.beats.delete(beat)
    if (own.beats.size === 0 && heartbeats.get(periodMs) === own) {
      clearInterval(own.timer)
      heartbeats.delete(periodMs)
    }
  }
}

/** The header that tells @hono/node-server the answer is written already (here, straight to Node's response). */
const ALREADY_SENT = 'x-hono-already-sent'

/** The open event streams of this node: their heartbeat, the sessions that opened them, shutdown. */
export interface EventStreams {
  /** Period of the comment heartbeat every stream sends (and checks its session's expiry at). */
  readonly heartbeatMs: number
  /** Revoking a session closes the streams it opened, on every node (auth/session-streams.ts). */
  readonly sessions: SessionStreams
  readonly logger: Logger
  /** Streams open now (sseResponse keeps it). */
  readonly open: Set<{ close(): void }>
  /** Ends every open stream: at shutdown, once nothing writes to them any more. */
  closeAll(): void
}

export function createEventStreams(options: { bus: EventBus; db: Db; now: () => number; logger: Logger; heartbeatMs?: number }): EventStreams {
  const open = new Set<{ close(): void }>()
  return {
    heartbeatMs: options.heartbeatMs ?? 15_000,
    // Revocations reach it over the bus's control channel (auth/routes.ts announces them).
    sessions: createSessionStreams({ bus: options.bus, db: options.db, now: options.now, logger: options.logger }),
    logger: options.logger,
    open,
    closeAll() {
      for (const sink of [...open]) sink.close()
    }
  }
}

/**
 * A text/event-stream response opened by `auth`: its revocation or expiry ends it. `setup` runs
 * once the response exists; `onClose` callbacks run exactly once, whether the stream ended or the
 * client went away. Comment heartbeats keep proxies from closing an idle connection;
 * `onHeartbeat` runs after each.
 *
 * Given Node's response (`c.env.outgoing`), events are written straight to it: the Response
 * returned has no body and tells @hono/node-server so, and the final answer's headers (`c.res`,
 * with those the middleware added after the handler returned) are written with the first flush. Without one
 * (app.request() in tests), the events go through the Response's ReadableStream.
 */
export function sseResponse(options: {
  streams: EventStreams
  auth: AuthInfo
  /**
   * The request's context: on @hono/node-server, `c.env.outgoing` is Node's response, and `c.res`
   * the final answer once the middleware have added their headers.
   */
  c?: { res: Response; env?: { outgoing?: ServerResponse | object } }
  // biome-ignore lint/suspicious/noConfusingVoidType: a setup that needs no heartbeat hook returns nothing
  setup: (sink: SseSink, onClose: (fn: () => void) => void) => Promise<{ onHeartbeat?: () => void } | void>
}): Response {
  const { streams, auth } = options
  const outgoing = isServerResponse(options.c?.env?.outgoing) ? options.c.env.outgoing : undefined
  /**
   * The request's context until the head is written: then it is let go, with the Request, the
   * Response and their Headers, which an open stream (thousands of them) has no more use for.
   */
  let context = options.c
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined
  let closed = false
  /** Written at the next flush. */
  let pending = ''
  /** Close once what is pending went out. */
  let ending = false
  let headSent = false
  const cleanups: (() => void)[] = []
  let stopHeartbeat: (() => void) | undefined
  let onHeartbeat: (() => void) | undefined

  const cleanup = () => {
    if (closed) return
    closed = true
    streams.open.delete(sink)
    stopHeartbeat?.()
    for (const fn of cleanups.splice(0)) {
      try {
        fn()
      } catch (error) {
        streams.logger.error('closing an event stream failed', { error })
      }
    }
  }
  const writer = {
    flush() {
      const text = pending
      pending = ''
      try {
        if (outgoing) {
          if (!headSent) {
            headSent = true
            // The final answer: a middleware that added a header after the handler replaced it.
            const final = context?.res ?? response
            context = undefined
            response = undefined
            const headers: Record<string, string> = {}
            final?.headers.forEach((value, name) => {
              if (name !== ALREADY_SENT) headers[name] = value
            })
            outgoing.writeHead(final?.status ?? 200, headers)
            // Sent now, not with the first event: the client counts the stream open when the head arrives.
            outgoing.flushHeaders()
          }
          if (outgoing.destroyed) return cleanup()
          if (text) outgoing.write(text)
          if (ending) outgoing.end()
        } else if (controller) {
          if (text) controller.enqueue(encoder.encode(text))
          if (ending) controller.close()
        }
      } catch {
        cleanup()
      }
    }
  }
  const write = (text: string) => {
    if (closed) return
    pending += text
    scheduleFlush(writer)
  }
  const sink: SseSink = {
    send: (id, event, data) => write(frame(id, event, data)),
    close() {
      if (closed) return
      cleanup()
      // What was sent before the close still goes out, then the stream ends.
      ending = true
      scheduleFlush(writer)
    },
    get closed() {
      return closed
    }
  }
  const onClose = (fn: () => void) => {
    if (closed) fn()
    else cleanups.push(fn)
  }

  let response: Response | undefined
  if (outgoing) {
    // The client went away (or the socket failed): the stream ends here too.
    outgoing.once('close', cleanup)
    response = new Response(null, { status: 200, headers: { ...SSE_HEADERS, [ALREADY_SENT]: '1' } })
    // The head goes out once the middleware have added their headers (they run before this fires).
    scheduleFlush(writer)
  } else {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c
      },
      cancel() {
        // The client went away.
        cleanup()
      }
    })
    response = new Response(body, { status: 200, headers: SSE_HEADERS })
  }
  const answer = response
  streams.open.add(sink)
  // Registered before setup follows anything, so a revocation is never missed (see SessionStreams).
  // The stream just closes, without a final event: the client reconnects, as after any drop,
  // and hears 50011006 (or 50011005) in the envelope — or continues, if it holds a new token by then.
  cleanups.push(streams.sessions.add(auth, () => sink.close()))
  if (!closed)
    stopHeartbeat = onHeartbeatTick(streams.heartbeatMs, () => {
      if (streams.sessions.expired(auth)) return sink.close()
      write(': ping\n\n')
      onHeartbeat?.()
    })
  options
    .setup(sink, onClose)
    .then((hooks) => {
      if (hooks?.onHeartbeat) onHeartbeat = hooks.onHeartbeat
    })
    .catch((error: unknown) => {
      streams.logger.error('event stream failed', { error })
      sink.close()
    })
  return answer
}

function isServerResponse(value: unknown): value is ServerResponse {
  return typeof (value as ServerResponse | undefined)?.writeHead === 'function' && typeof (value as ServerResponse).write === 'function'
}

/** `Last-Event-ID: N` → N; anything else (absent, not a whole number) → 0, i.e. from the start. */
export function lastEventId(header: string | undefined): number {
  const text = header?.trim() ?? ''
  if (!/^\d{1,15}$/.test(text)) return 0
  return Number(text)
}
