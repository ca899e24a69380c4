import type { AppDeps } from '../app.js'
import type { Api } from '../http/api.js'
import { createA1111 } from './providers/a1111.js'
import { createDemoPainter, type DemoOptions } from './providers/demo.js'
import { createMidjourneyProxy } from './providers/midjourney-proxy.js'
import type { PaintingProvider } from './providers/provider.js'
import { notifyHookFor, registerPaintingRoutes } from './routes.js'
import { createPaintingRuntime, type PaintingRuntime, type PaintingTuning } from './runtime.js'

export type { PaintingProvider, PaintingUpdate } from './providers/provider.js'
export type { PaintingRuntime, PaintingTuning } from './runtime.js'

/** Painting providers and job runtime (MJ, SD, gallery). Everything is optional: the config decides. */
export interface PaintingDeps {
  /** Replace the configured providers (tests). */
  providers?: { mj?: PaintingProvider; sd?: PaintingProvider }
  /** Timers: `tickMs: 0` schedules no `painting:sweep` (tests call runtime.tick()). */
  tuning?: Partial<PaintingTuning>
  /** The demo painter's pace (tests hold jobs with `sleep`). */
  demo?: Partial<DemoOptions>
  /** Used for upstream calls and image downloads (tests). */
  fetch?: typeof fetch
  /** Receives the runtime once made, so its owner can sweep, drive and close it. */
  onRuntime?: (runtime: PaintingRuntime) => void
}

export function createPaintingProviders(deps: AppDeps): { mj: PaintingProvider; sd: PaintingProvider } {
  const settings = deps.config.painting
  const p = deps.painting ?? {}
  const demo = createDemoPainter({ delayMs: settings.demoDelayMs, ...p.demo })
  const mj =
    p.providers?.mj ??
    (settings.mjProxy
      ? createMidjourneyProxy({
          baseUrl: settings.mjProxy.baseUrl,
          apiSecret: settings.mjProxy.apiSecret,
          notifyHook: (taskId) => notifyHookFor(deps.config.publicUrl, settings.notifySecret, taskId),
          ...(p.fetch ? { fetch: p.fetch } : {})
        })
      : demo)
  const sd =
    p.providers?.sd ??
    (settings.a1111
      ? createA1111({
          baseUrl: settings.a1111.baseUrl,
          auth: settings.a1111.auth,
          progressIntervalMs: 1000,
          timeoutMs: settings.timeoutMs,
          ...(p.fetch ? { fetch: p.fetch } : {})
        })
      : demo)
  return { mj, sd }
}

export function registerPainting(api: Api, deps: AppDeps): void {
  const settings = deps.config.painting
  const p = deps.painting ?? {}
  const { mj, sd } = createPaintingProviders(deps)
  const runtime = createPaintingRuntime({
    db: api.db,
    bus: api.bus,
    storage: api.storage,
    logger: deps.logger,
    now: api.now,
    jobs: api.jobs,
    mj,
    sd,
    tuning: {
      tickMs: settings.pollIntervalMs,
      timeoutMs: settings.timeoutMs,
      // With callbacks on, polling is the fallback for tasks that went quiet; without, it is the way.
      pollStaleMs: settings.notifySecret ? Math.max(settings.pollIntervalMs * 4, 20_000) : 0,
      ...p.tuning
    },
    ...(p.fetch ? { fetch: p.fetch } : {})
  })
  p.onRuntime?.(runtime)
  registerPaintingRoutes(api, runtime, { publicUrl: deps.config.publicUrl, notifySecret: settings.notifySecret })
}
