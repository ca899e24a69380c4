import { atom, type ReadableAtom } from 'nanostores'
import { shared } from './shared'
import { subscribe } from './sse'
import { $token } from './stores'

/** Path of the account channel: every event of the logged-in account (job progress, stream events). */
const ACCOUNT_CHANNEL = '/ai-chat/sse/subscribe'

type Listener = (data: unknown) => void

interface Channel {
  listeners: Map<string, Set<Listener>>
  controller: AbortController | undefined
  /** True while a connection is open; widgets poll instead while it is false. */
  $open: ReturnType<typeof atom<boolean>>
}

const channel = () =>
  shared<Channel>('accountChannel', () => {
    const c: Channel = { listeners: new Map(), controller: undefined, $open: atom(false) }
    // A new token (login, logout, phone change) means a new connection, or none.
    $token.listen(() => {
      stop(c)
      sync(c)
    })
    return c
  })

function count(c: Channel): number {
  let n = 0
  for (const set of c.listeners.values()) n += set.size
  return n
}

function stop(c: Channel) {
  c.controller?.abort()
  c.controller = undefined
  c.$open.set(false)
}

/** Opens the one connection of the page when someone listens and a token exists; closes it otherwise. */
function sync(c: Channel) {
  const wanted = count(c) > 0 && Boolean($token.get())
  if (!wanted) return stop(c)
  if (c.controller) return
  const controller = new AbortController()
  c.controller = controller
  subscribe(ACCOUNT_CHANNEL, {
    signal: controller.signal,
    terminal: [],
    onOpen: () => c.$open.set(true),
    onEvent(name, data) {
      for (const fn of [...(c.listeners.get(name) ?? [])]) {
        try {
          fn(data)
        } catch (error) {
          console.error(error)
        }
      }
    }
  })
    .catch(() => {})
    .finally(() => {
      if (c.controller === controller) {
        c.controller = undefined
        c.$open.set(false)
      }
    })
}

/**
 * Listens to one event of the account channel (`painting`, `music`, `delta`…): one connection per
 * page whatever the number of listeners, reconnecting with back-off, reopened when the token
 * changes. Returns the unsubscribe function.
 */
export function onAccountEvent(event: string, fn: Listener): () => void {
  const c = channel()
  let set = c.listeners.get(event)
  if (!set) {
    set = new Set()
    c.listeners.set(event, set)
  }
  set.add(fn)
  sync(c)
  return () => {
    set.delete(fn)
    if (set.size === 0) c.listeners.delete(event)
    sync(c)
  }
}

/** Whether the account channel is connected now (poll unfinished jobs while it is not). */
export function accountChannelOpen(): ReadableAtom<boolean> {
  return channel().$open
}
