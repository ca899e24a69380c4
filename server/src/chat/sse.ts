import { and, eq } from 'drizzle-orm'
import { createSessionStreams, type SessionStreams } from '../auth/session-streams.js'
import type { AuthInfo } from '../auth/sessions.js'
import { type ChatMessage, chatMessages } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { StreamEvent } from '../events/bus.js'
import { type Api, type AppContext, requireAuth, requirePermission } from '../http/api.js'
import type { Logger } from '../logger.js'
import { findReplyByRequest, REQUEST_NOT_FOUND } from './repo.js'
import { type ChatRuntime, streamKey } from './runtime.js'
import { CHAT_BASE } from './topic-routes.js'
import { type FinalStatus, terminalEvent } from './wire.js'

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  // nginx would otherwise buffer the stream.
  'X-Accel-Buffering': 'no'
} as const

/** Who may open the account channel: it will also carry painting and music progress. */
export const ACCOUNT_CHANNEL_PERMISSIONS = ['AI_TOOLS_CHAT', 'AI_TOOLS_ROLE', 'AI_TOOLS_PAINTING', 'AI_TOOLS_SD', 'AI_TOOLS_MUSIC', 'AI_TOOLS_HOT', 'AI_TOOLS_ORDER_PLATFORM', 'AI_TOOLS_ORDER_PLATFORM_QUALITY'] as const
/** Tools whose replies stream through the chat pipeline: chat, role chat, hot news' AI 解读 and the order drafts. */
export const STREAM_PERMISSIONS = ['AI_TOOLS_CHAT', 'AI_TOOLS_ROLE', 'AI_TOOLS_HOT', 'AI_TOOLS_ORDER_PLATFORM', 'AI_TOOLS_ORDER_PLATFORM_QUALITY'] as const

export interface SseSink {
  send(id: number, event: string, data: string): void
  close(): void
  readonly closed: boolean
}

const encoder = new TextEncoder()

export function frame(id: number, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`
}

/**
 * A text/event-stream response. `setup` runs once the response exists; `onClose` callbacks run
 * exactly once, whether the stream ended or the client went away. Comment heartbeats keep
 * proxies from closing an idle connection; `onHeartbeat` runs after each.
 */
export function sseResponse(options: {
  heartbeatMs: number
  /** Open streams, so a shutdown can end them. */
  open: Set<{ close(): void }>
  logger: Logger
  /** The session that opened the stream: its revocation or expiry ends the stream (auth/session-streams.ts). */
  session?: { streams: SessionStreams; auth: AuthInfo }
  setup: (sink: SseSink, onClose: (fn: () => void) => void) => Promise<{ onHeartbeat?: () => void } | void>
}): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let closed = false
  const cleanups: (() => void)[] = []
  let heartbeat: NodeJS.Timeout | undefined
  let onHeartbeat: (() => void) | undefined

  const cleanup = () => {
    if (closed) return
    closed = true
    options.open.delete(sink)
    clearInterval(heartbeat)
    for (const fn of cleanups.splice(0)) {
      try {
        fn()
      } catch (error) {
        options.logger.error('closing an event stream failed', { error })
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
  options.open.add(sink)
  const { session } = options
  // Registered before setup follows anything, so a revocation is never missed (see SessionStreams).
  // The stream just closes, without a final event: the client reconnects, as after any drop,
  // and hears 50011006 (or 50011005) in the envelope — or continues, if it holds a new token by then.
  if (session) cleanups.push(session.streams.add(session.auth, () => sink.close()))
  heartbeat = setInterval(() => {
    if (session?.streams.expired(session.auth)) return sink.close()
    write(': ping\n\n')
    onHeartbeat?.()
  }, options.heartbeatMs)
  options
    .setup(sink, onClose)
    .then((hooks) => {
      if (hooks?.onHeartbeat) onHeartbeat = hooks.onHeartbeat
    })
    .catch((error: unknown) => {
      options.logger.error('event stream failed', { error })
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

/**
 * Replays a finished reply from its saved row when the bus no longer has its events (expired,
 * or lost with a restart): from the start, its thinking and content as one delta each, then the
 * final event; after `Last-Event-ID: N`, only the final event, numbered N + 1.
 */
export function replayFromRow(sink: SseSink, row: ChatMessage, afterId: number): void {
  let id = afterId
  if (afterId === 0) {
    if (row.thinking) sink.send(++id, 'delta', JSON.stringify({ thinking: row.thinking }))
    if (row.content) sink.send(++id, 'delta', JSON.stringify({ content: row.content }))
  }
  const terminal = terminalEvent({ ...row, status: row.status as FinalStatus })
  sink.send(++id, terminal.event, JSON.stringify(terminal.data))
  sink.close()
}

export function registerSseRoutes(api: Api, runtime: ChatRuntime, logger: Logger): void {
  const { db } = api
  // Revocations reach it over the bus's control channel (auth/routes.ts announces them).
  const streams = createSessionStreams({ bus: api.bus, db, now: api.now, logger })
  const streamPath = `${CHAT_BASE}/sse/subscribe/:requestId`
  const accountPath = `${CHAT_BASE}/sse/subscribe`
  api.docs.push(
    {
      method: 'get',
      path: `${CHAT_BASE}/sse/subscribe/{requestId}`,
      tag: 'chat',
      summary: "A reply's numbered events (delta…, then done | error | stopped); replays what was missed, honours Last-Event-ID",
      auth: true,
      contentType: 'text/event-stream'
    },
    {
      method: 'get',
      path: accountPath,
      tag: 'chat',
      summary: "Every stream event of the account, each with its requestId, and job progress; no replay",
      auth: true,
      contentType: 'text/event-stream'
    }
  )

  const readRow = async (accountId: string, id: string) => {
    const [row] = await db
      .select()
      .from(chatMessages)
      .where(and(eq(chatMessages.id, id), eq(chatMessages.accountId, accountId)))
    return row
  }

  api.app.get(streamPath, requirePermission(api, STREAM_PERMISSIONS), async (c: AppContext) => {
    const auth = await requireAuth(api, c)
    const accountId = auth.account.id
    const requestId = c.req.param('requestId')!.toLowerCase()
    const reply = await findReplyByRequest(db, accountId, requestId)
    if (!reply) throw new ApiError(40400001, REQUEST_NOT_FOUND)
    const afterId = lastEventId(c.req.header('last-event-id'))

    return sseResponse({
      heartbeatMs: runtime.heartbeatMs,
      open: runtime.subscribers,
      logger,
      session: { streams, auth },
      async setup(sink, onClose) {
        let last = afterId
        let heard = false
        const follow = await runtime.bus.follow(streamKey(accountId, requestId), afterId, {
          event(e: StreamEvent) {
            last = e.id
            heard = true
            sink.send(e.id, e.event, e.data)
          },
          end: () => sink.close()
        })
        onClose(() => follow.close())
        if (sink.closed) return
        if (!follow.known) {
          const row = await readRow(accountId, reply.id)
          if (!row) return sink.close()
          if (row.status !== 'streaming') {
            follow.close()
            return replayFromRow(sink, row, afterId)
          }
        }
        return {
          // Silence for a whole heartbeat while the row says finished: the final event was lost
          // (its node died, or the bus failed). End the stream from the saved reply.
          onHeartbeat() {
            if (heard) {
              heard = false
              return
            }
            readRow(accountId, reply.id)
              .then((row) => {
                if (sink.closed) return
                if (!row) return sink.close()
                if (row.status === 'streaming') return
                follow.close()
                replayFromRow(sink, row, last)
              })
              .catch((error: unknown) => logger.error('checking a silent stream failed', { error }))
          }
        }
      }
    })
  })

  api.app.get(accountPath, requirePermission(api, ACCOUNT_CHANNEL_PERMISSIONS), async (c: AppContext) => {
    const auth = await requireAuth(api, c)
    return sseResponse({
      heartbeatMs: runtime.heartbeatMs,
      open: runtime.subscribers,
      logger,
      session: { streams, auth },
      async setup(sink, onClose) {
        let id = 0
        const sub = await runtime.bus.subscribe(auth.account.id, (event, data) => sink.send(++id, event, data))
        onClose(() => sub.close())
      }
    })
  })
}
