import type { Config } from '../config.js'
import type { Api } from '../http/api.js'
import type { Kv } from '../kv/kv.js'
import { registerFileRoutes } from '../storage/routes.js'
import { registerImageRoutes } from './routes.js'
import { registerUploadRoutes } from './uploads.js'

export { PUT_PREFIX } from './uploads.js'
export { type Image, imageSchema, toImage } from './wire.js'

/** `/files/*`, uploads and the image host. */
export function registerImageHost(api: Api, deps: { config: Config; kv: Kv }): void {
  registerFileRoutes(api, api.storage)
  registerUploadRoutes(api, deps)
  registerImageRoutes(api)
}
