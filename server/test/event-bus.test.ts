import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterEach, describe, expect, it } from 'vitest'
import type { ControlMessage, EventBus, StreamEvent } from '../src/events/bus.js'
import { createMemoryBus, createRedisBus } from '../src/events/index.js'
import { waitUntil } from './helpers/chat.js'
import { dropRedisKeys } from './helpers/redis.js'

const REDIS_URL = process.env.REDIS_URL
const kinds = REDIS_URL ? (['memory', 'redis'] as const) : (['memory'] as const)
const buses: EventBus[] = []
const prefixes: string[] = []

afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()))
  if (REDIS_URL && prefixes.length > 0) await dropRedisKeys(REDIS_URL, ...prefixes.splice(0))
})

function collect() {
  const events: StreamEvent[] = []
  let ended = false
  return {
    events,
    get ended() {
      return ended
    },
    listener: {
      event: (e: StreamEvent) => void events.push(e),
      end: () => {
        ended = true
      }
    }
  }
}

describe.each(kinds)('%s event bus', (kind) => {
  const prefix = `lingxi_t_${randomBytes(6).toString('hex')}:`
  /** Each call is a node; with Redis, nodes made in one test share the prefix, i.e. one deployment. */
  const node = (retentionMs?: number): EventBus => {
    const options = retentionMs === undefined ? {} : { retentionMs }
    const bus = kind === 'memory' ? createMemoryBus(options) : createRedisBus({ url: REDIS_URL!, prefix, ...options })
    if (kind === 'redis') prefixes.push(prefix)
    buses.push(bus)
    return bus
  }

  it('numbers events from 1, replays after any id, follows live, and ends after the final event', async () => {
    const bus = node()
    expect(await bus.append('s', 'delta', '{"content":"a"}')).toBe(1)
    expect(await bus.append('s', 'delta', '{"content":"b"}')).toBe(2)
    const late = collect()
    const sub = await bus.follow('s', 0, late.listener)
    expect(sub.known).toBe(true)
    expect(late.events.map((e) => e.id)).toEqual([1, 2])
    const after1 = collect()
    await bus.follow('s', 1, after1.listener)
    await bus.append('s', 'delta', '{"content":"c"}')
    await bus.append('s', 'done', '{"status":"complete"}', true)
    await waitUntil(() => late.ended && after1.ended)
    expect(late.events).toEqual([
      { id: 1, event: 'delta', data: '{"content":"a"}', final: false },
      { id: 2, event: 'delta', data: '{"content":"b"}', final: false },
      { id: 3, event: 'delta', data: '{"content":"c"}', final: false },
      { id: 4, event: 'done', data: '{"status":"complete"}', final: true }
    ])
    expect(after1.events.map((e) => e.id)).toEqual([2, 3, 4])
    expect(await bus.last('s')).toMatchObject({ id: 4, final: true })
    // Following an ended stream past its end: nothing, and an immediate end.
    const past = collect()
    await bus.follow('s', 4, past.listener)
    expect(past.events).toEqual([])
    expect(past.ended).toBe(true)
    expect(bus.stats().followers).toBe(0)
  })

  it('delivers every event once and in order to followers that join while events pour in', async () => {
    const bus = node()
    const followers: ReturnType<typeof collect>[] = []
    const writing = (async () => {
      for (let i = 1; i <= 200; i++) await bus.append('busy', 'delta', JSON.stringify({ i }), i === 200)
    })()
    for (let n = 0; n < 5; n++) {
      const f = collect()
      followers.push(f)
      await bus.follow('busy', 0, f.listener)
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    await writing
    await waitUntil(() => followers.every((f) => f.ended))
    for (const f of followers) expect(f.events.map((e) => e.id)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1))
  })

  it('knows nothing of a stream it never had, and waits for its first event', async () => {
    const bus = node()
    const f = collect()
    const sub = await bus.follow('new', 0, f.listener)
    expect(sub.known).toBe(false)
    expect(await bus.last('new')).toBeUndefined()
    await bus.append('new', 'delta', '{}')
    await waitUntil(() => f.events.length === 1)
    sub.close()
    expect(bus.stats().followers).toBe(0)
    await bus.append('new', 'delta', '{}')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(f.events).toHaveLength(1)
  })

  it('fans account events out to current listeners only, and carries control messages', async () => {
    const a = node()
    // In memory there is one process; with Redis, a second node of the same deployment.
    const b = kind === 'memory' ? a : node()
    const heard: string[] = []
    const sub = await a.subscribe('acc-1', (event, data) => heard.push(`${event} ${data}`))
    const stranger = await a.subscribe('acc-2', () => heard.push('wrong account'))
    await b.publish('acc-1', { event: 'painting', data: { jobId: 'j1', progress: 50 } })
    await waitUntil(() => heard.length === 1)
    expect(heard).toEqual(['painting {"jobId":"j1","progress":50}'])
    sub.close()
    stranger.close()
    await b.publish('acc-1', { event: 'painting', data: { progress: 100 } })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(heard).toHaveLength(1)
    expect(a.stats().accountListeners).toBe(0)

    const controls: ControlMessage[] = []
    const listening = a.onControl((m) => controls.push(m))
    // A stop sent on node B reaches node A, where the generation runs; so does a revocation,
    // whose sessions' streams every node closes.
    await b.control({ type: 'stop', stream: 'acc-1:req-1' })
    await b.control({ type: 'revoke', sessionIds: [7, 8] })
    await waitUntil(() => controls.length === 2)
    expect(controls).toEqual([
      { type: 'stop', stream: 'acc-1:req-1' },
      { type: 'revoke', sessionIds: [7, 8] }
    ])
    listening.close()
    await b.control({ type: 'stop', stream: 'x' })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(controls).toHaveLength(2)
  })

  it('keeps a stream for the retention time after its last event, then forgets it', async () => {
    if (kind === 'redis') {
      const bus = node()
      await bus.append('kept', 'delta', '{}')
      await bus.append('kept', 'done', '{}', true)
      const redis = new Redis(REDIS_URL!)
      const ttl = await redis.pttl(`${prefix}chat:stream:kept`)
      await redis.quit()
      expect(ttl).toBeGreaterThan(9.9 * 60_000)
      expect(ttl).toBeLessThanOrEqual(10 * 60_000)
      // Another node replays it from Redis.
      const other = node()
      const f = collect()
      await other.follow('kept', 0, f.listener)
      expect(f.events.map((e) => e.event)).toEqual(['delta', 'done'])
      expect(f.ended).toBe(true)
    }
    const short = node(60)
    await short.append('brief', 'done', '{}', true)
    expect(await short.last('brief')).toBeDefined()
    await new Promise((resolve) => setTimeout(resolve, 120))
    expect(await short.last('brief')).toBeUndefined()
    const f = collect()
    expect((await short.follow('brief', 0, f.listener)).known).toBe(false)
  })

  if (kind === 'redis') {
    it('lets a follower on node B see a stream written on node A, live', async () => {
      const a = node()
      const b = node()
      await a.append('shared', 'delta', '{"n":1}')
      const f = collect()
      await b.follow('shared', 0, f.listener)
      await a.append('shared', 'delta', '{"n":2}')
      await a.append('shared', 'done', '{}', true)
      await waitUntil(() => f.ended)
      expect(f.events.map((e) => e.data)).toEqual(['{"n":1}', '{"n":2}', '{}'])
    })
  }
})

describe('memory event bus housekeeping', () => {
  it('drops a stream that never got its final event once it has been quiet for the retention time', async () => {
    const bus = createMemoryBus({ retentionMs: 40 })
    buses.push(bus)
    await bus.append('abandoned', 'delta', '{}')
    const f = collect()
    await bus.follow('abandoned', 0, f.listener)
    await waitUntil(async () => (await bus.last('abandoned')) === undefined, 1000)
    expect(f.ended).toBe(true)
    expect(bus.stats().followers).toBe(0)
  })
})

describe.each(kinds)('%s event bus, Last-Event-ID ahead of the stream', (kind) => {
  it('skips live events up to the id asked for', async () => {
    const prefix = `lingxi_t_${randomBytes(6).toString('hex')}:`
    const bus = kind === 'memory' ? createMemoryBus() : createRedisBus({ url: REDIS_URL!, prefix })
    buses.push(bus)
    if (kind === 'redis') prefixes.push(prefix)
    await bus.append('ahead', 'delta', '1')
    const f = collect()
    await bus.follow('ahead', 3, f.listener)
    for (const n of [2, 3, 4]) await bus.append('ahead', 'delta', String(n), n === 4)
    await waitUntil(() => f.ended)
    expect(f.events.map((e) => e.id)).toEqual([4])
  })
})
