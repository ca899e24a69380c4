import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '../logger.js'
import { paths } from '../paths.js'

export const CONFIG_FILE_NAMES = ['system.json', 'chatConfig.json', 'MJHelper.json'] as const
export type ConfigFileName = (typeof CONFIG_FILE_NAMES)[number]

export interface ConfigFile {
  /** The bytes to serve, as read. */
  text: string
  json: unknown
}

interface Cached extends ConfigFile {
  mtimeMs: number
  size: number
}

/**
 * The site config files: server/config/<name> unless the operator put a same-named file in
 * `${DATA_DIR}/config/`. Edits take effect on the next request; an override that is not valid
 * JSON is logged and the default served, so a typo cannot take the site down.
 */
export function createConfigFiles({ dataDir, logger, defaultDir = paths.defaultConfigDir }: { dataDir: string; logger: Logger; defaultDir?: string }) {
  const cache = new Map<string, Cached>()
  const reported = new Set<string>()

  async function load(file: string): Promise<ConfigFile | undefined> {
    let info: Awaited<ReturnType<typeof stat>>
    try {
      info = await stat(file)
    } catch {
      return undefined
    }
    const hit = cache.get(file)
    if (hit && hit.mtimeMs === info.mtimeMs && hit.size === info.size) return hit
    const text = await readFile(file, 'utf8')
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      const key = `${file}@${info.mtimeMs}`
      if (!reported.has(key)) {
        reported.add(key)
        logger.error('config override is not valid JSON; serving the default', { file, error: String(error) })
      }
      return undefined
    }
    const entry = { text, json, mtimeMs: info.mtimeMs, size: info.size }
    cache.set(file, entry)
    return entry
  }

  async function read(name: ConfigFileName): Promise<ConfigFile> {
    const file = (await load(join(dataDir, 'config', name))) ?? (await load(join(defaultDir, name)))
    if (!file) throw new Error(`default config file ${name} is missing or invalid`)
    return file
  }

  async function permissionName(code: string): Promise<string> {
    const { json } = await read('system.json')
    const name = (json as { permissionCodes?: Record<string, { permissionName?: unknown }> })?.permissionCodes?.[code]?.permissionName
    return typeof name === 'string' && name ? name : code
  }

  return { read, permissionName }
}

export type ConfigFiles = ReturnType<typeof createConfigFiles>
