import { inArray, eq } from 'drizzle-orm'
import type { Db } from '../../db/database.js'
import { type HotCacheRow, hotCache } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import type { JobQueue } from '../../jobs/index.js'
import type { Logger } from '../../logger.js'
import { type HotItem, type HotSource, type HotSourceInfo, HotSourceError } from './types.js'

export const SOURCE_NOT_FOUND = '热榜来源不存在'
export const ITEM_NOT_FOUND = '这条热点已不在榜单上，请刷新后再试'

export const SWEEP_JOB = 'hot:sweep'
export const REFRESH_JOB = 'hot:refresh'
export type RefreshJob = { sourceId: string }
/** The longest time between sweeps; shorter when a source is refreshed more often. */
export const MAX_SWEEP_MS = 15_000
/** Between the refreshes one sweep starts, so a start does not hit the upstream with every list at once. */
export const STAGGER_MS = 250

export type HotListItem = HotItem & { demo: boolean }

/** One search hit: the item, its rank in its list and its source. */
export interface HotSearchHit {
  source: HotSourceInfo
  rank: number
  item: HotListItem
}

/** A 刷新 fetches a list again only when its last attempt is older than this (every reader's button would hammer the source). */
export const FRESH_MIN_MS = 60_000
/** Hits a search answers at most. */
export const SEARCH_MAX_HITS = 50

/** What a search compares: NFKC (full-width folds), lower case, runs of spaces as one. */
const fold = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ')

export interface HotService {
  /** True when every source is the offline sample. */
  readonly demo: boolean
  sources(): Promise<HotSourceInfo[]>
  /**
   * A source's list from the cache. `fresh`: the reader pressed 刷新 — a list attempted more than
   * FRESH_MIN_MS ago is fetched again first (joining a fetch in flight); a newer one is served as is.
   */
  list(sourceId: string, options?: { fresh?: boolean }): Promise<{ source: HotSourceInfo; items: HotListItem[] }>
  /**
   * Items of every list whose title or description holds `query` (case and width folded), in
   * source then rank order: the cached lists, after fetching those never fetched yet.
   */
  search(query: string): Promise<HotSearchHit[]>
  /** One item of a source's cached list, or 40400001. */
  item(sourceId: string, itemId: string): Promise<{ source: HotSource; item: HotListItem }>
  /** Fetches a source now; joins the fetch already running for it. Never throws. */
  refresh(sourceId: string): Promise<void>
  /**
   * Fetches every source on its own interval until stop(), on the job queue: `hot:sweep` (every
   * min(15 s, shortest interval), one node per period) adds `hot:refresh` {sourceId}, id sourceId,
   * for each source due before the next sweep, timed to its due moment. With BullMQ every node shares
   * one schedule, so each list is fetched once per interval whatever the number of nodes.
   */
  start(jobs: JobQueue): void
  /** Stops the schedule here (jobs that come due are skipped), aborts fetches in flight and waits for them. */
  stop(): Promise<void>
}

export interface HotServiceOptions {
  db: Db
  sources: HotSource[]
  now: () => number
  logger: Logger
}

export function createHotService(options: HotServiceOptions): HotService {
  const { db, now, logger } = options
  const byId = new Map(options.sources.map((s) => [s.id, s]))
  const inflight = new Map<string, Promise<void>>()
  /** Fetches finished per source: a request that read an empty cache while one finished need not fetch again. */
  const finished = new Map<string, number>()
  const controllers = new Set<AbortController>()
  /** The queue the handlers are defined on (once per service), and whether they act. */
  let queue: JobQueue | undefined
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

  const due = (source: HotSource, row: HotCacheRow | undefined) => !row?.attemptedAt || now() - row.attemptedAt.getTime() >= source.intervalMs

  /** Adds a refresh for each source due before the next sweep, staggered, each at its due moment. */
  async function sweep(sweepMs: number) {
    if (!running || !queue) return
    const rows =
      options.sources.length > 0
        ? await db
            .select()
            .from(hotCache)
            .where(inArray(hotCache.sourceId, [...byId.keys()]))
        : []
    const rowOf = new Map(rows.map((r) => [r.sourceId, r]))
    const at = now()
    let i = 0
    for (const source of options.sources) {
      const attempted = rowOf.get(source.id)?.attemptedAt?.getTime()
      const wait = attempted === undefined ? 0 : attempted + source.intervalMs - at
      if (wait >= sweepMs) continue
      // One job per source while it waits or runs: other nodes' sweeps (and this one's next) add nothing.
      await queue.add<RefreshJob>(REFRESH_JOB, { sourceId: source.id }, { id: source.id, delayMs: Math.max(wait, i++ * STAGGER_MS) })
    }
  }

  /**
   * A due source's refresh. Idempotent against the cache: a list attempted within the last half
   * interval was refreshed meanwhile (by a refresh this sweep did not see finish), so it is skipped.
   */
  async function refreshDue({ sourceId }: RefreshJob) {
    const source = byId.get(sourceId)
    if (!running || !source) return
    const attempted = (await read(sourceId))?.attemptedAt?.getTime()
    if (attempted !== undefined && now() - attempted < source.intervalMs / 2) return
    await refresh(sourceId)
  }

  return {
    demo: options.sources.length > 0 && options.sources.every((s) => s.demo),

    async sources() {
      const ids = [...byId.keys()]
      const rows = ids.length > 0 ? await db.select().from(hotCache).where(inArray(hotCache.sourceId, ids)) : []
      const rowOf = new Map(rows.map((r) => [r.sourceId, r]))
      return options.sources.map((s) => info(s, rowOf.get(s.id)))
    },

    async list(sourceId, listOptions) {
      const source = requireSource(sourceId)
      const seen = finished.get(source.id) ?? 0
      let row = await read(source.id)
      if (listOptions?.fresh && row?.attemptedAt && now() - row.attemptedAt.getTime() >= FRESH_MIN_MS) {
        await refresh(source.id)
        row = await read(source.id)
      }
      if (!row?.fetchedAt) {
        // Nothing to serve yet: this request waits for the first fetch (joining one in flight),
        // unless one finished while it read the cache — its result is in the table now.
        if ((finished.get(source.id) ?? 0) === seen) await refresh(source.id)
        row = await read(source.id)
      } else if (!running && due(source, row)) {
        // Served at once; the next request sees the new list. (With the schedule running, its sweep
        // refreshes the list — once for every node.)
        void refresh(source.id)
      }
      if (!row?.fetchedAt) {
        throw new ApiError(50200001, row?.lastError ?? `「${source.name}」暂时无法获取，请稍后再试`)
      }
      const items = (row.items as HotItem[]).map((item) => ({ ...item, demo: source.demo }))
      return { source: info(source, row), items }
    },

    async search(query) {
      const wanted = fold(query.trim())
      if (wanted === '') return []
      const ids = [...byId.keys()]
      const readAll = async () => (ids.length > 0 ? await db.select().from(hotCache).where(inArray(hotCache.sourceId, ids)) : [])
      let rows = await readAll()
      // A list never fetched yet (no schedule running, a new source) is fetched first: the search covers every source.
      const missing = ids.filter((id) => !rows.some((r) => r.sourceId === id && r.attemptedAt))
      if (missing.length > 0) {
        await Promise.all(missing.map((id) => refresh(id)))
        rows = await readAll()
      }
      const rowOf = new Map(rows.map((r) => [r.sourceId, r]))
      const hits: HotSearchHit[] = []
      for (const source of options.sources) {
        const row = rowOf.get(source.id)
        if (!row?.fetchedAt) continue
        const sourceInfo = info(source, row)
        ;(row.items as HotItem[]).forEach((item, i) => {
          if (hits.length < SEARCH_MAX_HITS && (fold(item.title).includes(wanted) || fold(item.desc).includes(wanted))) {
            hits.push({ source: sourceInfo, rank: i + 1, item: { ...item, demo: source.demo } })
          }
        })
      }
      return hits
    },

    async item(sourceId, itemId) {
      const source = requireSource(sourceId)
      const row = await read(source.id)
      const item = (row?.items as HotItem[] | undefined)?.find((i) => i.id === itemId)
      if (!item) throw new ApiError(40400001, ITEM_NOT_FOUND)
      return { source, item: { ...item, demo: source.demo } }
    },

    refresh,

    start(jobs) {
      if (running) return
      running = true
      if (options.sources.length === 0) return
      const sweepMs = Math.min(MAX_SWEEP_MS, ...options.sources.map((s) => s.intervalMs))
      if (queue !== jobs) {
        queue = jobs
        jobs.define<RefreshJob>(REFRESH_JOB, refreshDue, { concurrency: 4 })
        jobs.define(SWEEP_JOB, () => sweep(sweepMs))
      }
      const failed = (error: unknown) => logger.error('scheduling hot news refreshes failed', { error })
      jobs.every(SWEEP_JOB, sweepMs).catch(failed)
      // The first sweep now, not a period from now (one for every node starting together).
      jobs.add(SWEEP_JOB, null, { id: 'start' }).catch(failed)
    },

    async stop() {
      running = false
      for (const controller of controllers) controller.abort()
      await Promise.allSettled([...inflight.values()])
    }
  }
}
