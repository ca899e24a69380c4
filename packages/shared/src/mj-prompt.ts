/**
 * The one Midjourney prompt parser, shared by the painting widgets and the server.
 *
 * `parsePrompt(text)` splits a prompt into leading image URLs (`pictures`), the words (`prompt`), the
 * options Lingxi understands (`--ar`, `--v`, `--niji`, `--style`, `--s`, `--q`, `--iw`, `--seed`, with
 * their long aliases) and everything else it does not (`rest`, kept verbatim, e.g. `--no cars --tile`).
 * `buildPrompt(parsed)` writes the canonical text back; `parsePrompt(buildPrompt(p))` gives `p` again.
 *
 * Tolerant of how people type on phones and with Chinese input methods: `—ar` / `——ar` / `－－ar` / `–ar`
 * count as `--ar`, `16：9` as `16:9`, full-width digits as digits, options glued to Chinese text
 * (`一只猫--ar 16:9`), any amount of whitespace. `--s` is matched as a whole name, so it never takes
 * `--seed`, `--sref` or `--stop`. Pure, no side effects.
 */

export interface ParsedPrompt {
  /** The words, whitespace collapsed ('' when there are none). */
  prompt: string
  /** Leading image URLs (http/https). */
  pictures: string[]
  /** `--q` / `--quality` (.25, .5, 1, 2, 4 …). */
  quality?: number
  /** `--seed`, an integer. */
  seed?: number
  /** `--style`, e.g. `raw`. */
  style?: string
  /** `--s` / `--stylize`, an integer. */
  stylize?: number
  /** `--v` / `--version`, e.g. `6.1`. */
  version?: string
  /** `--niji`; '' for a bare `--niji`, otherwise its version, e.g. `6`. */
  niji?: string
  /** `--ar` / `--aspect`, `W:H`. */
  aspect?: string
  /** `--iw`, image weight. */
  iw?: number
  /** Options Lingxi does not interpret, verbatim and in order ('' when none). */
  rest: string
}

/** The option fields of ParsedPrompt, in the order buildPrompt writes them. */
export const PROMPT_OPTION_KEYS = ['aspect', 'version', 'niji', 'style', 'stylize', 'quality', 'iw', 'seed'] as const
export type PromptOptionKey = (typeof PROMPT_OPTION_KEYS)[number]

/** Choices the widgets offer (the parser accepts any well-formed value). */
export const ASPECT_CHOICES = ['1:1', '4:3', '3:4', '16:9', '9:16', '3:2', '2:3', '21:9'] as const
export const VERSION_CHOICES = ['7', '6.1', '6', '5.2', '5.1', '5'] as const
export const NIJI_CHOICES = ['6', '5'] as const
export const QUALITY_CHOICES = [0.25, 0.5, 1, 2] as const
export const STYLE_CHOICES = ['raw'] as const
export const STYLIZE_RANGE = { min: 0, max: 1000, default: 100 } as const
export const IW_RANGE = { min: 0, max: 3 } as const
export const SEED_RANGE = { min: 0, max: 4294967295 } as const

type Key = PromptOptionKey
const ALIASES: Record<string, Key> = {
  ar: 'aspect',
  aspect: 'aspect',
  v: 'version',
  version: 'version',
  niji: 'niji',
  style: 'style',
  s: 'stylize',
  stylize: 'stylize',
  q: 'quality',
  quality: 'quality',
  iw: 'iw',
  seed: 'seed'
}
const CANONICAL: Record<Key, string> = {
  aspect: 'ar',
  version: 'v',
  niji: 'niji',
  style: 'style',
  stylize: 's',
  quality: 'q',
  iw: 'iw',
  seed: 'seed'
}

/**
 * Other Midjourney parameter names: recognised after an IME dash (`—no`) or glued to Chinese text, where
 * an arbitrary word would more likely be prose. After ` --` any name counts as an option.
 */
const OTHER_NAMES = [
  'no',
  'chaos',
  'c',
  'tile',
  'weird',
  'w',
  'sref',
  'sw',
  'sv',
  'cref',
  'cw',
  'oref',
  'ow',
  'stop',
  'repeat',
  'r',
  'video',
  'p',
  'personalize',
  'profile',
  'exp',
  'draft',
  'fast',
  'relax',
  'turbo',
  'hd',
  'test',
  'testp',
  'uplight',
  'upbeta',
  'upanime',
  'creative',
  'public',
  'stealth',
  'raw',
  'motion',
  'loop',
  'end',
  'bs',
  'batch'
]
const KNOWN_NAMES = new Set([...Object.keys(ALIASES), ...OTHER_NAMES])

// `--`, or the dashes input methods produce for it: em dash(es), en dash(es), full-width hyphen-minus(es),
// the horizontal bar. One or two of them.
const DASHES = '(?:--|[\\u2014\\u2013\\uFF0D\\u2015\\u2012\\u2212]{1,2})'
// A dash run at a word start (not inside an ASCII word or a URL path like `a--b`), then a name, then the end
// of the token. Group 1: what precedes, 2: the dashes, 3: the name.
const MARKER = new RegExp(`(^|[^A-Za-z0-9_\\-./:?=&%#~+])(${DASHES})([A-Za-z][A-Za-z0-9]*)(?=\\s|$)`, 'g')

const FULL_WIDTH_DIGITS = /[\uFF10-\uFF19\uFF0E\uFF1A]/g

function halfWidth(text: string): string {
  return text.replace(FULL_WIDTH_DIGITS, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))
}

/** Rewrites option markers to ` --name` so that every option is its own whitespace-separated token. */
function normaliseMarkers(text: string): string {
  return text.replace(MARKER, (whole, before: string, dashes: string, name: string) => {
    const lower = name.toLowerCase()
    const plainAfterSpace = dashes === '--' && (before === '' || /\s/.test(before))
    if (!plainAfterSpace && !KNOWN_NAMES.has(lower)) return whole
    return `${before}${before === '' || /\s/.test(before) ? '' : ' '}--${name}`
  })
}

const OPTION_TOKEN = /^--([A-Za-z][A-Za-z0-9]*)$/
const URL_TOKEN = /^<?(https?:\/\/[^\s<>]+?)>?$/i

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)$/
const INTEGER = /^\d+$/
const ASPECT = /^(\d+):(\d+)$/
const VERSION = /^\d+(?:\.\d+)?$/
const STYLE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/

/** Reads the value of a known option from its first argument; undefined when it does not fit. */
function readValue(key: Key, raw: string | undefined): string | number | undefined {
  if (key === 'niji') {
    // `--niji 6`, or a bare `--niji` (whatever follows is not a version)
    const v = raw === undefined ? '' : halfWidth(raw)
    return VERSION.test(v) ? v : ''
  }
  if (raw === undefined) return undefined
  const v = halfWidth(raw)
  switch (key) {
    case 'aspect': {
      const m = ASPECT.exec(v)
      return m && Number(m[1]) > 0 && Number(m[2]) > 0 ? `${Number(m[1])}:${Number(m[2])}` : undefined
    }
    case 'version':
      return VERSION.test(v) ? v : undefined
    case 'style':
      return STYLE.test(raw) ? raw.toLowerCase() : undefined
    case 'stylize':
    case 'seed':
      return INTEGER.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : undefined
    case 'quality':
    case 'iw':
      return NUMBER.test(v) ? Number(v) : undefined
  }
}

/** Splits prompt text into pictures, words, known options and the rest. Never throws. */
export function parsePrompt(text: string): ParsedPrompt {
  const tokens = normaliseMarkers(String(text ?? ''))
    .split(/\s+/)
    .filter(Boolean)
  const out: ParsedPrompt = { prompt: '', pictures: [], rest: '' }
  const words: string[] = []
  const rest: string[] = []

  let i = 0
  // Leading image URLs.
  for (; i < tokens.length; i++) {
    const m = URL_TOKEN.exec(tokens[i]!)
    if (!m) break
    out.pictures.push(m[1]!)
  }
  for (; i < tokens.length; i++) {
    if (OPTION_TOKEN.test(tokens[i]!)) break
    words.push(tokens[i]!)
  }
  // Options: `--name args…` until the next option.
  while (i < tokens.length) {
    const name = OPTION_TOKEN.exec(tokens[i]!)![1]!
    let j = i + 1
    while (j < tokens.length && !OPTION_TOKEN.test(tokens[j]!)) j++
    const args = tokens.slice(i + 1, j)
    const key = ALIASES[name.toLowerCase()]
    if (key) {
      const value = readValue(key, args[0])
      if (value === undefined) {
        // Malformed (`--ar wide`, `--s` with nothing): kept for the person to see, not interpreted.
        rest.push(`--${name}`, ...args)
      } else {
        if (key === 'niji' && value === '') {
          // a bare --niji: any words after it are prompt words, not its value
          words.push(...args)
        } else {
          words.push(...args.slice(1))
        }
        // later duplicates win, as with Midjourney
        ;(out as unknown as Record<string, unknown>)[key] = value
      }
    } else {
      rest.push(`--${name}`, ...args)
    }
    i = j
  }
  out.prompt = words.join(' ')
  out.rest = rest.join(' ')
  return out
}

function formatNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : ''
}

/** The canonical text of a parsed prompt: pictures, words, known options, the rest. */
export function buildPrompt(parsed: Partial<ParsedPrompt>): string {
  const parts: string[] = []
  for (const p of parsed.pictures ?? []) if (p) parts.push(p)
  const words = (parsed.prompt ?? '').trim().split(/\s+/).filter(Boolean).join(' ')
  if (words) parts.push(words)
  for (const key of PROMPT_OPTION_KEYS) {
    const value = parsed[key]
    if (value === undefined || value === null) continue
    if (key === 'niji') {
      parts.push(value === '' ? '--niji' : `--niji ${value}`)
      continue
    }
    const text = typeof value === 'number' ? formatNumber(value) : String(value).trim()
    if (text === '') continue
    parts.push(`--${CANONICAL[key]} ${text}`)
  }
  const rest = (parsed.rest ?? '').trim().split(/\s+/).filter(Boolean).join(' ')
  if (rest) parts.push(rest)
  return parts.join(' ')
}

/**
 * Sets (or, with undefined, removes) one option in prompt text and returns the canonical text. Setting a
 * version removes niji and the other way round (Midjourney takes one of them).
 */
export function setPromptOption<K extends PromptOptionKey>(text: string, key: K, value: ParsedPrompt[K] | undefined): string {
  const parsed = parsePrompt(text)
  if (value === undefined || value === null || (typeof value === 'number' && !Number.isFinite(value))) delete parsed[key]
  else {
    ;(parsed as unknown as Record<string, unknown>)[key] = value
    if (key === 'version') delete parsed.niji
    if (key === 'niji') delete parsed.version
  }
  return buildPrompt(parsed)
}

/** Chinese description of the first out-of-range option, or null when all are acceptable. */
export function checkPrompt(parsed: ParsedPrompt): string | null {
  if (parsed.stylize !== undefined && (parsed.stylize < STYLIZE_RANGE.min || parsed.stylize > STYLIZE_RANGE.max))
    return `风格化 --s 必须在 ${STYLIZE_RANGE.min}–${STYLIZE_RANGE.max} 之间`
  if (parsed.seed !== undefined && (parsed.seed < SEED_RANGE.min || parsed.seed > SEED_RANGE.max))
    return `种子 --seed 必须在 ${SEED_RANGE.min}–${SEED_RANGE.max} 之间`
  if (parsed.iw !== undefined && (parsed.iw < IW_RANGE.min || parsed.iw > IW_RANGE.max)) return `图片权重 --iw 必须在 ${IW_RANGE.min}–${IW_RANGE.max} 之间`
  if (parsed.quality !== undefined && !(parsed.quality > 0 && parsed.quality <= 4)) return '质量 --q 必须是 0.25、0.5、1、2 或 4'
  if (parsed.aspect !== undefined) {
    const [w = 0, h = 0] = parsed.aspect.split(':').map(Number)
    if (!(w > 0 && h > 0) || w / h > 4 || h / w > 4 || w > 10000 || h > 10000) return '画面比例 --ar 不能超过 4:1 或 1:4'
  }
  if (parsed.version !== undefined && parsed.niji !== undefined) return '--v 与 --niji 只能选一个'
  return null
}
