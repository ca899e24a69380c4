import { z } from 'zod'

export const HOT_PERMISSION = 'AI_TOOLS_HOT'
export const HOT_BASE = '/api/v1/hot'

/** A normalised list entry, whatever the source spoke. */
export interface HotItem {
  /** Unique within its source. */
  id: string
  title: string
  /** http(s) only. */
  url: string
  hot: number | null
  desc: string
  /** http(s) only, or null. */
  cover: string | null
  /** Epoch ms, or null when the source gives none. */
  time: number | null
}

export type HotSourceType = 'dailyhot' | 'rss' | 'demo'

/** One list, fetched on its own schedule. */
export interface HotSource {
  id: string
  name: string
  type: HotSourceType
  /** Offline sample data (示例数据), not real news. */
  demo: boolean
  /** How often the list is fetched again. */
  intervalMs: number
  fetch(signal: AbortSignal): Promise<HotItem[]>
}

/** A source failed; `message` is Chinese and safe to show. */
export class HotSourceError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'HotSourceError'
  }
}

export const hotSourceSchema = z
  .object({
    sourceId: z.string(),
    name: z.string(),
    type: z.enum(['dailyhot', 'rss', 'demo']),
    demo: z.boolean(),
    updatedTime: z.number().nullable(),
    stale: z.boolean()
  })
  .meta({ id: 'HotSource' })
export type HotSourceInfo = z.infer<typeof hotSourceSchema>

export const hotItemSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    url: z.string(),
    hot: z.number().nullable(),
    desc: z.string(),
    cover: z.string().nullable(),
    time: z.number().nullable(),
    demo: z.boolean()
  })
  .meta({ id: 'HotItem' })

export const hotListSchema = z.object({ source: hotSourceSchema, items: z.array(hotItemSchema) }).meta({ id: 'HotList' })

export const hotSearchHitSchema = z.object({ source: hotSourceSchema, rank: z.number(), item: hotItemSchema }).meta({ id: 'HotSearchHit' })
