import type { Config } from '../../config.js'
import { type Channels, seedChannel } from '../../replies/channels.js'
import { createProviderCache } from '../../replies/channels-pool.js'
import { createChannelMusic } from './channels.js'
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

const envSuno = (config: Config['music']) => (config.sunoApiUrl ? { baseUrl: config.sunoApiUrl, key: config.sunoApiKey } : undefined)

/**
 * The providers. With `channels`, suno-api runs on its upstream channels (SUNO_API_URL's is the first
 * of them): failover, health, polls at the request's channel; while no suno channel is enabled, new
 * requests go to `demo`, the offline demo composer (choice.ts), so a channel added in the console is
 * used at once. Without `channels`: suno-api when SUNO_API_URL is set, else the demo composer.
 */
export function musicProviders(
  config: Config['music'],
  now: () => number,
  channels?: Pick<Channels, 'pool'>
): { provider: MusicProvider; demo: MusicProvider } {
  const env = envSuno(config)
  const demo = createDemoMusicProvider({ now, delayMs: config.demoDelayMs })
  if (channels) {
    const client = createProviderCache((channel, key) => createSunoProvider({ baseUrl: channel.baseUrl, apiKey: key, model: config.sunoModel }))
    return { provider: createChannelMusic(channels.pool('suno', env), client), demo }
  }
  return { provider: env ? createSunoProvider({ baseUrl: env.baseUrl, apiKey: env.key, model: config.sunoModel }) : demo, demo }
}

function createMusic(deps: ModuleDeps, options: MusicOptions = {}): MusicInstance {
  const { provider, demo } = musicProviders(deps.config.music, deps.now, deps.replies.channels)
  const runtime = createMusicRuntime({
    db: deps.db,
    storage: deps.storage,
    bus: deps.bus,
    provider: options.provider ?? provider,
    demo,
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
    // A fresh install (or the first start with CHANNEL_SECRET_KEY): SUNO_API_URL becomes the first suno channel.
    async start() {
      const channels = deps.replies.channels
      if (!channels || options.provider) return
      await seedChannel(deps.db, channels.secret, 'suno', envSuno(deps.config.music), deps.now)
      await channels.reload()
    },
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
