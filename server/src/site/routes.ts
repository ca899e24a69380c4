import { etag } from 'hono/etag'
import type { z } from 'zod'
import type { Api } from '../http/api.js'
import { CONFIG_FILE_NAMES, type ConfigFileName, type ConfigFiles } from './config-files.js'
import { systemConfigSchema } from './wire.js'

/** The documented answers of the files that have a schema (system.json as app.ts serves it). */
const SCHEMAS: Partial<Record<ConfigFileName, z.ZodType>> = { 'system.json': systemConfigSchema }

/** `render` replaces a file's bytes with a computed text (chatConfig.json merges the environment in). */
export function registerConfigFileRoutes(api: Api, files: ConfigFiles, render: Partial<Record<ConfigFileName, () => Promise<string>>> = {}): void {
  for (const name of CONFIG_FILE_NAMES) {
    const path = `/config/${name}`
    api.docs.push({
      method: 'get',
      path,
      tag: 'config',
      summary: `Site config ${name} (overridable from DATA_DIR/config/${name}); ETag, revalidated every time`,
      auth: false,
      contentType: 'application/json',
      parameters: [{ name: 't', in: 'query', description: 'Any value (the client sends a timestamp to bust caches); ignored' }],
      ...(SCHEMAS[name] ? { response: SCHEMAS[name] } : {})
    })
    // The client adds ?t=<timestamp> to bust caches; ETag still saves the body when unchanged.
    api.app.get(path, etag(), async (c) => {
      const renderer = render[name]
      const text = renderer ? await renderer() : (await files.read(name)).text
      return c.body(text, 200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache' })
    })
  }
}
