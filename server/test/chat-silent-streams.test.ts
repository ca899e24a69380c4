import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { chatMessages } from '../src/db/schema.js'
import { type FakeOpenAi, startFakeOpenAi } from './fakes/openai.js'
import { chatHelpers, fakeEnv, parseFrames, waitUntil } from './helpers/chat.js'
import { useHarness } from './helpers/database-hooks.js'

let fake: FakeOpenAi
beforeAll(async () => {
  fake = await startFakeOpenAi()
})
afterAll(async () => {
  await fake.close()
})

// Replies that say one word and then nothing for longer than the test: their streams stay silent.
const ctx = useHarness(() => ({
  env: fakeEnv(fake, { CHAT_TIMEOUT_MS: '60000', CHAT_IDLE_TIMEOUT_MS: '60000' }),
  chat: { heartbeatMs: 40 }
}))
const chat = chatHelpers(ctx)

/** `n` replies of one account that each stream one delta and then hang; their streams, read as they come. */
async function silentStreams(n: number) {
  fake.script({ kind: 'stream', chunks: ['一', '二'], hangAfter: 1 })
  const { token } = await chat.user()
  const streams: { replyId: string; text: string; pings: () => number; done: Promise<void> }[] = []
  for (let k = 0; k < n; k++) {
    const topic = await chat.topic(token, { model: 'fake-gpt' })
    const sent = await chat.send(token, topic.topicId, `第 ${k} 个`)
    const res = await chat.subscribe(token, sent.body.data.requestId)
    expect(res.status).toBe(200)
    const stream = {
      replyId: sent.body.data.replyId as string,
      text: '',
      pings: () => stream.text.split(': ping\n\n').length - 1,
      done: Promise.resolve()
    }
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    stream.done = (async () => {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        stream.text += decoder.decode(value, { stream: true })
      }
    })()
    streams.push(stream)
  }
  await waitUntil(() => streams.every((s) => s.text.includes('id: 1\nevent: delta')))
  return streams
}

describe('silent streams', () => {
  it('five silent streams cost one status query per heartbeat between them, not one each', async () => {
    const streams = await silentStreams(5)
    const select = vi.spyOn(ctx.db.db, 'select')
    try {
      const pingsBefore = streams[0]!.pings()
      await waitUntil(() => streams[0]!.pings() >= pingsBefore + 8)
      const beats = streams[0]!.pings() - pingsBefore
      const queries = select.mock.calls.length
      // One batch per heartbeat (one more may be under way as the count is taken); one query per
      // stream per heartbeat would be 5 × beats.
      expect(queries).toBeGreaterThanOrEqual(beats - 1)
      expect(queries).toBeLessThanOrEqual(beats + 1)
    } finally {
      select.mockRestore()
    }
    for (const s of streams) expect(s.text).not.toContain('event: done')
  })

  it('a silent stream whose reply finished without its final event ends from the saved row', async () => {
    const [stream, other] = await silentStreams(2)
    // As if the node that ran it wrote the row and died before its final event reached the bus.
    await ctx.db.db.update(chatMessages).set({ status: 'complete', content: '一', held: 0 }).where(eq(chatMessages.id, stream!.replyId))
    await stream!.done
    const frames = parseFrames(stream!.text).filter((f) => f.id)
    expect(frames.map((f) => [f.id, f.event])).toEqual([
      ['1', 'delta'],
      ['2', 'done']
    ])
    expect(JSON.parse(frames[1]!.data!)).toMatchObject({ status: 'complete', messageId: stream!.replyId })
    // The other reply still streams: its stream stays open through the same heartbeats.
    const pings = other!.pings()
    await waitUntil(() => other!.pings() >= pings + 2)
    expect(other!.text).not.toContain('event: done')
  })
})
