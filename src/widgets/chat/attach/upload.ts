import type { ChatAttachment } from '@lingxi/server/wire'
import { ApiError, authHeaders, NetworkError } from '../../../core/api'
import { $config } from '../../../core/config'
import { MSG_SYSTEM_ERROR } from '../../../core/messages'
import { t } from '../i18n'

// Chat attachments on the client: the checks made before anything is sent, the upload with its
// progress, and reading a file back with the login (the server serves them to their owner only).
// Loaded with the tray on first use: none of it is in the chat's first download.

export type { ChatAttachment }

/**
 * A text in the chat's language (../i18n.ts) with its values put in: `say('移除「{s}」', { s: name })`.
 * The keys of the English dictionary keep the `{x}` marks, so a sentence may order them its way.
 */
export const say = (zh: string, values: Record<string, string | number> = {}): string =>
  t(zh).replace(/\{(\w)\}/g, (mark, key: string) => String(values[key] ?? mark))

/** The server's limits (modules/chat/attachments.ts; an operator may lower them there). */
export const IMAGE_MAX = 10 * 1024 * 1024
export const DOCUMENT_MAX = 20 * 1024 * 1024
export const MAX_FILES = 8
/** For `<input type=file accept>`. */
export const ACCEPT = 'image/png,image/jpeg,image/webp,image/gif,.pdf,.docx,.txt,.md,.markdown,.csv,text/plain,text/markdown,text/csv'

export const UPLOAD_PATH = '/api/v1/oss/upload/put/chat-attachment'

export const MSG_TYPE = '只能添加图片（PNG、JPEG、WebP、GIF）或文档（PDF、DOCX、TXT、Markdown、CSV）'
export const MSG_ACTIVE = '不能添加网页或 SVG 文件，请另存为 PDF 或图片'
export const MSG_EMPTY = '文件是空的'
export const MSG_FAILED = '上传失败，请稍后重试'

export type Kind = 'image' | 'document'

const at = (head: Uint8Array, offset: number, ...bytes: number[]) => bytes.every((b, i) => head[offset + i] === b)

/** What the first bytes (and, for plain text, the name) say the file is; null: not taken. */
export function kindOf(head: Uint8Array, name: string): Kind | null {
  if (
    at(head, 0, 0x89, 0x50, 0x4e, 0x47) ||
    at(head, 0, 0xff, 0xd8, 0xff) ||
    at(head, 0, 0x47, 0x49, 0x46, 0x38) ||
    (at(head, 0, 0x52, 0x49, 0x46, 0x46) && at(head, 8, 0x57, 0x45, 0x42, 0x50))
  )
    return 'image'
  if (at(head, 0, 0x25, 0x50, 0x44, 0x46, 0x2d) || at(head, 0, 0x50, 0x4b, 0x03, 0x04)) return 'document'
  // Text has no magic number: its name says it is meant as text; the server reads it as UTF-8.
  return /\.(txt|md|markdown|csv|tsv|log|json)$/i.test(name) ? 'document' : null
}

async function head(file: Blob): Promise<Uint8Array> {
  return new Uint8Array(await file.slice(0, 16).arrayBuffer())
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`

/** The kind of a file, or the reason it cannot be attached (in the chat's language), from its size and first bytes. */
export async function check(file: File): Promise<{ kind: Kind } | { error: string }> {
  if (/\.(svg|html?|xhtml|xml)$/i.test(file.name) || /svg|html/.test(file.type)) return { error: t(MSG_ACTIVE) }
  if (file.size === 0) return { error: t(MSG_EMPTY) }
  let kind: Kind | null
  try {
    kind = kindOf(await head(file), file.name)
  } catch {
    return { error: t('无法读取该文件，请重新选择') }
  }
  if (!kind) return { error: t(MSG_TYPE) }
  const max = kind === 'image' ? IMAGE_MAX : DOCUMENT_MAX
  if (file.size > max) return { error: say(kind === 'image' ? '图片不能超过 {s}' : '文档不能超过 {s}', { s: mb(max) }) }
  return { kind }
}

/**
 * A server's message in the chat's language: its English when the dictionary has it, a name in
 * 「」 and a number keyed as 「{s}」 and {n} (as the toaster matches them), else as the server wrote it.
 */
function fromServer(message: string): string {
  const values: Record<string, string> = {}
  const key = message
    .replace(/「([^」]*)」/, (_, name: string) => {
      values.s = name
      return '「{s}」'
    })
    .replace(/\d+(\.\d+)?/, (n) => {
      values.n = n
      return '{n}'
    })
  return t(key) === key ? t(message) : say(key, values)
}

function envelopeError(status: number, text: string): Error {
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown }
    if (typeof body?.code === 'number' && body.code !== 2000) return new ApiError(body.code, fromServer(String(body.message ?? MSG_FAILED)))
  } catch {
    /* not the envelope */
  }
  return new NetworkError(t(status === 413 ? '文件太大' : MSG_FAILED))
}

/** Uploads one file with its progress in [0, 1]; resolves the server's attachment, or throws ApiError / NetworkError / the abort. */
export function upload(file: File, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<ChatAttachment> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const xhr = new XMLHttpRequest()
    xhr.open('POST', `${$config.get().apiBase}${UPLOAD_PATH}?name=${encodeURIComponent(file.name)}`)
    xhr.withCredentials = true
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value)
    xhr.setRequestHeader('Content-Type', 'application/octet-stream')
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(Math.min(0.95, (event.loaded / event.total) * 0.95))
    }
    xhr.onload = () => {
      try {
        const body = JSON.parse(xhr.responseText) as { code: number; message: string; data: ChatAttachment }
        if (body.code === 2000) {
          onProgress(1)
          return resolve(body.data)
        }
      } catch {
        /* below */
      }
      reject(envelopeError(xhr.status, xhr.responseText))
    }
    xhr.onerror = () => reject(new NetworkError(t(MSG_FAILED)))
    xhr.onabort = () => reject(signal?.reason ?? new NetworkError(t(MSG_FAILED)))
    signal?.addEventListener('abort', () => xhr.abort(), { once: true })
    try {
      xhr.send(file)
    } catch (cause) {
      reject(new NetworkError(t(MSG_SYSTEM_ERROR), { cause }))
    }
  })
}

const urls = new Map<string, Promise<string>>()

/** An object URL of an attachment's file (or thumbnail), fetched once with the login. */
export function objectUrl(path: string): Promise<string> {
  let url = urls.get(path)
  if (!url) {
    url = fetch(`${$config.get().apiBase}${path}`, { headers: authHeaders(), credentials: 'include' }).then(async (res) => {
      if (!res.ok) throw new NetworkError(t(res.status === 404 ? '附件不存在或已删除' : MSG_FAILED))
      return URL.createObjectURL(await res.blob())
    })
    url.catch(() => urls.delete(path))
    urls.set(path, url)
  }
  return url
}

/** 1.2 MB, 34 KB, 120 字节 (120 bytes in English). */
export function size(bytes: number): string {
  if (bytes < 1024) return say('{n} 字节', { n: bytes })
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
