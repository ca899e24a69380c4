import type { AppDeps } from '../app.js'
import type { Api } from '../http/api.js'
import { type HotService, registerHot } from '../hot/index.js'
import { type MusicDeps, registerMusic } from '../music/index.js'
import { registerImageHost } from '../images/index.js'
import { registerUserCenter } from '../user/center.js'
import { type OrdersDeps, registerOrders } from '../orders/index.js'

/** Music, hot news, image host and user-center extras; filled in by the tools modules. */
export interface ToolsDeps {
  /** Hot news with its fetch schedule (server.ts starts it on the job queue and stops it); one fetching on demand when absent. */
  hot?: HotService
  /** Music provider (tests), and a hook receiving the runtime (server.ts resumes and stops it); polls run on api.jobs. */
  music?: MusicDeps
  /** Order platforms: the red-packet payer (tests inject a WeChat Pay client or the demo). */
  orders?: OrdersDeps
}

export function registerTools(api: Api, deps: AppDeps): void {
  registerImageHost(api, { config: deps.config, kv: deps.kv })
  registerUserCenter(api, { kv: deps.kv })
  registerHot(api, { ...deps, hot: deps.tools?.hot })
  registerMusic(api, { ...deps, music: deps.tools?.music })
  registerOrders(api, { ...deps, orders: deps.tools?.orders })
}
