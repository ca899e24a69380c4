import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Storage } from './storage.js'
import { checkKey, checkPut, contentTypeOfKey, isValidKey } from './keys.js'

/** Files under `dir` (normally `${DATA_DIR}/files`), served by this server at `${publicUrl}/files/{key}`. */
export function createLocalStorage(options: { dir: string; publicUrl: string }): Storage & { dir: string; path(key: string): string } {
  const base = options.publicUrl.replace(/\/+$/, '')
  const path = (key: string) => join(options.dir, ...checkKey(key).split('/'))
  return {
    kind: 'local',
    dir: options.dir,
    path,
    async put(key, body, contentType) {
      checkPut(key, contentType)
      const file = path(key)
      await mkdir(dirname(file), { recursive: true })
      // Written aside and renamed, so a reader never sees half a file. The temporary name starts
      // with a dot, which no valid key can name.
      const tmp = join(dirname(file), `.tmp-${randomBytes(6).toString('hex')}`)
      try {
        await writeFile(tmp, body)
        await rename(tmp, file)
      } catch (error) {
        await rm(tmp, { force: true })
        throw error
      }
    },
    async get(key) {
      if (!isValidKey(key)) return null
      try {
        const body = await readFile(path(key))
        return { body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength), contentType: contentTypeOfKey(key) ?? 'application/octet-stream' }
      } catch (error) {
        if (isMissing(error)) return null
        throw error
      }
    },
    async delete(key) {
      if (!isValidKey(key)) return
      try {
        await unlink(path(key))
      } catch (error) {
        if (!isMissing(error)) throw error
      }
    },
    publicUrl(key) {
      return `${base}/files/${checkKey(key)}`
    },
    keyOf(url) {
      return keyOfUrl(url, [`${base}/files/`, '/files/'])
    }
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code
  return code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR'
}

/** The key after one of the prefixes, when it is a valid key with no query, fragment or escapes. */
export function keyOfUrl(url: unknown, prefixes: string[]): string | null {
  if (typeof url !== 'string') return null
  for (const prefix of prefixes) {
    if (!url.startsWith(prefix)) continue
    const key = url.slice(prefix.length)
    return isValidKey(key) ? key : null
  }
  return null
}
