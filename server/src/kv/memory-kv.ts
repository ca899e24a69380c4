import type { Kv } from './kv.js'

interface Entry {
  count: number
  expiresAt: number
}

export function createMemoryKv(now: () => number = Date.now): Kv {
  const entries = new Map<string, Entry>()

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key)
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key)
      return undefined
    }
    return entry
  }

  // Keys are per phone and per address; without a sweep, a long-running process would keep them all.
  const sweep = setInterval(() => {
    const t = now()
    for (const [key, entry] of entries) if (entry.expiresAt <= t) entries.delete(key)
  }, 60_000)
  sweep.unref()

  // Each method completes synchronously before its promise resolves, so no two calls interleave.
  return {
    async setIfAbsent(key, ttlMs) {
      if (live(key)) return false
      entries.set(key, { count: 1, expiresAt: now() + ttlMs })
      return true
    },
    async incr(key, ttlMs) {
      const entry = live(key)
      if (entry) return ++entry.count
      entries.set(key, { count: 1, expiresAt: now() + ttlMs })
      return 1
    },
    async ttl(key) {
      const entry = live(key)
      return entry ? entry.expiresAt - now() : 0
    },
    async del(key) {
      entries.delete(key)
    },
    async close() {
      clearInterval(sweep)
      entries.clear()
    }
  }
}
