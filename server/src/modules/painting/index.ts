import type { Config } from '../../config.js'
import { type Channels, seedChannel } from '../../replies/channels.js'
import { createProviderCache } from '../../replies/channels-pool.js'
import { moderatorFor } from '../../moderation/index.js'
import { defineModule, type ModuleDeps, type ModuleInstance } from '../module.js'
import { MJ } from './charges.js'
import { createA1111 } from './providers/a1111.js'
import { createChannelPainter } from './providers/channels.js'
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

/** The env's upstreams as channels would have them (seeded as the first channel of their kind). */
const envMj = (config: Config) => config.painting.mjProxy && { baseUrl: config.painting.mjProxy.baseUrl, key: config.painting.mjProxy.apiSecret }
const envSd = (config: Config) => config.painting.a1111 && { baseUrl: config.painting.a1111.baseUrl, key: config.painting.a1111.auth }

/**
 * The painters. With `channels`, midjourney-proxy and AUTOMATIC1111 run on their upstream channels
 * (the env's upstream, MJ_PROXY_URL / A1111_URL, is the first of them): failover, health, and tasks
 * that stay on the channel that took them; while no channel of a kind is enabled, new tasks of it go
 * to `demo`, the offline demo painter (painters.ts), so a channel added in the console is used at
 * once. Without `channels`: the env's upstream when configured, else the demo painter.
 */
export function createPaintingProviders(
  config: Config,
  p: PaintingOptions = {},
  channels?: Pick<Channels, 'pool'>
): { mj: PaintingProvider; sd: PaintingProvider; demo: PaintingProvider } {
  const settings = config.painting
  const demo = createDemoPainter({ delayMs: settings.demoDelayMs, ...p.demo })
  const proxy = (baseUrl: string, apiSecret: string | undefined) =>
    createMidjourneyProxy({
      baseUrl,
      apiSecret,
      notifyHook: (taskId) => notifyHookFor(config.publicUrl, settings.notifySecret, taskId),
      ...(p.fetch ? { fetch: p.fetch } : {})
    })
  const a1111 = (baseUrl: string, auth: string | undefined, pool?: ReturnType<Channels['pool']>) =>
    createA1111({
      baseUrl,
      auth,
      progressIntervalMs: 1000,
      timeoutMs: settings.timeoutMs,
      ...(pool ? { channels: pool } : {}),
      ...(p.fetch ? { fetch: p.fetch } : {})
    })
  const mjEnv = envMj(config)
  const sdEnv = envSd(config)
  const mj =
    p.providers?.mj ??
    (channels
      ? createChannelPainter(
          channels.pool('midjourney', mjEnv),
          createProviderCache((c, key) => proxy(c.baseUrl, key))
        )
      : mjEnv
        ? proxy(mjEnv.baseUrl, mjEnv.key)
        : demo)
  const sd =
    p.providers?.sd ??
    (channels
      ? // Behind channels the pool gives each picture its UI: baseUrl and auth are not used.
        a1111(sdEnv?.baseUrl ?? '', sdEnv?.key, channels.pool('sd', sdEnv))
      : sdEnv
        ? a1111(sdEnv.baseUrl, sdEnv.key)
        : demo)
  return { mj, sd, demo }
}

function createPainting(deps: ModuleDeps, p: PaintingOptions = {}): PaintingInstance {
  const settings = deps.config.painting
  const channels = deps.replies.channels
  const { mj, sd, demo } = createPaintingProviders(deps.config, p, channels)
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
    demo,
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
    // A fresh install (or the first start with CHANNEL_SECRET_KEY): the env's upstreams become channel #1 of their kind.
    async start() {
      if (!channels || p.providers) return
      await seedChannel(deps.db, channels.secret, 'midjourney', envMj(deps.config), deps.now)
      await seedChannel(deps.db, channels.secret, 'sd', envSd(deps.config), deps.now)
      await channels.reload()
    },
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
