import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { paths } from '../../paths.js'
import { normalizeItems } from './normalize.js'
import type { HotSource } from './types.js'

export const HOT_SAMPLE_FILE = join(paths.packageRoot, 'data', 'hot-sample.json')

/** What every demo item's description starts with: the page must never pass samples off as news. */
export const DEMO_LABEL = '示例数据'

const sampleSchema = z.object({
  sources: z.array(
    z.object({
      sourceId: z.string().regex(/^[a-z0-9-]{1,40}$/),
      name: z.string().min(1),
      items: z.array(
        z.object({
          id: z.string().min(1),
          title: z.string().min(1),
          desc: z.string().default(''),
          hot: z.number().nullable().default(null),
          url: z.string(),
          minutesAgo: z.number().min(0).default(0)
        })
      )
    })
  )
})

/**
 * The offline sample lists shipped with the server (data/hot-sample.json): used when no upstream
 * is configured, so the page is never empty. Every source is `demo`, every description starts
 * with 示例数据, and times are relative to the moment of the "fetch".
 */
export function createDemoSources(options: { now: () => number; file?: string; intervalMs?: number }): HotSource[] {
  const sample = sampleSchema.parse(JSON.parse(readFileSync(options.file ?? HOT_SAMPLE_FILE, 'utf8')))
  return sample.sources.map((source) => ({
    id: source.sourceId,
    name: source.name,
    type: 'demo' as const,
    demo: true,
    intervalMs: options.intervalMs ?? 30 * 60_000,
    async fetch() {
      const at = options.now()
      return normalizeItems(
        source.items.map((item) => ({
          id: item.id,
          title: item.title,
          url: item.url,
          hot: item.hot,
          desc: item.desc ? `${DEMO_LABEL} · ${item.desc}` : DEMO_LABEL,
          time: Math.round((at - item.minutesAgo * 60_000) / 60_000) * 60_000
        }))
      )
    }
  }))
}
