import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { chatMessages } from '../src/db/schema.js'
import { createReplyWriter, type ReplyWriterOptions } from '../src/replies/reply-writer.js'
import { chatHelpers } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

// The streaming reply's saves (replies/reply-writer.ts), alone: what arrived since the last save
// is appended to the row at a bounded rate, only while the row is still streaming.

const ctx = useHarness()
const chat = chatHelpers(ctx)

async function streamingRow(): Promise<string> {
  const { token, accountId } = await chat.user()
  const topic = await chat.topic(token)
  const id = randomUUID()
  const at = new Date()
  await ctx.db.db.insert(chatMessages).values({
    id,
    accountId,
    topicId: topic.topicId,
    role: 'assistant',
    status: 'streaming',
    requestId: randomUUID(),
    createdAt: at,
    updatedAt: at
  })
  return id
}

const row = async (id: string) => (await ctx.db.db.select().from(chatMessages).where(eq(chatMessages.id, id)))[0]!

function writer(id: string, text: { content: string; thinking: string }, tuning: Partial<ReplyWriterOptions> = {}) {
  const options = { db: ctx.db.db, logger: ctx.h.logger, now: Date.now, flushIntervalMs: 60_000, flushBytes: 8, ...tuning }
  const w = createReplyWriter(options, id, () => text)
  return {
    add(kind: 'content' | 'thinking', chunk: string) {
      text[kind] += chunk
      w.grew(chunk)
    },
    end: () => w.end()
  }
}

describe('the reply writer', () => {
  it('saves once enough bytes arrived, appending only what is new, and leaves the rest to the end', async () => {
    const id = await streamingRow()
    const w = writer(id, { content: '', thinking: '' })
    w.add('thinking', '想')
    w.add('content', '你好') // 9 bytes of UTF-8 by now: a save
    await w.end()
    const saved = await row(id)
    expect(saved.content).toBe('你好')
    expect(saved.thinking).toBe('想')
    // Under the threshold, and the interval is a minute: not saved here (the settlement writes the
    // whole reply, replies/settle.ts).
    w.add('content', '!')
    await w.end()
    expect((await row(id)).content).toBe('你好')
    w.add('content', '世界之大无奇不有') // 25 bytes waiting: one save, of everything the row lacks
    await w.end()
    expect((await row(id)).content).toBe('你好!世界之大无奇不有')
  })

  it('saves a slow trickle after the interval, and nothing after end', async () => {
    const id = await streamingRow()
    const w = writer(id, { content: '', thinking: '' }, { flushBytes: 1_000, flushIntervalMs: 20 })
    w.add('content', 'a')
    await expect.poll(async () => (await row(id)).content, { timeout: 5_000 }).toBe('a')
    expect((await row(id)).thinking).toBeNull()
    w.add('content', 'b')
    await w.end()
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect((await row(id)).content).toBe('a')
  })

  it('never writes a reply that is no longer streaming', async () => {
    const id = await streamingRow()
    await ctx.db.db.update(chatMessages).set({ status: 'complete', content: '终稿' }).where(eq(chatMessages.id, id))
    const w = writer(id, { content: '', thinking: '' })
    w.add('content', '迟到的一大段文字')
    await w.end()
    expect((await row(id)).content).toBe('终稿')
  })
})
