import { and, eq, inArray } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import type { ChatMessage } from '../../db/schema.js'
import { chatMessages } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import type { StreamEvent } from '../../events/bus.js'
import { type Api, type AppContext, requireAuth, requirePermission } from '../../http/api.js'
import { requestHeader } from '../../http/request-header.js'
import { type EventStreams, lastEventId, type SseSink, sseResponse } from '../../http/sse.js'
import { type ChatRuntime, streamKey } from '../../replies/runtime.js'
import { type FinalStatus, terminalEvent } from '../../replies/wire.js'
import { findReplyByRequest, REQUEST_NOT_FOUND } from './repo.js'
import { CHAT_BASE } from './topic-routes.js'

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

/** Ids per query of a batch of silent streams. */
const SILENT_BATCH = 1000

/**
 * The status of the replies whose streams heard nothing for a whole heartbeat, asked for together:
 * every stream's heartbeat fires in the same tick (http/sse.ts), so one query per heartbeat serves
 * all the silent streams of this node, however many there are; `null` when the row is gone.
 */
function silentChecker(db: Db, logger: EventStreams['logger']) {
  let pending = new Map<string, ((status: string | null) => void)[]>()
  let scheduled = false
  const run = async () => {
    scheduled = false
    const batch = pending
    pending = new Map()
    const ids = [...batch.keys()]
    for (let start = 0; start < ids.length; start += SILENT_BATCH) {
      const slice = ids.slice(start, start + SILENT_BATCH)
      try {
        const rows = await db.select({ id: chatMessages.id, status: chatMessages.status }).from(chatMessages).where(inArray(chatMessages.id, slice))
        const statuses = new Map(rows.map((row) => [row.id, row.status]))
        for (const id of slice) for (const answer of batch.get(id) ?? []) answer(statuses.get(id) ?? null)
      } catch (error) {
        logger.error('checking silent streams failed', { error, streams: slice.length })
      }
    }
  }
  return (replyId: string, answer: (status: string | null) => void) => {
    const waiting = pending.get(replyId)
    if (waiting) waiting.push(answer)
    else pending.set(replyId, [answer])
    if (!scheduled) {
      scheduled = true
      setImmediate(run)
    }
  }
}

/**
 * `GET /api/v1/ai-chat/sse/subscribe/{requestId}`: one reply's numbered events, replayed from
 * Last-Event-ID. Any tool's replies stream here (hot news' 解读, order drafts), so `codes` are the
 * reply codes of every module.
 *
 * A reply this node is generating is followed without a database read (the runtime knows its row
 * exists and is the account's): on the embedded database every query waits behind the sends in
 * flight, and the subscribe comes right after its send (docs/benchmarks.md, first delta).
 */
export function registerStreamRoute(api: Api, streams: EventStreams, codes: readonly string[], runtime: Pick<ChatRuntime, 'generating'>): void {
  const { db } = api
  const { logger } = streams
  api.docs.push({
    method: 'get',
    path: `${CHAT_BASE}/sse/subscribe/{requestId}`,
    tag: 'chat',
    summary: "A reply's numbered events (delta…, then done | error | stopped); replays what was missed, honours Last-Event-ID",
    auth: true,
    contentType: 'text/event-stream',
    parameters: [
      {
        name: 'Last-Event-ID',
        in: 'header',
        description:
          'The id of the last event received (EventSource sends it when it reconnects): only later events are sent; absent or not a number: from the start'
      }
    ]
  })

  const readRow = async (accountId: string, id: string) => {
    const [row] = await db
      .select()
      .from(chatMessages)
      .where(and(eq(chatMessages.id, id), eq(chatMessages.accountId, accountId)))
    return row
  }
  const statusOfSilent = silentChecker(db, logger)

  api.app.get(`${CHAT_BASE}/sse/subscribe/:requestId`, requirePermission(api, codes), async (c: AppContext) => {
    const auth = await requireAuth(api, c)
    const accountId = auth.account.id
    const requestId = c.req.param('requestId')!.toLowerCase()
    const local = runtime.generating(accountId, requestId)
    const replyId = local ?? (await findReplyByRequest(db, accountId, requestId))?.id
    if (!replyId) throw new ApiError(40400001, REQUEST_NOT_FOUND)
    const afterId = lastEventId(requestHeader(c, 'last-event-id'))

    return sseResponse({
      streams,
      auth,
      c,
      async setup(sink, onClose) {
        let last = afterId
        let heard = false
        const follow = await api.bus.follow(streamKey(accountId, requestId), afterId, {
          event(e: StreamEvent) {
            last = e.id
            heard = true
            sink.send(e.id, e.event, e.data)
          },
          end: () => sink.close()
        })
        onClose(() => follow.close())
        if (sink.closed) return
        // Nothing on the bus yet: a reply generated here is still streaming (its final event, once
        // appended, is replayed by follow); any other is read from its row.
        if (!follow.known && !local) {
          const row = await readRow(accountId, replyId)
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
            statusOfSilent(replyId, (status) => {
              if (sink.closed || status === 'streaming') return
              if (status === null) return sink.close()
              // Finished, and its final event never came: the whole row, for this stream alone.
              readRow(accountId, replyId)
                .then((row) => {
                  if (sink.closed) return
                  if (!row) return sink.close()
                  follow.close()
                  replayFromRow(sink, row, last)
                })
                .catch((error: unknown) => logger.error('checking a silent stream failed', { error }))
            })
          }
        }
      }
    })
  })
}
