import { ApiError } from '../../errors.js'

/**
 * What a chat attachment is, by its bytes (never its name or the type the browser claimed), and
 * the text of a document: PDF with unpdf (pdf.js), DOCX with mammoth, UTF-8 text as it is.
 */

export type Sniffed = { kind: 'image' } | { kind: 'document'; format: 'pdf' | 'docx' | 'text'; ext: 'pdf' | 'docx' | 'txt'; contentType: string }

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
export const TEXT_TYPE = 'text/plain; charset=utf-8'

export const UNSUPPORTED = '不支持的文件类型：只能上传图片（PNG、JPEG、WebP、GIF）或文档（PDF、DOCX、TXT、Markdown、CSV）'
export const ACTIVE_CONTENT = '不能上传网页、SVG 或脚本文件（HTML、SVG、XML），请另存为 PDF 或纯文本'

const starts = (bytes: Uint8Array, ...sig: number[]) => sig.every((b, i) => bytes[i] === b)

/** PNG, JPEG, GIF, WebP by their magic numbers (sharp then reads the whole file). */
export function isImage(bytes: Uint8Array): boolean {
  return (
    starts(bytes, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a) ||
    starts(bytes, 0xff, 0xd8, 0xff) ||
    (starts(bytes, 0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) ||
    (starts(bytes, 0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50)
  )
}

/** Markup a browser would run or render if it ever served it as a page: refused outright. */
const ACTIVE = /^\s*<(?:!doctype\s+html|html|svg|\?xml|script|head|body|iframe|object|embed)\b|<(?:svg|script|iframe)\b/i

/**
 * Decodes UTF-8 strictly (a BOM dropped); undefined when it is not text: invalid UTF-8, NUL or
 * other binary control bytes. `sample`: the bytes are the start of a file, and may end inside a character.
 */
export function decodeText(bytes: Uint8Array, sample = false): string | undefined {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes, { stream: sample })
  } catch {
    return undefined
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: binary files are told by their control bytes
  if (/[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/.test(text)) return undefined
  return text
}

export function sniff(bytes: Uint8Array): Sniffed {
  if (isImage(bytes)) return { kind: 'image' }
  // %PDF-
  if (starts(bytes, 0x25, 0x50, 0x44, 0x46, 0x2d)) return { kind: 'document', format: 'pdf', ext: 'pdf', contentType: 'application/pdf' }
  // A ZIP: a DOCX if mammoth can read it as one (checked when extracting).
  if (starts(bytes, 0x50, 0x4b, 0x03, 0x04)) return { kind: 'document', format: 'docx', ext: 'docx', contentType: DOCX_TYPE }
  if (decodeText(bytes.subarray(0, 64 * 1024), true) !== undefined) return { kind: 'document', format: 'text', ext: 'txt', contentType: TEXT_TYPE }
  throw new ApiError(40000001, UNSUPPORTED)
}

export interface Extracted {
  text: string
  /** PDF: the pages in the file. */
  pages: number | null
  /** Pages or characters beyond the limits were left out. */
  clipped: boolean
}

export interface ExtractLimits {
  maxPages: number
  maxChars: number
}

/** Runs of blank lines and trailing spaces go: they cost tokens and say nothing. */
function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

function clip(text: string, max: number): { text: string; clipped: boolean } {
  const chars = [...text]
  return chars.length > max ? { text: chars.slice(0, max).join(''), clipped: true } : { text, clipped: false }
}

async function pdfText(bytes: Uint8Array, maxPages: number): Promise<{ text: string; pages: number }> {
  const { getDocumentProxy } = await import('unpdf')
  // pdf.js takes the buffer over: it gets a copy.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, stopAtErrors: false } as Parameters<typeof getDocumentProxy>[1])
  try {
    const parts: string[] = []
    for (let n = 1; n <= Math.min(pdf.numPages, maxPages); n++) {
      const page = await pdf.getPage(n)
      const content = await page.getTextContent()
      let line = ''
      for (const item of content.items) {
        if (!('str' in item)) continue
        line += item.str
        if (item.hasEOL) line += '\n'
      }
      parts.push(line)
      page.cleanup()
    }
    return { text: parts.join('\n\n'), pages: pdf.numPages }
  } finally {
    await (pdf as unknown as { destroy(): Promise<void> }).destroy()
  }
}

/** The text of a document, within the limits; refuses a file that is not what its bytes began to say. */
export async function extractText(format: 'pdf' | 'docx' | 'text', bytes: Uint8Array, limits: ExtractLimits): Promise<Extracted> {
  if (format === 'text') {
    const text = decodeText(bytes)
    if (text === undefined) throw new ApiError(40000001, '文本文件必须是 UTF-8 编码')
    if (ACTIVE.test(text.slice(0, 4096)) || /<(?:svg|script|iframe)\b/i.test(text)) throw new ApiError(40000001, ACTIVE_CONTENT)
    const out = clip(tidy(text), limits.maxChars)
    return { text: out.text, pages: null, clipped: out.clipped }
  }
  if (format === 'pdf') {
    let read: { text: string; pages: number }
    try {
      read = await pdfText(bytes, limits.maxPages)
    } catch {
      throw new ApiError(40000001, 'PDF 文件已损坏或已加密，无法读取其中的文字')
    }
    const out = clip(tidy(read.text), limits.maxChars)
    return { text: out.text, pages: read.pages, clipped: out.clipped || read.pages > limits.maxPages }
  }
  let raw: string
  try {
    const mammoth = (await import('mammoth')).default
    raw = (await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) })).value
  } catch {
    throw new ApiError(40000001, '文件不是有效的 DOCX 文档（只支持 Word 2007 及以后的 .docx）')
  }
  const out = clip(tidy(raw), limits.maxChars)
  return { text: out.text, pages: null, clipped: out.clipped }
}
