import { afterEach, describe, expect, it } from 'vitest'
import type { Kv } from '../src/kv/kv.js'
import { createMemoryKv } from '../src/kv/memory-kv.js'
import { testClock, testKv } from './helpers/harness.js'

const kinds = process.env.REDIS_URL ? ['memory', 'redis'] : ['memory']
const stores: Kv[] = []

afterEach(async () => {
  await Promise.all(stores.splice(0).map((kv) => kv.close()))
})

describe.each(kinds)('%s kv', (kind) => {
  const make = () => {
    const clock = testClock()
    const kv = kind === 'memory' ? createMemoryKv(clock.now) : testKv(clock.now)
    stores.push(kv)
    return { kv, clock }
  }

  it('setIfAbsent: exactly one of many concurrent callers wins', async () => {
    const { kv } = make()
    const results = await Promise.all(Array.from({ length: 20 }, () => kv.setIfAbsent('lock', 60_000)))
    expect(results.filter(Boolean)).toHaveLength(1)
  })

  it('setIfAbsent: the key frees up when its time is over, or when deleted', async () => {
    const { kv, clock } = make()
    expect(await kv.setIfAbsent('k', 1000)).toBe(true)
    expect(await kv.ttl('k')).toBe(1000)
    clock.advance(999)
    expect(await kv.setIfAbsent('k', 1000)).toBe(false)
    expect(await kv.ttl('k')).toBe(1)
    clock.advance(1)
    expect(await kv.ttl('k')).toBe(0)
    expect(await kv.setIfAbsent('k', 1000)).toBe(true)
    await kv.del('k')
    expect(await kv.setIfAbsent('k', 1000)).toBe(true)
  })

  it('incr: counts within a window that starts at the first increment', async () => {
    const { kv, clock } = make()
    const counts = await Promise.all(Array.from({ length: 10 }, () => kv.incr('n', 3600_000)))
    expect(counts.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    clock.advance(3000_000)
    expect(await kv.incr('n', 3600_000)).toBe(11)
    expect(await kv.ttl('n')).toBe(600_000)
    clock.advance(600_000)
    expect(await kv.incr('n', 3600_000)).toBe(1)
  })

  it('keeps keys apart', async () => {
    const { kv } = make()
    expect(await kv.setIfAbsent('a', 1000)).toBe(true)
    expect(await kv.setIfAbsent('b', 1000)).toBe(true)
    expect(await kv.incr('c', 1000)).toBe(1)
    expect(await kv.ttl('missing')).toBe(0)
  })
})
