import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../config.js'

/**
 * The key that signs local upload URLs: UPLOAD_SECRET, else a random one kept in
 * `${DATA_DIR}/upload-secret` (created on first use, mode 600). Several nodes behind one
 * balancer must share UPLOAD_SECRET.
 */
export function uploadSecret(config: Config): string {
  if (config.storage.uploadSecret) return config.storage.uploadSecret
  const file = join(config.dataDir, 'upload-secret')
  try {
    const existing = readFileSync(file, 'utf8').trim()
    if (existing.length >= 32) return existing
  } catch {}
  mkdirSync(config.dataDir, { recursive: true })
  const secret = randomBytes(32).toString('hex')
  try {
    // 'wx': when two processes race, the second reads the first one's secret.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' })
    return secret
  } catch {
    return readFileSync(file, 'utf8').trim()
  }
}
