import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { type AccountListener, type ControlMessage, DEFAULT_RETENTION_MS, type EventBus, type StreamEvent, type StreamListener } from './bus.js'

// XADD with id "0-*" lets Redis number the entries 0-1, 0-2 … atomically, whoever appends; the
// sequence part is the event id. The expiry is renewed on every append, and the new entry is
// announced on the stream's channel in the same script, so followers on every node hear of it.
const APPEND = `
local id = redis.call('XADD', KEYS[1], '0-*', 'e', ARGV[1], 'd', ARGV[2], 'f', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local seq = string.match(id, '%-(%d+)$')
redis.call('PUBLISH', ARGV[5], seq .. '\\n' .. ARGV[1] .. '\\n' .. ARGV[3] .. '\\n' .. ARGV[2])
return seq`

export interface RedisBusOptions {
  url: string
  prefix: string
  retentionMs?: number
  onError?: (error: Error) => void
}

type RawEntry = [id: string, fields: string[]]

function toEvent([id, fields]: RawEntry): StreamEvent {
  const map: Record<string, string> = {}
  for (let i = 0; i + 1 < fields.length; i += 2) map[fields[i]!] = fields[i + 1]!
  return { id: Number(id.slice(id.indexOf('-') + 1)), event: map.e ?? '', data: map.d ?? '', final: map.f === '1' }
}

function parseAnnouncement(text: string): StreamEvent | undefined {
  const a = text.indexOf('\n')
  const b = text.indexOf('\n', a + 1)
  const c = text.indexOf('\n', b + 1)
  if (a < 0 || b < 0 || c < 0) return undefined
  return { id: Number(text.slice(0, a)), event: text.slice(a + 1, b), final: text.slice(b + 1, c) === '1', data: text.slice(c + 1) }
}

interface Follower {
  stream: string
  listener: StreamListener
  last: number
  /** Every step (replay, live event, gap fill) runs in this chain, so delivery is ordered. */
  chain: Promise<void>
  done: boolean
}

/**
 * Redis streams keep the events for replay; one subscriber connection per node carries the live
 * announcements (subscribed per stream or account while someone here listens) and the control channel.
 */
export function createRedisBus({ url, prefix, retentionMs = DEFAULT_RETENTION_MS, onError = () => {} }: RedisBusOptions): EventBus {
  const redis = new Redis(url, { maxRetriesPerRequest: 2 })
  const sub = new Redis(url, { maxRetriesPerRequest: 2 })
  redis.on('error', onError)
  sub.on('error', onError)

  const streamKey = (stream: string) => `${prefix}chat:stream:${stream}`
  const streamChannel = (stream: string) => `${prefix}bus:stream:${stream}`
  const accountChannel = (accountId: string) => `${prefix}bus:account:${accountId}`
  const controlChannel = `${prefix}bus:control`

  const followers = new Map<string, Set<Follower>>()
  const accounts = new Map<string, Set<AccountListener>>()
  const controls = new Set<(message: ControlMessage) => void>()
  /** Control messages this node published, until its own subscription delivers them. */
  const ownControls = new Map<string, () => void>()
  let controlCount = 0
  const busId = randomUUID()
  let followerCount = 0
  let closed = false

  // Channel subscriptions are counted, and changes to one channel run in order.
  const channelUsers = new Map<string, number>()
  const channelOps = new Map<string, Promise<unknown>>()
  const queue = (channel: string, op: () => Promise<unknown>) => {
    const next = (channelOps.get(channel) ?? Promise.resolve()).then(op, op)
    channelOps.set(channel, next)
    void next
      .finally(() => {
        if (channelOps.get(channel) === next) channelOps.delete(channel)
      })
      .catch(() => {})
    return next
  }
  const acquire = (channel: string) => {
    const n = (channelUsers.get(channel) ?? 0) + 1
    channelUsers.set(channel, n)
    return queue(channel, async () => {
      if (channelUsers.get(channel)! > 0) await sub.subscribe(channel)
    })
  }
  const release = (channel: string) => {
    const n = (channelUsers.get(channel) ?? 1) - 1
    if (n <= 0) channelUsers.delete(channel)
    else channelUsers.set(channel, n)
    if (n <= 0 && !closed) {
      void queue(channel, async () => {
        if (!channelUsers.has(channel)) await sub.unsubscribe(channel)
      }).catch(onError)
    }
  }

  const controlReady = sub.subscribe(controlChannel).catch((error: Error) => onError(error))

  const rangeAfter = async (stream: string, afterId: number): Promise<StreamEvent[]> => {
    const entries = (await redis.xrange(streamKey(stream), `(0-${afterId}`, '+')) as RawEntry[]
    return entries.map(toEvent)
  }

  const finish = (f: Follower) => {
    if (f.done) return
    f.done = true
    const set = followers.get(f.stream)
    if (set?.delete(f)) {
      followerCount--
      if (set.size === 0) followers.delete(f.stream)
      release(streamChannel(f.stream))
    }
  }

  const deliver = (f: Follower, e: StreamEvent) => {
    if (f.done || e.id <= f.last) return
    f.last = e.id
    f.listener.event(e)
    if (e.final) {
      finish(f)
      f.listener.end()
    }
  }

  // A live announcement: the next event goes straight out; a gap (missed announcement) is filled from the stream.
  const onLive = (f: Follower, e: StreamEvent) => {
    f.chain = f.chain
      .then(async () => {
        if (f.done || e.id <= f.last) return
        if (e.id === f.last + 1) return deliver(f, e)
        for (const missed of await rangeAfter(f.stream, f.last)) deliver(f, missed)
      })
      .catch(onError)
  }

  sub.on('message', (channel: string, message: string) => {
    if (channel === controlChannel) {
      let parsed: ControlMessage
      try {
        parsed = JSON.parse(message) as ControlMessage
      } catch {
        return
      }
      const { nonce, ...rest } = parsed as ControlMessage & { nonce?: unknown }
      for (const listener of [...controls]) listener(rest as ControlMessage)
      if (typeof nonce === 'string') ownControls.get(nonce)?.()
      return
    }
    if (channel.startsWith(`${prefix}bus:stream:`)) {
      const set = followers.get(channel.slice(`${prefix}bus:stream:`.length))
      if (!set) return
      const e = parseAnnouncement(message)
      if (e) for (const f of [...set]) onLive(f, e)
      return
    }
    if (channel.startsWith(`${prefix}bus:account:`)) {
      const set = accounts.get(channel.slice(`${prefix}bus:account:`.length))
      if (!set) return
      const nl = message.indexOf('\n')
      const event = message.slice(0, nl)
      const data = message.slice(nl + 1)
      for (const listener of [...set]) listener(event, data)
    }
  })

  return {
    async append(stream, event, data, final = false) {
      const seq = await redis.eval(APPEND, 1, streamKey(stream), event, data, final ? '1' : '0', retentionMs, streamChannel(stream))
      return Number(seq)
    },

    async follow(stream, afterId, listener) {
      const f: Follower = { stream, listener, last: afterId, chain: Promise.resolve(), done: false }
      let set = followers.get(stream)
      if (!set) {
        set = new Set()
        followers.set(stream, set)
      }
      set.add(f)
      followerCount++
      // Subscribe before reading the stream: an event appended in between is then heard, and the
      // ids tell it apart from the replay. Live announcements queue behind the replay.
      let known = false
      const ready = acquire(streamChannel(stream)).then(async () => {
        const events = await rangeAfter(stream, afterId)
        if (events.length > 0) known = true
        else {
          const [last] = (await redis.xrevrange(streamKey(stream), '+', '-', 'COUNT', 1)) as RawEntry[]
          if (last) {
            known = true
            const e = toEvent(last)
            if (e.final && e.id <= afterId && !f.done) {
              finish(f)
              listener.end()
            }
          }
        }
        for (const e of events) deliver(f, e)
      })
      f.chain = ready.catch(() => {})
      try {
        await ready
      } catch (error) {
        finish(f)
        throw error
      }
      return { known, close: () => finish(f) }
    },

    async last(stream) {
      const [last] = (await redis.xrevrange(streamKey(stream), '+', '-', 'COUNT', 1)) as RawEntry[]
      return last ? toEvent(last) : undefined
    },

    async publish(accountId, { event, data }) {
      await redis.publish(accountChannel(accountId), `${event}\n${JSON.stringify(data)}`)
    },

    async subscribe(accountId, listener) {
      let set = accounts.get(accountId)
      if (!set) {
        set = new Set()
        accounts.set(accountId, set)
      }
      set.add(listener)
      await acquire(accountChannel(accountId))
      let done = false
      return {
        close() {
          if (done) return
          done = true
          const current = accounts.get(accountId)
          current?.delete(listener)
          if (current?.size === 0) accounts.delete(accountId)
          release(accountChannel(accountId))
        }
      }
    },

    async control(message) {
      await controlReady
      // Resolves once this node's own subscription has it too (at most a second later): Redis has
      // then handed it to every node, so a request that follows the caller's answer finds it done
      // (a revoked session's cached copy is gone everywhere; auth/session-cache.ts).
      const nonce = `${busId}:${++controlCount}`
      const seen = new Promise<void>((resolve) => {
        const timer = setTimeout(done, 1000)
        function done() {
          clearTimeout(timer)
          ownControls.delete(nonce)
          resolve()
        }
        ownControls.set(nonce, done)
      })
      try {
        await redis.publish(controlChannel, JSON.stringify({ ...message, nonce }))
      } catch (error) {
        ownControls.get(nonce)?.()
        throw error
      }
      await seen
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
      closed = true
      for (const set of followers.values()) {
        for (const f of set) {
          f.done = true
          f.listener.end()
        }
      }
      followers.clear()
      followerCount = 0
      accounts.clear()
      controls.clear()
      await Promise.allSettled([sub.quit(), redis.quit()])
    }
  }
}
