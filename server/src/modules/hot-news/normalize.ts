import { createHash } from 'node:crypto'
import type { HotItem } from './types.js'

export const MAX_ITEMS = 50
const MAX_TITLE = 200
const MAX_DESC = 300
const MAX_URL = 2048

/** An absolute http(s) URL, or null: other schemes (javascript:, data:, file:) never reach a page. */
export function httpUrl(value: unknown, base?: string): string | null {
  if (typeof value !== 'string') return null
  let text = value.trim()
  if (text === '' || text.length > MAX_URL) return null
  if (text.startsWith('//')) text = `https:${text}`
  let url: URL
  try {
    url = base ? new URL(text, base) : new URL(text)
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  if (url.username || url.password) return null
  return url.href
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™'
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ''
    }
    return NAMED[name.toLowerCase()] ?? whole
  })
}

/** Formatting tags a title may carry; anything else in angle brackets is text ("用 <PGlite> 跑 PostgreSQL"). */
const KNOWN_TAG = /<\/?(?:a|b|i|u|s|em|strong|span|font|br|p|div|sup|sub|mark|code|small|big|del|ins)\b[^>]*>/gi

/** Plain text from text that may hold HTML: tags dropped, entities decoded, whitespace collapsed, length capped. */
export function cleanText(value: unknown, max = MAX_DESC, tags: 'all' | 'known' = 'all'): string {
  if (typeof value === 'number') value = String(value)
  if (typeof value !== 'string') return ''
  const text = decodeEntities(
    value
      .replace(/<(script|style)[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(tags === 'all' ? /<[^>]*>/g : KNOWN_TAG, ' ')
  )
    // Control characters (other than whitespace) say nothing to a reader.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
  return [...text].length > max ? `${[...text].slice(0, max - 1).join('')}…` : text
}

/** Heat as a number: 12345, "12345", "1.2万", "3亿", "1,234"; anything else null. */
export function toHeat(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : null
  if (typeof value !== 'string') return null
  const match = /^\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*(万|w|W|亿)?/.exec(value)
  if (!match?.[1]) return null
  const n = Number(match[1].replace(/,/g, ''))
  if (!Number.isFinite(n)) return null
  const unit = match[2] === '亿' ? 1e8 : match[2] ? 1e4 : 1
  return Math.round(n * unit)
}

/** Epoch ms from ms, seconds, or a date string; null when absent or absurd. */
export function toTime(value: unknown): number | null {
  let ms: number | null = null
  if (typeof value === 'number' && Number.isFinite(value)) ms = value < 1e11 ? value * 1000 : value
  else if (typeof value === 'string' && value.trim() !== '') {
    const text = value.trim()
    ms = /^[0-9]+$/.test(text) ? toTime(Number(text)) : Date.parse(text)
  }
  if (ms === null || !Number.isFinite(ms)) return null
  // Before 1990 or more than a day ahead: a broken field, not a time.
  if (ms < 631152000000 || ms > Date.now() + 86_400_000) return null
  return Math.round(ms)
}

export interface RawItem {
  id?: unknown
  title?: unknown
  url?: unknown
  /** Tried when `url` is not an http(s) URL. */
  fallbackUrl?: unknown
  hot?: unknown
  desc?: unknown
  cover?: unknown
  time?: unknown
}

const idOf = (value: unknown): string | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value !== 'string') return null
  const text = value.trim()
  return text === '' ? null : text.length <= 64 ? text : createHash('sha1').update(text).digest('hex').slice(0, 20)
}

/**
 * Normalised items: entries without a title or an http(s) URL are dropped, ids made unique
 * (a missing id comes from the URL), at most MAX_ITEMS kept in the source's order.
 */
export function normalizeItems(raw: readonly RawItem[], base?: string): HotItem[] {
  const items: HotItem[] = []
  const seen = new Set<string>()
  for (const entry of raw) {
    if (items.length >= MAX_ITEMS) break
    if (!entry || typeof entry !== 'object') continue
    const title = cleanText(entry.title, MAX_TITLE, 'known')
    const url = httpUrl(entry.url, base) ?? httpUrl(entry.fallbackUrl)
    if (title === '' || !url) continue
    let id = idOf(entry.id) ?? createHash('sha1').update(url).digest('hex').slice(0, 20)
    if (seen.has(id)) {
      const fromUrl = createHash('sha1').update(`${url}\n${title}`).digest('hex').slice(0, 20)
      if (seen.has(fromUrl)) continue
      id = fromUrl
    }
    seen.add(id)
    items.push({
      id,
      title,
      url,
      hot: toHeat(entry.hot),
      desc: cleanText(entry.desc),
      cover: httpUrl(entry.cover, base),
      time: toTime(entry.time)
    })
  }
  return items
}
