import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { chatMessages } from '../db/schema.js'
import type { Logger } from '../logger.js'

/** The write every streaming reply repeats (its growing text), built once per database. */
function prepareReplyWrites(db: Db) {
  const streamingReply = and(eq(chatMessages.id, sql.placeholder('id')), eq(chatMessages.status, 'streaming'))
  return {
    // Only what arrived since the last save crosses to the database: saving the whole text each
    // time made a long reply's saves cost its length squared. Saves of one reply never overlap.
    save: db
      .update(chatMessages)
      .set({
        content: sql`${chatMessages.content} || ${sql.placeholder('content')}`,
        thinking: sql`case when ${chatMessages.thinking} is null and ${sql.placeholder('thinking')}::text = '' then null else coalesce(${chatMessages.thinking}, '') || ${sql.placeholder('thinking')}::text end`,
        updatedAt: sql`${sql.placeholder('at')}`
      })
      .where(streamingReply)
      .prepare('lingxi_reply_append')
  }
}
const replyWrites = new WeakMap<Db, ReturnType<typeof prepareReplyWrites>>()

export interface ReplyWriterOptions {
  db: Db
  logger: Logger
  now: () => number
  /** The growing reply is saved at most this often… */
  flushIntervalMs: number
  /** …or as soon as this many new bytes arrived. */
  flushBytes: number
}

export interface ReplyWriter {
  /** `chunk` was added to the text: saves what is new when enough arrived, or soon. */
  grew(chunk: string): void
  /** No more saves are planned; resolves when the ones under way ended. */
  end(): Promise<void>
}

/**
 * Saves a streaming reply's growing text (read through `text`) to its row at a bounded rate;
 * writes never overlap, and a failed save is sent again with the next one.
 */
export function createReplyWriter(options: ReplyWriterOptions, replyId: string, text: () => { content: string; thinking: string }): ReplyWriter {
  const { db, logger, now, flushIntervalMs, flushBytes } = options
  let writesOf = replyWrites.get(db)
  if (!writesOf) {
    writesOf = prepareReplyWrites(db)
    replyWrites.set(db, writesOf)
  }
  const save = writesOf.save
  let pending = 0
  let timer: NodeJS.Timeout | undefined
  let writes = Promise.resolve()
  // How much of the text the row has: a save sends what follows.
  let saved = { content: 0, thinking: 0 }
  const flush = () => {
    if (timer) clearTimeout(timer)
    timer = undefined
    pending = 0
    writes = writes
      .then(async () => {
        const { content, thinking } = text()
        const upTo = { content: content.length, thinking: thinking.length }
        await save.execute({
          content: content.slice(saved.content, upTo.content),
          thinking: thinking.slice(saved.thinking, upTo.thinking),
          at: new Date(now()).toISOString(),
          id: replyId
        })
        saved = upTo
      })
      .catch((error: unknown) => logger.error('saving a streaming reply failed', { error, replyId }))
  }
  return {
    grew(chunk) {
      pending += Buffer.byteLength(chunk)
      if (pending >= flushBytes) flush()
      else timer ??= setTimeout(flush, flushIntervalMs)
    },
    end() {
      if (timer) clearTimeout(timer)
      return writes
    }
  }
}
