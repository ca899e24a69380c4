import type { Config } from '../config.js'
import { createLocalStorage } from './local.js'
import { createS3Storage } from './s3.js'
import type { Storage } from './storage.js'

export type { Storage } from './storage.js'
export { contentTypeOfKey, extensionFor, isValidKey, newKey } from './keys.js'
export { createLocalStorage } from './local.js'
export { createS3Storage } from './s3.js'

/** The configured storage: S3 when S3_BUCKET is set, else `${DATA_DIR}/files`. */
export function createStorage(config: Config, options: { fetch?: typeof fetch } = {}): Storage {
  const s3 = config.storage.s3
  if (s3) return createS3Storage(s3, options)
  return createLocalStorage({ dir: `${config.dataDir}/files`, publicUrl: config.publicUrl })
}
