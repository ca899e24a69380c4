import { describe, expect, it } from 'vitest'
import { createSessionCache } from '../src/auth/session-cache.js'
import type { AuthInfo } from '../src/auth/sessions.js'
import { createMemoryBus } from '../src/events/index.js'

function auth(sessionId: number, accountId: string, expiresAt = 1e15): AuthInfo {
  return { sessionId, platform: 'PC', expiresAt, account: { id: accountId } as AuthInfo['account'] }
}

describe('session cache', () => {
  it('answers for its few seconds, never past the session expiry, and forgets the oldest beyond its size', () => {
    let t = 1000
    const cache = createSessionCache({ now: () => t, ttlMs: 5000, max: 2 })
    cache.set('a', auth(1, 'x'))
    expect(cache.get('a')?.sessionId).toBe(1)
    t += 4999
    expect(cache.get('a')?.sessionId).toBe(1)
    t += 1
    expect(cache.get('a')).toBeUndefined()

    cache.set('b', auth(2, 'x', t + 10))
    t += 10
    expect(cache.get('b')).toBeUndefined()

    cache.set('c', auth(3, 'y'))
    cache.set('d', auth(4, 'y'))
    cache.set('e', auth(5, 'z'))
    expect(cache.size()).toBe(2)
    expect(cache.get('c')).toBeUndefined()
    expect(cache.get('e')?.sessionId).toBe(5)
  })

  it('forgets revoked sessions and changed accounts, on announcements of the bus too', async () => {
    const bus = createMemoryBus()
    const cache = createSessionCache({ now: () => 0, bus })
    cache.set('a', auth(1, 'x'))
    cache.set('b', auth(2, 'x'))
    cache.set('c', auth(3, 'y'))
    cache.forgetSessions([1])
    expect(cache.get('a')).toBeUndefined()
    expect(cache.get('b')?.sessionId).toBe(2)
    await bus.control({ type: 'revoke', sessionIds: [3] })
    expect(cache.get('c')).toBeUndefined()
    cache.set('c', auth(3, 'y'))
    await bus.control({ type: 'account', accountIds: ['x'] })
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('c')?.sessionId).toBe(3)
    cache.forgetAccounts(['y'])
    expect(cache.size()).toBe(0)
    await bus.close()
  })

  it('keeps nothing with a time of 0', () => {
    const cache = createSessionCache({ now: () => 0, ttlMs: 0 })
    cache.set('a', auth(1, 'x'))
    expect(cache.get('a')).toBeUndefined()
  })
})
