import type { UploadTicket } from '@lingxi/server/wire'
import { ApiError, NetworkError, request } from './api'
import { $config } from './config'
import { MSG_SYSTEM_ERROR } from './messages'

// Shapes and calls: docs/tools-wire.md (Files and the image host); the wire objects are the
// server's (`@lingxi/server/wire`, type-only).

/**
 * An uploaded image (`oss/upload/complete`, `images/list`). Public API of lingxi/core, so written
 * out (see types.ts); types.test.ts checks it against the server's.
 */
export interface Image {
  imageId: string
  /** Where the file is served (`/files/{key}` on this server, or the bucket's URL). */
  url: string
  /** A 160-wide thumbnail. */
  thumbUrl: string
  name: string
  contentType: string
  /** Bytes. */
  size: number
  width: number
  height: number
  createTime: number
  /** In `images/list` while an operator has the image taken down (已下架): the reason; the file is not served. */
  takedown?: string | null
}

export type UploadPurpose = 'image' | 'avatar' | 'painting'

/**
 * `oss/upload/getOssSTS`: where and how to PUT the file. uploadUrl, local: `/api/v1/oss/upload/put/{key}?expires=…&sig=…`
 * (relative to the API); S3: a presigned URL.
 */
export type { UploadTicket }

export interface UploadOptions {
  purpose?: UploadPurpose
  /**
   * Called with a fraction in [0, 1] that never goes down: bytes sent count up to 0.95, 1 once
   * the server has checked and registered the image.
   */
  onProgress?(fraction: number): void
  signal?: AbortSignal
}

/** The largest file the server takes (bytes). */
export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024
/** The image types the server takes. */
export const UPLOAD_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const
/** For `<input type=file accept>`. */
export const UPLOAD_ACCEPT = UPLOAD_TYPES.join(',')

/** Validation codes of API.md, reused for the checks made before anything is sent. */
export const CODE_INVALID = 40000001
export const CODE_TOO_LARGE = 40000003

export const MSG_UPLOAD_TYPE = '只能上传 PNG、JPEG、WebP 或 GIF 图片'
export const MSG_UPLOAD_EMPTY = '文件是空的，请重新选择'
export const MSG_UPLOAD_TOO_LARGE = `图片不能超过 ${UPLOAD_MAX_BYTES / 1024 / 1024} MB`
export const MSG_UPLOAD_FAILED = '上传失败，请稍后重试'

const SENT_SHARE = 0.95

/** The image type of the first bytes of a file, or null (the server checks the same way). */
export function sniffImageType(head: Uint8Array): (typeof UPLOAD_TYPES)[number] | null {
  const at = (offset: number, ...bytes: number[]) => bytes.every((b, i) => head[offset + i] === b)
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png'
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg'
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return 'image/gif'
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp'
  return null
}

async function readHead(file: Blob): Promise<Uint8Array> {
  const part = file.slice(0, 16)
  if (typeof part.arrayBuffer === 'function') return new Uint8Array(await part.arrayBuffer())
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer))
    reader.onerror = () => reject(reader.error)
    reader.readAsArrayBuffer(part)
  })
}

/**
 * What is wrong with a file before it is sent, in Chinese, or null when it may be uploaded. It
 * looks at the size and the first bytes (not the name or the type the browser guessed), so a
 * renamed program is refused here already. Resolves the detected type as `contentType`.
 */
export async function checkUpload(file: Blob): Promise<{ error: ApiError } | { error: null; contentType: string }> {
  if (!file || typeof file.size !== 'number') return { error: new ApiError(CODE_INVALID, MSG_UPLOAD_TYPE) }
  if (file.size === 0) return { error: new ApiError(CODE_INVALID, MSG_UPLOAD_EMPTY) }
  if (file.size > UPLOAD_MAX_BYTES) return { error: new ApiError(CODE_TOO_LARGE, MSG_UPLOAD_TOO_LARGE) }
  let head: Uint8Array
  try {
    head = await readHead(file)
  } catch {
    return { error: new ApiError(CODE_INVALID, '无法读取该文件，请重新选择') }
  }
  const contentType = sniffImageType(head)
  if (!contentType) return { error: new ApiError(CODE_INVALID, MSG_UPLOAD_TYPE) }
  return { error: null, contentType }
}

const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' }

/** The last segment of a name, without control characters; a default name when nothing is left. */
export function uploadName(name: string | undefined, contentType: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? ''
  // \p{Cc}: the control characters, C0 (U+0000–U+001F), DEL and C1 (U+007F–U+009F).
  const clean = base
    .replace(/\p{Cc}/gu, '')
    .trim()
    .slice(-120)
  return clean && clean !== '.' && clean !== '..' ? clean : `image.${EXT[contentType] ?? 'png'}`
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The upload was aborted.', 'AbortError')
}

function absolute(url: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `${$config.get().apiBase}${url.startsWith('/') ? '' : '/'}${url}`
}

/** The error an answer to the PUT carries: the envelope's (local provider) or a generic one (S3). */
function putError(status: number, text: string): Error {
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown }
    if (typeof body?.code === 'number' && body.code !== 2000) return new ApiError(body.code, String(body.message ?? MSG_UPLOAD_FAILED))
  } catch {
    /* not JSON: S3 answers XML */
  }
  if (status === 413) return new ApiError(CODE_TOO_LARGE, MSG_UPLOAD_TOO_LARGE)
  return new NetworkError(status === 403 ? '上传凭证已失效，请重新上传' : MSG_UPLOAD_FAILED)
}

/** PUTs the body with XMLHttpRequest (fetch cannot report upload progress). */
function put(ticket: UploadTicket, file: Blob, contentType: string, opts: UploadOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const { signal, onProgress } = opts
    if (signal?.aborted) return reject(abortReason(signal))
    const xhr = new XMLHttpRequest()
    const onAbort = () => xhr.abort()
    const done = (error?: unknown) => {
      signal?.removeEventListener('abort', onAbort)
      if (error === undefined) resolve()
      else reject(error)
    }
    xhr.open(ticket.method || 'PUT', absolute(ticket.uploadUrl))
    const headers = { ...(ticket.headers ?? {}) }
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = contentType
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value)
    if (onProgress && xhr.upload) {
      xhr.upload.onprogress = (event) => {
        const total = event.lengthComputable && event.total ? event.total : file.size
        if (total > 0) onProgress(Math.min(1, event.loaded / total) * SENT_SHARE)
      }
    }
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        // The local provider answers the envelope; a 2xx with another code is still a refusal.
        const refused = xhr.responseText ? putError(xhr.status, xhr.responseText) : null
        done(refused instanceof ApiError ? refused : undefined)
      } else {
        done(putError(xhr.status, xhr.responseText))
      }
    }
    xhr.onerror = () => done(new NetworkError(MSG_UPLOAD_FAILED))
    xhr.ontimeout = () => done(new NetworkError('上传超时，请检查网络后重试'))
    xhr.onabort = () => done(signal?.aborted ? abortReason(signal) : new NetworkError(MSG_UPLOAD_FAILED))
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      xhr.send(file)
    } catch (cause) {
      done(new NetworkError(MSG_SYSTEM_ERROR, { cause }))
    }
  })
}

/**
 * Uploads one image: checks it here (type by its first bytes, at most 10 MB), asks for upload
 * credentials (`oss/upload/getOssSTS`), PUTs the file where they say with progress, then has the
 * server check and register it (`oss/upload/complete`). Throws ApiError (the checks here use the
 * server's codes 40000001/40000003 with a Chinese message), NetworkError, or the abort reason.
 * Never shows anything: pass errors to notifyError, or show `error.message` next to the file.
 */
export async function uploadImage(file: Blob & { name?: string }, opts: UploadOptions = {}): Promise<Image> {
  const { signal, onProgress } = opts
  signal?.throwIfAborted()
  const check = await checkUpload(file)
  if (check.error) throw check.error
  const { contentType } = check
  let last = 0
  const progress = (fraction: number) => {
    if (fraction > last || fraction === 0) {
      last = Math.max(last, fraction)
      onProgress?.(last)
    }
  }
  progress(0)
  const ticket = await request<UploadTicket>(
    '/oss/upload/getOssSTS',
    { fileName: uploadName(file.name, contentType), contentType, size: file.size, purpose: opts.purpose ?? 'image' },
    { signal }
  )
  await put(ticket, file, contentType, { signal, onProgress: progress })
  progress(SENT_SHARE)
  const image = await request<Image>('/oss/upload/complete', { key: ticket.key }, { signal })
  progress(1)
  return image
}
