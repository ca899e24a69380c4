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

export function frame(id: number, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`
}

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
 */
export function sseResponse(options: {
  streams: EventStreams
  auth: AuthInfo
  // biome-ignore lint/suspicious/noConfusingVoidType: a setup that needs no heartbeat hook returns nothing
  setup: (sink: SseSink, onClose: (fn: () => void) => void) => Promise<{ onHeartbeat?: () => void } | void>
}): Response {
  const { streams, auth } = options
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let closed = false
  const cleanups: (() => void)[] = []
  let heartbeat: NodeJS.Timeout | undefined
  let onHeartbeat: (() => void) | undefined

  const cleanup = () => {
    if (closed) return
    closed = true
    streams.open.delete(sink)
    clearInterval(heartbeat)
    for (const fn of cleanups.splice(0)) {
      try {
        fn()
      } catch (error) {
        streams.logger.error('closing an event stream failed', { error })
      }
    }
  }
  const write = (text: string) => {
    if (closed) return
    try {
      controller.enqueue(encoder.encode(text))
    } catch {
      cleanup()
    }
  }
  const sink: SseSink = {
    send: (id, event, data) => write(frame(id, event, data)),
    close() {
      if (closed) return
      cleanup()
      try {
        controller.close()
      } catch {}
    },
    get closed() {
      return closed
    }
  }
  const onClose = (fn: () => void) => {
    if (closed) fn()
    else cleanups.push(fn)
  }

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
    cancel() {
      // The client went away.
      cleanup()
    }
  })
  streams.open.add(sink)
  // Registered before setup follows anything, so a revocation is never missed (see SessionStreams).
  // The stream just closes, without a final event: the client reconnects, as after any drop,
  // and hears 50011006 (or 50011005) in the envelope — or continues, if it holds a new token by then.
  cleanups.push(streams.sessions.add(auth, () => sink.close()))
  heartbeat = setInterval(() => {
    if (streams.sessions.expired(auth)) return sink.close()
    write(': ping\n\n')
    onHeartbeat?.()
  }, streams.heartbeatMs)
  options
    .setup(sink, onClose)
    .then((hooks) => {
      if (hooks?.onHeartbeat) onHeartbeat = hooks.onHeartbeat
    })
    .catch((error: unknown) => {
      streams.logger.error('event stream failed', { error })
      sink.close()
    })
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}

/** `Last-Event-ID: N` → N; anything else (absent, not a whole number) → 0, i.e. from the start. */
export function lastEventId(header: string | undefined): number {
  const text = header?.trim() ?? ''
  if (!/^\d{1,15}$/.test(text)) return 0
  return Number(text)
}
