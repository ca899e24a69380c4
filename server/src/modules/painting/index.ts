import type { Config } from '../../config.js'
import { moderatorFor } from '../../moderation/index.js'
import { defineModule, type ModuleDeps, type ModuleInstance } from '../module.js'
import { MJ } from './charges.js'
import { createA1111 } from './providers/a1111.js'
import { createDemoPainter, type DemoOptions } from './providers/demo.js'
import { createMidjourneyProxy } from './providers/midjourney-proxy.js'
import type { PaintingProvider } from './providers/provider.js'
import { notifyHookFor, registerPaintingRoutes } from './routes.js'
import { checkedRuntime } from './moderate.js'
import { createPaintingRuntime } from './runtime.js'
import type { PaintingRuntime, PaintingTuning } from './types.js'
import { GALLERY_PERMISSION, PAINTING_PERMISSION, SD_PERMISSION } from './wire.js'

export type { PaintingProvider } from './providers/provider.js'
export type { PaintingRuntime, PaintingTuning } from './types.js'

/** Replacements for what the configuration decides (tests). */
export interface PaintingOptions {
  /** Replace the configured providers. */
  providers?: { mj?: PaintingProvider; sd?: PaintingProvider }
  /** Timers: `tickMs: 0` schedules no `painting:sweep` (tests call runtime.tick()). */
  tuning?: Partial<PaintingTuning>
  /** The demo painter's pace (tests hold jobs with `sleep`). */
  demo?: Partial<DemoOptions>
  /** Used for upstream calls and image downloads. */
  fetch?: typeof fetch
}

export interface PaintingInstance extends ModuleInstance {
  runtime: PaintingRuntime
}

/** midjourney-proxy and AUTOMATIC1111 when configured, else the offline demo painter. */
export function createPaintingProviders(config: Config, p: PaintingOptions = {}): { mj: PaintingProvider; sd: PaintingProvider } {
  const settings = config.painting
  const demo = createDemoPainter({ delayMs: settings.demoDelayMs, ...p.demo })
  const mj =
    p.providers?.mj ??
    (settings.mjProxy
      ? createMidjourneyProxy({
          baseUrl: settings.mjProxy.baseUrl,
          apiSecret: settings.mjProxy.apiSecret,
          notifyHook: (taskId) => notifyHookFor(config.publicUrl, settings.notifySecret, taskId),
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

function createPainting(deps: ModuleDeps, p: PaintingOptions = {}): PaintingInstance {
  const settings = deps.config.painting
  const { mj, sd } = createPaintingProviders(deps.config, p)
  const moderator = moderatorFor(deps)
  const runtime = createPaintingRuntime({
    moderator,
    db: deps.db,
    bus: deps.bus,
    storage: deps.storage,
    logger: deps.logger,
    now: deps.now,
    jobs: deps.jobs,
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
  return {
    runtime,
    jobs: (queue) => runtime.defineJobs(queue),
    routes: (api) =>
      registerPaintingRoutes(api, checkedRuntime(runtime, moderator), { publicUrl: deps.config.publicUrl, notifySecret: settings.notifySecret, moderator }),
    // Memory queue: painting tasks this process drew when it last stopped were cut off and end
    // FAILURE (refunded). BullMQ: their jobs are in Redis, maybe being drawn by another node.
    sweep: () => runtime.sweep(),
    close: () => runtime.close()
  }
}

/** Midjourney (midjourney-proxy), stable diffusion (AUTOMATIC1111) and the gallery of published works. */
export const painting = defineModule({
  name: 'painting',
  permissionCodes: [PAINTING_PERMISSION, SD_PERMISSION, GALLERY_PERMISSION],
  allowances: [MJ],
  allowanceKinds: ['mj'],
  // Task progress goes to the account channel; the gallery publishes nothing.
  channelCodes: [PAINTING_PERMISSION, SD_PERMISSION],
  create: createPainting
})
