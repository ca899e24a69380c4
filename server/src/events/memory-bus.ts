import { type AccountListener, type ControlMessage, DEFAULT_RETENTION_MS, type EventBus, type StreamEvent, type StreamListener } from './bus.js'

interface Follower {
  listener: StreamListener
  /** Live events up to this id were asked to be skipped (a Last-Event-ID ahead of the stream). */
  after: number
}

interface Stream {
  events: StreamEvent[]
  followers: Set<Follower>
  /** Set once the final event is in. */
  expiry: NodeJS.Timeout | undefined
  /** Date.now() of the last append (or of creation). */
  touched: number
}

/**
 * The single-process bus: streams in a map, each dropped `retentionMs` after its final event. A
 * stream that never gets one (its writer failed) is dropped by a periodic sweep once it has been
 * quiet that long. No timer per event: appends are the hot path.
 */
export function createMemoryBus({ retentionMs = DEFAULT_RETENTION_MS }: { retentionMs?: number } = {}): EventBus {
  const streams = new Map<string, Stream>()
  const accounts = new Map<string, Set<AccountListener>>()
  const controls = new Set<(message: ControlMessage) => void>()
  let followerCount = 0

  const stream = (key: string): Stream => {
    let s = streams.get(key)
    if (!s) {
      s = { events: [], followers: new Set(), expiry: undefined, touched: Date.now() }
      streams.set(key, s)
    }
    return s
  }

  const drop = (key: string, s: Stream) => {
    if (streams.get(key) !== s) return
    if (s.expiry) clearTimeout(s.expiry)
    streams.delete(key)
    for (const f of s.followers) f.listener.end()
    followerCount -= s.followers.size
    s.followers.clear()
  }
  const expire = (key: string, s: Stream) => {
    if (s.expiry) clearTimeout(s.expiry)
    s.expiry = setTimeout(() => drop(key, s), retentionMs)
    s.expiry.unref()
  }
  const sweep = setInterval(
    () => {
      const quietSince = Date.now() - retentionMs
      for (const [key, s] of streams) if (!s.expiry && s.touched <= quietSince) drop(key, s)
    },
    Math.min(retentionMs, 60_000)
  )
  sweep.unref()

  const detach = (s: Stream, f: Follower) => {
    if (s.followers.delete(f)) followerCount--
  }

  return {
    async append(key, event, data, final = false) {
      const s = stream(key)
      const e: StreamEvent = { id: s.events.length + 1, event, data, final }
      s.events.push(e)
      s.touched = Date.now()
      if (final) expire(key, s)
      for (const f of [...s.followers]) {
        if (e.id > f.after) f.listener.event(e)
        if (final) {
          detach(s, f)
          f.listener.end()
        }
      }
      return e.id
    },

    async follow(key, afterId, listener) {
      const s = streams.get(key)
      const known = s !== undefined && s.events.length > 0
      let closed = false
      if (s) {
        // Synchronous from here to the attach: no event can slip between replay and live.
        for (const e of s.events.slice(afterId)) listener.event(e)
        if (s.events.at(-1)?.final) {
          listener.end()
          return { known, close() {} }
        }
      }
      const target = s ?? stream(key)
      const follower: Follower = { listener, after: afterId }
      target.followers.add(follower)
      followerCount++
      return {
        known,
        close() {
          if (closed) return
          closed = true
          detach(target, follower)
        }
      }
    },

    async last(key) {
      return streams.get(key)?.events.at(-1)
    },

    async publish(accountId, { event, data }) {
      const listeners = accounts.get(accountId)
      if (!listeners || listeners.size === 0) return
      const text = JSON.stringify(data)
      for (const listener of [...listeners]) listener(event, text)
    },

    async subscribe(accountId, listener) {
      let set = accounts.get(accountId)
      if (!set) {
        set = new Set()
        accounts.set(accountId, set)
      }
      set.add(listener)
      return {
        close() {
          const current = accounts.get(accountId)
          if (!current) return
          current.delete(listener)
          if (current.size === 0) accounts.delete(accountId)
        }
      }
    },

    async control(message) {
      for (const listener of [...controls]) listener(message)
    },

    onControl(listener) {
      controls.add(listener)
      return { close: () => void controls.delete(listener) }
    },

    stats() {
      let accountListeners = 0
      for (const set of accounts.values()) accountListeners += set.size
      return { followers: followerCount, accountListeners, controlListeners: controls.size }
    },

    async close() {
      clearInterval(sweep)
      for (const s of streams.values()) {
        if (s.expiry) clearTimeout(s.expiry)
        for (const f of s.followers) f.listener.end()
      }
      streams.clear()
      followerCount = 0
      accounts.clear()
      controls.clear()
    }
  }
}
