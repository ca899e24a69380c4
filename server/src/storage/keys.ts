import { randomUUID } from 'node:crypto'

/** A key this code refuses; a bug in the caller, or a crafted request (answered 404 by the routes). */
export class StorageKeyError extends Error {
  constructor(key: string) {
    super(`invalid storage key: ${JSON.stringify(key.slice(0, 200))}`)
    this.name = 'StorageKeyError'
  }
}

// Each segment starts with a letter or digit: no "..", no ".", no hidden or temporary files.
const KEY = /^[a-z0-9][a-z0-9_.-]*(?:\/[a-z0-9][a-z0-9_.-]*)*$/

/** The content type served for each extension; nothing else can be stored (no HTML, no SVG, no scripts). */
const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  // Chat attachments (modules/chat/attachments.ts): documents whose text goes to the model. Served
  // like every stored file: nosniff, sandboxed, never a page that runs.
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  txt: 'text/plain; charset=utf-8'
}

const EXTENSIONS: Record<string, string> = {
  ...Object.fromEntries(Object.entries(TYPES).map(([ext, type]) => [type, ext])),
  'image/jpg': 'jpg',
  'audio/mp3': 'mp3',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/x-m4a': 'm4a',
  'text/plain': 'txt'
}

export function isValidKey(key: string): boolean {
  return key.length > 0 && key.length <= 300 && KEY.test(key) && !key.split('/').some((s) => s === '..' || s === '.') && contentTypeOfKey(key) !== null
}

export function checkKey(key: string): string {
  if (!isValidKey(key)) throw new StorageKeyError(key)
  return key
}

/** `image/png` for `…/x.png`; null for an extension Lingxi never stores. */
export function contentTypeOfKey(key: string): string | null {
  const dot = key.lastIndexOf('.')
  if (dot < 0) return null
  return TYPES[key.slice(dot + 1)] ?? null
}

/** `png` for `image/png` (parameters ignored); null for a type Lingxi never stores. */
export function extensionFor(contentType: string): string | null {
  return EXTENSIONS[contentType.split(';')[0]?.trim().toLowerCase() ?? ''] ?? null
}

/** A fresh key `prefix/YYYY/MM/<uuid>.<ext>` (prefix like `images` or `music`). */
export function newKey(prefix: string, ext: string, at = new Date()): string {
  const month = `${at.getUTCFullYear()}/${String(at.getUTCMonth() + 1).padStart(2, '0')}`
  return checkKey(`${prefix}/${month}/${randomUUID()}.${ext}`)
}

/** The key's served type must be the one the caller stores it as. */
export function checkPut(key: string, contentType: string): string {
  checkKey(key)
  const expected = contentTypeOfKey(key)
  const given = contentType.split(';')[0]?.trim().toLowerCase()
  if (expected !== given && extensionFor(contentType) !== key.slice(key.lastIndexOf('.') + 1)) {
    throw new Error(`storage: ${key} is served as ${expected}, not ${contentType}`)
  }
  return expected ?? contentType
}
