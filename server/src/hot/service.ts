import { inArray, eq } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { type HotCacheRow, hotCache } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { Logger } from '../logger.js'
import { type HotItem, type HotSource, type HotSourceInfo, HotSourceError } from './types.js'

/** Timer functions, injectable so tests drive the schedule by hand. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const realTimers: Timers = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms)
    handle.unref?.()
    return handle
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout)
  }
}

export const SOURCE_NOT_FOUND = '热榜来源不存在'
export const ITEM_NOT_FOUND = '这条热点已不在榜单上，请刷新后再试'

export type HotListItem = HotItem & { demo: boolean }

export interface HotService {
  /** True when every source is the offline sample. */
  readonly demo: boolean
  sources(): Promise<HotSourceInfo[]>
  list(sourceId: string): Promise<{ source: HotSourceInfo; items: HotListItem[] }>
  /** One item of a source's cached list, or 40400001. */
  item(sourceId: string, itemId: string): Promise<{ source: HotSource; item: HotListItem }>
  /** Fetches a source now; joins the fetch already running for it. Never throws. */
  refresh(sourceId: string): Promise<void>
  /** Fetches every source on its own interval until stop(). */
  start(): void
  /** Stops the schedule, aborts fetches in flight and waits for them. */
  stop(): Promise<void>
}

export interface HotServiceOptions {
  db: Db
  sources: HotSource[]
  now: () => number
  logger: Logger
  timers?: Timers
}

export function createHotService(options: HotServiceOptions): HotService {
  const { db, now, logger } = options
  const timers = options.timers ?? realTimers
  const byId = new Map(options.sources.map((s) => [s.id, s]))
  const inflight = new Map<string, Promise<void>>()
  /** Fetches finished per source: a request that read an empty cache while one finished need not fetch again. */
  const finished = new Map<string, number>()
  const controllers = new Set<AbortController>()
  const scheduled = new Map<string, unknown>()
  let running = false

  const info = (source: HotSource, row: HotCacheRow | undefined): HotSourceInfo => {
    const fetchedAt = row?.fetchedAt?.getTime() ?? null
    return {
      sourceId: source.id,
      name: source.name,
      type: source.type,
      demo: source.demo,
      updatedTime: fetchedAt,
      // Served from an older fetch: the last attempt failed, or the list is long overdue.
      stale: fetchedAt !== null && (row?.lastError != null || now() - fetchedAt > 2 * source.intervalMs)
    }
  }

  const read = async (id: string) => (await db.select().from(hotCache).where(eq(hotCache.sourceId, id)))[0]

  const requireSource = (id: string) => {
    const source = byId.get(id)
    if (!source) throw new ApiError(40400001, SOURCE_NOT_FOUND)
    return source
  }

  function refresh(id: string): Promise<void> {
    const source = byId.get(id)
    if (!source) return Promise.resolve()
    const current = inflight.get(id)
    if (current) return current
    const controller = new AbortController()
    controllers.add(controller)
    const job = (async () => {
      const at = new Date(now())
      try {
        const items = await source.fetch(controller.signal)
        if (items.length === 0) throw new HotSourceError(`「${source.name}」没有返回任何条目`)
        await db
          .insert(hotCache)
          .values({ sourceId: id, items, fetchedAt: at, attemptedAt: at, lastError: null })
          .onConflictDoUpdate({ target: hotCache.sourceId, set: { items, fetchedAt: at, attemptedAt: at, lastError: null } })
      } catch (error) {
        const message = error instanceof HotSourceError ? error.message : `「${source.name}」获取失败`
        if (!(error instanceof HotSourceError)) logger.error('hot news fetch failed', { sourceId: id, error })
        else logger.warn('hot news source failed; its last good list is served', { sourceId: id, message })
        await db
          .insert(hotCache)
          .values({ sourceId: id, attemptedAt: at, lastError: message })
          .onConflictDoUpdate({ target: hotCache.sourceId, set: { attemptedAt: at, lastError: message } })
          .catch((e: unknown) => logger.error('saving a hot news failure failed', { sourceId: id, error: e }))
      }
    })().finally(() => {
      controllers.delete(controller)
      inflight.delete(id)
      finished.set(id, (finished.get(id) ?? 0) + 1)
    })
    inflight.set(id, job)
    return job
  }

  const due = (source: HotSource, row: HotCacheRow | undefined) =>
    !row?.attemptedAt || now() - row.attemptedAt.getTime() >= source.intervalMs

  function schedule(source: HotSource, delayMs: number) {
    if (!running) return
    const handle = timers.setTimeout(() => {
      scheduled.delete(source.id)
      void refresh(source.id).finally(() => schedule(source, source.intervalMs))
    }, Math.max(0, delayMs))
    scheduled.set(source.id, handle)
  }

  return {
    demo: options.sources.length > 0 && options.sources.every((s) => s.demo),

    async sources() {
      const ids = [...byId.keys()]
      const rows = ids.length > 0 ? await db.select().from(hotCache).where(inArray(hotCache.sourceId, ids)) : []
      const rowOf = new Map(rows.map((r) => [r.sourceId, r]))
      return options.sources.map((s) => info(s, rowOf.get(s.id)))
    },

    async list(sourceId) {
      const source = requireSource(sourceId)
      const seen = finished.get(source.id) ?? 0
      let row = await read(source.id)
      if (!row?.fetchedAt) {
        // Nothing to serve yet: this request waits for the first fetch (joining one in flight),
        // unless one finished while it read the cache — its result is in the table now.
        if ((finished.get(source.id) ?? 0) === seen) await refresh(source.id)
        row = await read(source.id)
      } else if (due(source, row)) {
        // Served at once; the next request sees the new list.
        void refresh(source.id)
      }
      if (!row?.fetchedAt) {
        throw new ApiError(50200001, row?.lastError ?? `「${source.name}」暂时无法获取，请稍后再试`)
      }
      const items = (row.items as HotItem[]).map((item) => ({ ...item, demo: source.demo }))
      return { source: info(source, row), items }
    },

    async item(sourceId, itemId) {
      const source = requireSource(sourceId)
      const row = await read(source.id)
      const item = (row?.items as HotItem[] | undefined)?.find((i) => i.id === itemId)
      if (!item) throw new ApiError(40400001, ITEM_NOT_FOUND)
      return { source, item: { ...item, demo: source.demo } }
    },

    refresh,

    start() {
      if (running) return
      running = true
      void (async () => {
        let rows: HotCacheRow[] = []
        try {
          rows = options.sources.length > 0 ? await db.select().from(hotCache).where(inArray(hotCache.sourceId, [...byId.keys()])) : []
        } catch (error) {
          logger.error('reading the hot news cache failed', { error })
        }
        const rowOf = new Map(rows.map((r) => [r.sourceId, r]))
        options.sources.forEach((source, i) => {
          const row = rowOf.get(source.id)
          const wait = row?.attemptedAt ? row.attemptedAt.getTime() + source.intervalMs - now() : 0
          // Staggered, so a restart does not hit the upstream with every list at once.
          schedule(source, Math.max(wait, i * 250))
        })
      })()
    },

    async stop() {
      running = false
      for (const handle of scheduled.values()) timers.clearTimeout(handle)
      scheduled.clear()
      for (const controller of controllers) controller.abort()
      await Promise.allSettled([...inflight.values()])
    }
  }
}
