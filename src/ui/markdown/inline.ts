import { el, imagesBase } from './dom'
import { inlineMathAt } from './math-syntax'
import { localFile, safeLinkUrl } from './url'

// Inline markdown (emphasis, code spans, links, images, maths, autolinks) → DOM, for the blocks
// parse.ts builds. Emphasis and brackets are matched with stacks (CommonMark's algorithm), and a
// search that failed once (a code span or maths closer) is not repeated, so it stays linear.

/** Where something other than plain text may start. */
const SPECIAL = /[\\`*_~[\]!<$\n]|https?:\/\/|www\./g
/**
 * A link's destination after its `]`: 1 the spaces after `(`, 2 the destination, 3 its title.
 * `(?=(\s*))\1` takes the spaces at once (an atomic group): a `\s*` the engine could hand back to
 * the one before `)` would make a long run of spaces quadratic.
 */
const DEST = /\((?=(\s*))\1(?:(<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))+)(?:\s+("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'))?)?\s*\)/y
/** An autolink (1 its URL) or a `<br>`. */
const ANGLE = /<([a-z][\w+.-]{1,31}:[^\s<>]*)>|<br\s*\/?>/iy
/** A bare URL, up to a space, a bracket or CJK punctuation. */
const BARE_URL = /(?:https?:\/\/|www\.)[^\s<>[\]\u3000-\u303f\uff00-\uffef]+/y
/** A letter or digit (`_` does not open or close emphasis next to one). */
const WORD = /[\p{L}\p{N}]/u
/** A character that may be escaped with a backslash. */
const ESCAPABLE = /[!-/:-@[-`{-~]/
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', nbsp: '\u00a0' }

/** Backslash escapes and character references resolved. */
function decode(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])|&(?:#(\d{1,7}|x[\da-f]{1,6})|([a-z]{2,5}));/gi, (all, escaped?: string, code?: string, name?: string) => {
    if (escaped) return escaped
    if (name) return NAMED[name.toLowerCase()] ?? all
    // `&#…;` or `&#x…;` (Number reads `0x…` as hex and `0…` as decimal); 0 and numbers past Unicode are U+FFFD
    return String.fromCodePoint(Number(`0${code}`) % 0x110000 || 0xfffd)
  })
}

/** A link to `href` if it is a safe absolute URL; else an <a> without one, showing its text only. */
function link(href: string, ...children: (Node | string)[]): HTMLAnchorElement {
  const a = el('a', '', ...children)
  const url = safeLinkUrl(href)
  if (url) {
    a.href = url
    a.target = '_blank'
    a.rel = 'noopener noreferrer nofollow'
  }
  return a
}

/**
 * A run of delimiter characters (or a bracket) in the token list: the elements it closes, its
 * characters left as text, the elements it opens (outermost first). Matching only records these;
 * `emit` builds the tree once at the end, no node is ever moved (moving a subtree costs its size,
 * so wrapping nested emphasis as it is matched would be quadratic), and elements nest at most 16
 * deep (inserting a node costs the depth of its parent or of its subtree): deeper ones are left
 * out, their text kept.
 */
interface Run {
  /** How many elements it closes. */
  c: number
  /** Its characters left as text. */
  s: string
  /** The elements it opens, outermost first. */
  o: Element[]
}
type Token = string | Node | Run

/** Appends tokens to `parent`: text, nodes, and the elements runs open and close. */
function emit<T extends Node & ParentNode>(parent: T, tokens: Token[]): T {
  /** The elements open, outermost first; an element is appended to its parent once it is closed. */
  const open: (Node & ParentNode)[] = [parent]
  /** Text not yet appended (adjacent text goes into one text node). */
  let text = ''
  const put = (node?: Node) => {
    if (text) open.at(-1)!.append(text)
    if (node) open.at(-1)!.append(node)
    text = ''
  }
  const close = () => {
    put()
    const element = open.pop()!
    // (an element left out past 16 levels was pushed as its parent again)
    if (element !== open.at(-1)) put(element)
  }
  for (const token of tokens) {
    if (typeof token === 'string') text += token
    else if (!('o' in token)) put(token)
    else {
      for (let k = 0; k < token.c; k++) close()
      text += token.s
      for (const element of token.o) {
        put()
        open.push(open.length > 16 ? open.at(-1)! : element)
      }
    }
  }
  while (open.length > 1) close()
  put()
  return parent
}

/** A run of `*`, `_` or `~` that may still open or close emphasis. */
interface Delimiter {
  r: Run
  /** Its characters not yet matched. */
  k: number
  /** Its length. */
  n: number
  /** It can open. */
  o: boolean
  /** It can close. */
  x: boolean
  /** Serial number, in the order the runs appear. */
  id: number
}

/** An open `[` or `![`. */
interface Bracket {
  r: Run
  /** `![`: an image. */
  img: boolean
  /** The index of its run in the token list. */
  i: number
  /** The serial number of the last delimiter run before it. */
  id: number
  /** How many links were formed before it (a link cannot hold one). */
  ep: number
}

/** Parses inline markdown `s` into `parent` (returned). */
export function inline<T extends Node & ParentNode>(s: string, parent: T): T {
  const tokens: Token[] = []
  /** Openers that may still match, per character. */
  const stacks: Record<string, Delimiter[]> = { '*': [], _: [], '~': [] }
  const brackets: Bracket[] = []
  /** Maths openers and code span lengths whose closer was searched for in vain. */
  const failed: Record<string, boolean> = {}
  let serial = 0
  let links = 0
  /** Where parsing is. */
  let i = 0

  const add = (token: Token) => {
    tokens.push(token)
  }
  const run = (text: string): Run => {
    const r: Run = { c: 0, s: text, o: [] }
    add(r)
    return r
  }
  /** Drops every opener after serial number `id` (they can no longer match anything). */
  const dropOpenersAfter = (id: number) => {
    for (const stack of Object.values(stacks)) while (stack.length > 0 && stack.at(-1)!.id > id) stack.pop()
  }
  /** Sticky search at i; a search that failed once under a `key` is not repeated. */
  const matchAt = (re: RegExp, key = '') => {
    re.lastIndex = i
    const m = key && failed[key] ? null : re.exec(s)
    if (key) failed[key] = !m
    return m
  }

  /**
   * A run of `length` characters `c` (its token `r`) between the characters `before` and `after`:
   * it closes what it can of the openers before it, and may then open itself.
   */
  const delimiter = (c: string, r: Run, length: number, before: string, after: string) => {
    // a run opens unless a space follows, closes unless one precedes (CommonMark's punctuation
    // rules would keep `**“引号”**后` plain: Chinese has no spaces around emphasis); `_` not
    // inside a word (snake_case)
    const inWord = c === '_' ? (ch: string) => WORD.test(ch) : () => false
    const canOpen = !/\s/.test(after) && !inWord(before)
    const canClose = !/\s/.test(before) && !inWord(after)
    const closer: Delimiter = { r, k: length, n: length, o: canOpen, x: canClose, id: ++serial }
    const stack = stacks[c]!
    while (canClose && closer.k > 0) {
      // the innermost opener of the same character, inside the innermost open bracket
      const opener = stack.at(-1)
      if (!opener || opener.id <= (brackets.at(-1)?.id ?? 0)) break
      // not when the runs could pair only to a multiple of 3 (CommonMark's rule): then this run may open
      if ((opener.x || canOpen) && (opener.n + length) % 3 === 0 && (opener.n % 3 !== 0 || length % 3 !== 0)) break
      const use = closer.k > 1 && opener.k > 1 ? 2 : 1
      // the characters next to the text pair up: the opener's last, the closer's first
      opener.r.s = opener.r.s.slice(use)
      opener.r.o.unshift(el(c === '~' ? 'del' : use > 1 ? 'strong' : 'em'))
      r.s = r.s.slice(use)
      r.c++
      opener.k -= use
      closer.k -= use
      dropOpenersAfter(opener.id)
      if (opener.k === 0) stack.pop()
    }
    if (canOpen && closer.k > 0) stack.push(closer)
  }

  /** At i, after a `]`: a link or image when `(destination "title")` follows, else the `]` as text. */
  const closeBracket = () => {
    const bracket = brackets.pop()
    const dest = bracket && (bracket.img || bracket.ep === links) ? matchAt(DEST) : null
    if (!bracket || !dest) {
      add(']')
      return
    }
    i += dest[0].length
    dropOpenersAfter(bracket.id)
    // (a title, dest[3], is not shown)
    const href = decode(dest[2]?.replace(/^<([\s\S]*)>$/, '$1') ?? '')
    if (bracket.img) {
      // an image: inline from Lingxi's own files, else a link that opens it on click, else its label
      const alt = emit(el('span'), tokens.splice(bracket.i + 1)).textContent!
      const src = localFile(href, imagesBase())
      if (src) tokens[bracket.i] = Object.assign(el('img'), { alt, src, loading: 'lazy' })
      else {
        const label = alt ? `[图片：${alt}]` : '[图片]'
        const placeholder = safeLinkUrl(href)?.startsWith('http') ? link(href, label) : el('span', '', label)
        placeholder.className = 'lx-img'
        tokens[bracket.i] = placeholder
      }
    } else {
      // no link inside a link: inner ones (a bare URL, an image link) become text
      for (let k = bracket.i + 1; k < tokens.length; k++) {
        const inner = tokens[k] as Element
        if (inner.localName === 'a') tokens[k] = el('span', inner.className, ...inner.childNodes)
      }
      bracket.r.s = ''
      bracket.r.o.push(link(href))
      run('').c = 1
      links++
    }
  }

  while (i < s.length) {
    // plain text up to the next character that may start something
    SPECIAL.lastIndex = i
    const next = SPECIAL.exec(s)?.index ?? s.length
    if (next > i) add(decode(s.slice(i, next)))
    if (next >= s.length) break
    i = next
    const c = s[i]!
    const before = s[i - 1] ?? ' '
    // The constructs that are looked for and may not be there: maths (`$$`, `\[` and `\(` search
    // ahead for their closer, once; a `$…$` closer is searched only up to the next `$`, so it need
    // not be remembered) and `<…>`. When they are not, the character is taken as below.
    const math =
      c === '$' || (c === '\\' && (s[i + 1] === '[' || s[i + 1] === '('))
        ? matchAt(inlineMathAt, s[i + 1] === '$' || c === '\\' ? s.slice(i, i + 2) : '')
        : null
    const angle = c === '<' ? matchAt(ANGLE) : null

    if (math) {
      const display = math[1] || math[3]
      add(el('span', display ? 'lx-math lx-math-display' : 'lx-math', (math[2] ?? math[4] ?? math[6] ?? math[8])!.trim()))
      i = inlineMathAt.lastIndex
      // a display block is a line of its own: the line break after it would be an empty line
      if (display && s[i] === '\n') i++
    } else if (c === '\\') {
      // an escaped character is text; a backslash before a newline is a line break (the newline's)
      const escaped = s[i + 1] ?? ''
      if (ESCAPABLE.test(escaped)) {
        add(escaped)
        i += 2
      } else {
        if (escaped !== '\n') add(c)
        i++
      }
    } else if (c === '`') {
      // a code span: up to the next run of as many backticks
      const ticks = matchAt(/`+/y)![0]
      i += ticks.length
      const span = matchAt(new RegExp(`[^]*?(?<!\`)${ticks}(?!\`)`, 'y'), ticks)
      if (span) {
        let code = span[0].slice(0, -ticks.length).replace(/\n/g, ' ')
        if (/^ [\s\S]*[^ ]/.test(code) && code.endsWith(' ')) code = code.slice(1, -1)
        add(el('code', '', code))
        i += span[0].length
      } else add(ticks)
    } else if (c === '*' || c === '_' || c === '~') {
      let length = 1
      while (s[i + length] === c) length++
      const r = run(s.slice(i, i + length))
      i += length
      // only `~~` is a delimiter (strikethrough): other runs of `~` stay text
      if (c !== '~' || length === 2) delimiter(c, r, length, before, s[i] ?? ' ')
    } else if (c === '[' || (c === '!' && s[i + 1] === '[')) {
      const image = c === '!'
      const r = run(image ? '![' : '[')
      brackets.push({ r, img: image, i: tokens.length - 1, id: serial, ep: links })
      i += image ? 2 : 1
    } else if (c === ']') {
      i++
      closeBracket()
    } else if (angle) {
      // an autolink or a line break
      add(angle[1] ? link(angle[1], angle[1]) : el('br'))
      i += angle[0].length
    } else if (c === '\n') {
      add(el('br'))
      i++
    } else {
      // a bare URL (not inside a word), less the punctuation after it; else the character as text
      const bare = /[a-z\d]/i.test(before) ? null : matchAt(BARE_URL)
      if (bare) {
        let url = bare[0]
        while ('?!.,:;*_~\'")'.includes(url.at(-1)!) && !(url.endsWith(')') && url.includes('('))) url = url.slice(0, -1)
        const href = safeLinkUrl(url[0] === 'w' ? `http://${url}` : url)
        add(href ? link(href, url) : url)
        i += url.length
      } else add(decode(s[i++]!))
    }
  }
  return emit(parent, tokens)
}
