import type { Db, Tx } from '../db/database.js'
import type { ControlMessage, EventBus } from '../events/bus.js'

/** How long balances read from the database answer user/info without being read again. */
const BALANCE_CACHE_MS = 5_000
/** Accounts kept at most; the one used longest ago goes first. */
const BALANCE_CACHE_MAX = 10_000
/** How long a commit waits for the bus to take its announcement before it goes on without it. */
const ANNOUNCE_WAIT_MS = 1_000

/** Spendable balance by allowance kind id (ledger.ts accountBalances). */
type Balances = ReadonlyMap<string, number>

/**
 * Recently read balances by account, so that user/info (asked on every page) does not read the
 * allowances table each time (docs/benchmarks.md: 28 % of its CPU before this cache).
 *
 * A change is seen at once on every node, as with the session cache (auth/session-cache.ts): every
 * write of the ledger (ledger.ts) notes its account on its transaction, and once that transaction
 * has ended (committed or rolled back) the node that ran it drops the accounts here and announces
 * them on the bus's control channel (`balances`), on which every node drops its own; the commit's
 * caller goes on once the bus has taken the announcement. A read that began before a drop is not
 * kept (it may have seen the balance before the commit), so a read racing a commit never leaves a
 * stale entry behind. A change behind the server's back (SQL) or an announcement the bus lost is
 * seen within `ttlMs`.
 */
interface BalanceCache {
  /** The account's balances: the cached copy, or `load()`'s answer (one load at a time per account). */
  read(accountId: string, load: () => Promise<Balances>): Promise<Balances>
  /** Drops these accounts here (a read in flight for them is not kept). */
  forget(accountIds: Iterable<string>): void
  /** After a transaction that changed these balances ended: forget here, then announce to every node. */
  changed(accountIds: readonly string[]): Promise<void>
  size(): number
}

interface Entry {
  value: Balances
  until: number
}

export function createBalanceCache(options: { now: () => number; ttlMs?: number; max?: number; bus?: EventBus }): BalanceCache {
  const { now, ttlMs = BALANCE_CACHE_MS, max = BALANCE_CACHE_MAX, bus } = options
  const entries = new Map<string, Entry>()
  const loading = new Map<string, Promise<Balances>>()
  // Each drop takes the next number; a read keeps its answer only if no drop of its account came
  // after the number it started at. Drops older than the last `max` count as `floor`.
  let seq = 0
  let floor = 0
  const dropped = new Map<string, number>()
  const fresh = (accountId: string, ticket: number) => (dropped.get(accountId) ?? floor) <= ticket

  const cache: BalanceCache = {
    read(accountId, load) {
      if (ttlMs <= 0) return load()
      const entry = entries.get(accountId)
      if (entry) {
        entries.delete(accountId)
        if (now() < entry.until) {
          entries.set(accountId, entry)
          return Promise.resolve(entry.value)
        }
      }
      const pending = loading.get(accountId)
      if (pending) return pending
      const ticket = seq
      const done = () => {
        if (loading.get(accountId) === read) loading.delete(accountId)
      }
      const read = load().then(
        (value) => {
          done()
          if (fresh(accountId, ticket)) {
            if (entries.size >= max) {
              const oldest = entries.keys().next()
              if (!oldest.done) entries.delete(oldest.value)
            }
            entries.set(accountId, { value, until: now() + ttlMs })
          }
          return value
        },
        (error: unknown) => {
          done()
          throw error
        }
      )
      loading.set(accountId, read)
      return read
    },
    forget(accountIds) {
      for (const id of accountIds) {
        entries.delete(id)
        loading.delete(id)
        dropped.delete(id)
        dropped.set(id, ++seq)
        if (dropped.size > max) {
          const [oldest, at] = dropped.entries().next().value as [string, number]
          dropped.delete(oldest)
          floor = Math.max(floor, at)
        }
      }
    },
    async changed(accountIds) {
      if (accountIds.length === 0) return
      cache.forget(accountIds)
      if (!bus) return
      let timer: NodeJS.Timeout | undefined
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ANNOUNCE_WAIT_MS)
        timer.unref()
      })
      // A bus that fails or hangs (Redis down) does not fail or stall the write: the TTL covers it.
      await Promise.race([bus.control({ type: 'balances', accountIds: [...accountIds] }).catch(() => {}), waited])
      clearTimeout(timer)
    },
    size: () => entries.size
  }
  // The subscription lives as long as the bus (closing the bus drops its listeners).
  bus?.onControl((message: ControlMessage) => {
    if (message.type === 'balances' && Array.isArray(message.accountIds)) cache.forget(message.accountIds)
  })
  return cache
}

/** The accounts whose balances a transaction (and the savepoints inside it) changed, by its Tx objects. */
const changedIn = new WeakMap<object, Set<string>>()
/** The caches to tell after each transaction of a database (several apps may share one in tests). */
const watchers = new WeakMap<Db, Set<WeakRef<BalanceCache>>>()

/** Called by every write of the ledger, in the transaction of the write. */
export function noteBalanceChange(tx: Tx, accountId: string): void {
  changedIn.get(tx)?.add(accountId)
}

function follow(tx: Tx, changed: Set<string>): void {
  changedIn.set(tx, changed)
  const savepoint = tx.transaction.bind(tx)
  tx.transaction = ((run: (inner: Tx) => Promise<unknown>) =>
    savepoint((inner) => {
      follow(inner, changed)
      return run(inner)
    })) as Tx['transaction']
}

/**
 * Makes `cache` hear of every balance change made through `db`: its transaction() is wrapped (once
 * per database) so that the accounts the ledger noted in a transaction are announced after it ended.
 */
export function watchBalanceWrites(db: Db, cache: BalanceCache): void {
  let caches = watchers.get(db)
  if (!caches) {
    const set = new Set<WeakRef<BalanceCache>>()
    caches = set
    watchers.set(db, set)
    const transaction = db.transaction.bind(db)
    db.transaction = (async (run, config) => {
      const changed = new Set<string>()
      try {
        return await transaction((tx) => {
          follow(tx, changed)
          return run(tx)
        }, config)
      } finally {
        if (changed.size > 0) {
          const ids = [...changed]
          const told: Promise<void>[] = []
          for (const ref of set) {
            const live = ref.deref()
            if (live) told.push(live.changed(ids))
            else set.delete(ref)
          }
          await Promise.all(told)
        }
      }
    }) as Db['transaction']
  }
  caches.add(new WeakRef(cache))
}
