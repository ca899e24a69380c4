import type { Config } from '../../config.js'
import { defineModule, type ModuleDeps, type ModuleInstance } from '../module.js'
import { SUNO } from './charges.js'
import { createDemoMusicProvider } from './demo.js'
import type { MusicProvider } from './provider.js'
import { moderatorFor } from '../../moderation/index.js'
import { checkedMusicRuntime } from './moderate.js'
import { registerMusicDepthRoutes } from './depth-routes.js'
import { registerMusicRoutes } from './routes.js'
import { createMusicRuntime, type MusicRuntime } from './runtime.js'
import { createSunoProvider } from './suno.js'
import { MUSIC_PERMISSION } from './wire.js'

export type { MusicRuntime } from './runtime.js'

export interface MusicOptions {
  /** Replaces the configured provider (tests). */
  provider?: MusicProvider
}

export interface MusicInstance extends ModuleInstance {
  runtime: MusicRuntime
}

/** suno-api when SUNO_API_URL is set, else the offline demo composer. */
export function musicProvider(config: Config['music'], now: () => number): MusicProvider {
  if (config.sunoApiUrl) return createSunoProvider({ baseUrl: config.sunoApiUrl, apiKey: config.sunoApiKey, model: config.sunoModel })
  return createDemoMusicProvider({ now, delayMs: config.demoDelayMs })
}

function createMusic(deps: ModuleDeps, options: MusicOptions = {}): MusicInstance {
  const runtime = createMusicRuntime({
    db: deps.db,
    storage: deps.storage,
    bus: deps.bus,
    provider: options.provider ?? musicProvider(deps.config.music, deps.now),
    now: deps.now,
    logger: deps.logger,
    jobs: deps.jobs,
    kv: deps.kv,
    pollMs: deps.config.music.pollMs,
    jobTimeoutMs: deps.config.music.jobTimeoutMs
  })
  return {
    runtime,
    jobs: (queue) => runtime.defineJobs(queue),
    routes: (api) => {
      const moderator = moderatorFor(deps)
      const checked = checkedMusicRuntime(runtime, moderator)
      registerMusicRoutes(api, checked, deps.logger, moderator)
      registerMusicDepthRoutes(api, checked, { kv: deps.kv, trustProxy: deps.config.trustProxy })
    },
    // Requests left unfinished by the last run (or whose jobs Redis lost) are polled again (or end,
    // refunded, when too old); a request still scheduled keeps its one poll per round.
    async resume() {
      await runtime.resume()
    },
    close: () => runtime.close()
  }
}

/** Songs from a description or from lyrics (suno-api), two clips per request; progress on the account channel. */
export const music = defineModule({
  name: 'music',
  permissionCodes: [MUSIC_PERMISSION],
  allowances: [SUNO],
  allowanceKinds: ['suno'],
  channelCodes: [MUSIC_PERMISSION],
  create: createMusic
})
