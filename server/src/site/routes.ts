import { etag } from 'hono/etag'
import type { Api } from '../http/api.js'
import { CONFIG_FILE_NAMES, type ConfigFileName, type ConfigFiles } from './config-files.js'

/** `render` replaces a file's bytes with a computed text (chatConfig.json merges the environment in). */
export function registerConfigFileRoutes(
  api: Api,
  files: ConfigFiles,
  render: Partial<Record<ConfigFileName, () => Promise<string>>> = {}
): void {
  for (const name of CONFIG_FILE_NAMES) {
    const path = `/config/${name}`
    api.docs.push({
      method: 'get',
      path,
      tag: 'config',
      summary: `Site config ${name} (overridable from DATA_DIR/config/${name}); query t is ignored`,
      auth: false,
      contentType: 'application/json'
    })
    // The client adds ?t=<timestamp> to bust caches; ETag still saves the body when unchanged.
    api.app.get(path, etag(), async (c) => {
      const renderer = render[name]
      const text = renderer ? await renderer() : (await files.read(name)).text
      return c.body(text, 200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache' })
    })
  }
}
