import { inlineMathAt } from './math-syntax'
import { localFile, safeLinkUrl } from './url'

// Markdown (the GFM subset models write) → DOM, safe by construction: every element is made with
// createElement from a fixed set of tags, all model text goes in as text nodes, and the only
// attributes ever set are href/target/rel on links (after checking the URL), class names of our
// own, data-lang, start on <ol>, src/alt/loading on images from Lingxi's own files, and
// type/checked/disabled on task checkboxes. Raw HTML is shown as text (an inline `<br>` is a line
// break, as models put it in table cells). Images load only from Lingxi's own /files/; any other
// image is a `[图片：alt]` link, fetched on click only. See README.md for what is covered.
//
// Parsing is two-level: `parse` splits the source into top-level blocks (their extent, and a
// function that builds their DOM); a block's content (inline markdown, list items, quotes) is
// parsed only when it is built. Every step is linear in its input: regexes are anchored or cannot
// backtrack far, emphasis and brackets are matched with stacks (CommonMark's algorithm), a search
// that failed once (a code span or maths closer) is not repeated, and nesting stops at 16 levels.
//
// Written to be read: the minifier makes it small (it is most of the renderer chunk). Only property
// names survive minifying, so the objects made per block and per delimiter (Block, Top, Run,
// Delimiter, Bracket) keep one-letter properties, each documented where it is declared.

export interface Block {
  /** Its first line. */
  a: number
  /** Builds the block's DOM. `tight`: a paragraph in a tight list item, without <p>. */
  r: (tight?: boolean) => Node
  /** A fenced code block closed by its fence line: nothing can extend it. */
  c?: boolean
  /** An open fenced code block at the top level, not indented: its fence character. */
  f?: string
}

/** A top-level block with its extent in the source: from its first line to the next block. */
export interface Top extends Block {
  s: number
  e: number
  /** Where its second line starts (past the source's end while the first line is incomplete). */
  o: number
}

/** Blocks, and whether a blank line separates two of them (a list item holding them makes its list loose). */
type Blocks = Block[] & { g?: boolean }

// what blocks are built with (see context)
let doc: Document
let filesBase: string

/** Sets what `Top.r` builds with: the document, and the base under which images load inline. */
export function context(document: Document, files: string): void {
  doc = document
  filesBase = files
}

/**
 * What a line starts (these lines also end a paragraph): 1 indent, then 2 a fence and 3 its info
 * string, 4 a heading's #s, 5 a thematic break's character, 6 a quote's `>`, or 7 a list marker
 * and 8 the spaces after it.
 */
const LINE = /^( {0,3})(?:(`{3,}|~{3,})(.*)|(#{1,6})(?:[ \t]+|$)|([-*_])(?:[ \t]*\5){2,}[ \t]*$|(>) ?|([-*+]|\d{1,9}[.)])([ \t]+|$))/

/** A line that starts a block of raw HTML: a tag (not `<br>`) or a comment. */
const RAW_HTML = /^ {0,3}<(?:!--|\/?(?!br\b)[a-z][\w-]*(?:[\s/>]|$))/i

/** A task list item's checkbox: 1 the mark inside it. */
const TASK = /^\[([ xX])\][ \t]+(?=\S)/

function isBlank(line?: string): boolean {
  return !line?.trim()
}

/** A line that may continue a paragraph: not blank, and not the start of another block. */
function isText(line: string): boolean {
  return !isBlank(line) && !LINE.test(line)
}

/** A new element with the class name given ('' for none) and children. */
function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const element = doc.createElement(tag)
  if (className) element.className = className
  element.append(...children)
  return element
}

/** A table row's cells: outer pipes dropped, split at pipes that are not escaped. */
function cells(line = ''): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'))
}

/** Whether `head` and `delimiter` open a table (a delimiter row, as many cells as the header). */
function isTable(head: string, delimiter = ''): boolean {
  return /\|/.test(head) && delimiter.includes('|') && cells(delimiter).every((cell) => /^:?-+:?$/.test(cell)) && cells(head).length === cells(delimiter).length
}

/** The class of a column from its delimiter cell (`:-`, `:-:`, `-:`, `-`). */
function alignment(delimiter: string): string {
  const left = delimiter.startsWith(':')
  const right = delimiter.endsWith(':')
  if (left && right) return 'lx-center'
  if (left) return 'lx-left'
  return right ? 'lx-right' : ''
}

/**
 * Blocks of `lines` (without their newline). `depth`: nesting depth (lists and quotes stop
 * nesting at 16). Display maths (`$$` or `\[` lines) is a paragraph: its delimiters are found
 * inline, across its lines.
 */
function blocks(lines: string[], depth: number): Blocks {
  const out: Blocks = []
  const n = lines.length
  /** The line being read. */
  let i = 0
  /** The first line of the block being read. */
  let first = 0
  /** A blank line came after a block. */
  let gap = false

  const add = (render: Block['r'], more?: Partial<Block>) => {
    out.push({ a: first, r: render, ...more })
  }

  /**
   * The lines of a quote or list item from line i on, its first line's content given: `inner`
   * maps a line to its content inside the container (undefined: the line is not in it). Leaves i
   * at the first line after it.
   */
  const take = (inner: (line: string) => string | undefined, firstContent: string): string[] => {
    const taken = [firstContent]
    while (++i < n) {
      const line = lines[i]!
      // or a lazy continuation line: more of a paragraph, without the container's marker or indent
      const content = inner(line) ?? (isText(taken.at(-1)!) && isText(line) ? line : undefined)
      if (content === undefined) break
      taken.push(content)
    }
    return taken
  }

  while (i < n) {
    const line = lines[i]!
    if (isBlank(line)) {
      gap = out.length > 0
      i++
      continue
    }
    if (gap) out.g = true
    gap = false
    first = i
    let m = LINE.exec(line)

    if (m?.[2] && !(m[2][0] === '`' && m[3]!.includes('`'))) {
      // a fenced code block (a backtick fence's info string holds no backtick), up to its closing
      // fence or the end; its lines lose as much indentation as the opening fence has
      const indent = m[1]!.length
      const fence = m[2]
      const word = m[3]!.trim().split(/\s/)[0]!
      const lang = /^[\w+#.-]{1,32}$/.test(word) ? word.toLowerCase() : ''
      const body: string[] = []
      let closed = false
      while (++i < n) {
        const trimmed = lines[i]!.trim()
        closed = trimmed.startsWith(fence) && /^(`+|~+)$/.test(trimmed) && lines[i]!.search(/\S/) < 4
        if (closed) break
        body.push(lines[i]!.slice(Math.min(indent, lines[i]!.search(/\S|$/))))
      }
      const code = body.join('\n')
      if (closed) i++
      add(() => codeBlock(lang, code), { c: closed, f: closed || indent > 0 || depth > 0 ? '' : fence[0] })
    } else if (m?.[4]) {
      // an ATX heading, less its closing #s
      const text = line.slice(m[0].length).replace(/(^|[ \t])#+[ \t]*$/, '')
      const tag = `h${m[4].length}` as 'h1'
      i++
      add(() => inline(text.trim(), el(tag)))
    } else if (m?.[5]) {
      i++
      add(() => el('hr'))
    } else if (m?.[6] && depth < 16) {
      const quoted = take((x) => (LINE.exec(x)?.[6] ? x.replace(/^ *> ?/, '') : undefined), line.slice(m[0].length))
      add(() => build(el('blockquote'), blocks(quoted, depth + 1)))
    } else if (m?.[7] && depth < 16) {
      // a list: items with the same kind of marker (its last character: `-`, `*`, `+`, `.` or `)`)
      const kind = m[7].slice(-1)
      const start = kind === '.' || kind === ')' ? parseInt(m[7], 10) : null
      const items: string[][] = []
      let loose = false
      while (m?.[7]?.endsWith(kind)) {
        // an item's content starts after its marker and 1–4 spaces (more: the content starts
        // after one, the rest is part of it); its lines are those indented as far
        const spaces = m[8]!.length
        const width = m[1]!.length + m[7].length + (spaces > 0 && spaces < 5 ? spaces : 1)
        const item = take((x) => (isBlank(x) ? '' : x.search(/\S/) >= width ? x.slice(width) : undefined), lines[i]!.slice(width))
        let blanks = 0
        while (item.length > 1 && item.at(-1) === '') {
          item.pop()
          blanks++
        }
        items.push(item)
        m = i < n ? LINE.exec(lines[i]!) : null
        // blank lines between items make the list loose; after the last one they are not its own
        if (m?.[7]?.endsWith(kind)) loose ||= blanks > 0
        else i -= blanks
      }
      add(() => list(items, depth, start, loose))
    } else if (RAW_HTML.test(line)) {
      // raw HTML, shown as it is, up to a blank line
      i++
      while (i < n && !isBlank(lines[i])) i++
      const raw = lines.slice(first, i)
      add(() => el('p', 'lx-raw', raw.join('\n').trimEnd()))
    } else if (isTable(line, lines[i + 1])) {
      const head = cells(line)
      const align = cells(lines[i + 1]).map(alignment)
      const rows: string[][] = []
      for (i += 2; i < n && isText(lines[i]!); i++) rows.push(cells(lines[i]))
      add(() => table(head, align, rows))
    } else {
      // a paragraph, up to a blank line, a line that starts another block, or a table
      const paragraph = [line]
      while (++i < n && isText(lines[i]!) && !isTable(lines[i]!, lines[i + 1])) paragraph.push(lines[i]!)
      const text = paragraph.map((x) => x.trim()).join('\n')
      add((tight) => inline(text, tight ? doc.createDocumentFragment() : el('p')))
    }
  }
  return out
}

/** Appends the blocks' DOM to `parent`. */
function build<T extends Node>(parent: T, list: Block[], tight?: boolean): T {
  for (const block of list) parent.appendChild(block.r(tight))
  return parent
}

/** A list of `items` (each its lines); `start`: an ordered list's first number, null for a bullet list. */
function list(items: string[][], depth: number, start: number | null, loose: boolean): HTMLElement {
  const out = start === null ? el('ul') : el('ol')
  if (start !== null && start !== 1) (out as HTMLOListElement).start = start
  const parsed = items.map(([first, ...rest]) => {
    const task = TASK.exec(first!)
    return [task, blocks([task ? first!.slice(task[0].length) : first!, ...rest], depth + 1)] as const
  })
  // a list is tight (no <p> in its items) unless blank lines separate its items or their blocks
  const tight = !loose && !parsed.some(([, content]) => content.g)
  for (const [task, content] of parsed) {
    const li = build(el('li'), content, tight)
    if (task) {
      // a task item's checkbox goes in its first paragraph when it starts with one
      const holder = li.firstChild?.nodeName === 'P' ? (li.firstChild as Element) : li
      holder.prepend(Object.assign(el('input'), { type: 'checkbox', disabled: true, defaultChecked: task[1] !== ' ' }))
    }
    out.append(li)
  }
  return out
}

/** A table in its scrolling box; a row with fewer cells than the header gets empty ones. */
function table(head: string[], align: string[], rows: string[][]): HTMLElement {
  const row = (texts: string[], tag: 'th' | 'td') => {
    const tr = el('tr')
    for (let k = 0; k < head.length; k++) tr.append(inline(texts[k] ?? '', el(tag, align[k])))
    return tr
  }
  const t = el('table', '', el('thead', '', row(head, 'th')))
  if (rows.length > 0) {
    const body = t.appendChild(el('tbody'))
    for (const r of rows) body.append(row(r, 'td'))
  }
  return el('div', 'lx-table', t)
}

/** A code block: its language and a copy button above the code (highlighted later, see renderer.ts). */
function codeBlock(lang: string, code: string): HTMLElement {
  const copy = el('button', 'lx-code-copy', '复制')
  copy.type = 'button'
  const head = el('div', 'lx-code-head', el('span', 'lx-code-lang', lang || 'text'), copy)
  const box = el('div', 'lx-code', head, el('pre', '', el('code', lang && `language-${lang}`, code)))
  box.dataset.lang = lang
  return box
}

/** Splits `src` into top-level blocks, with offsets from `base`. */
export function parse(src: string, base = 0): Top[] {
  const lines = src.split('\n')
  if (!lines.at(-1)) lines.pop()
  // where each line starts (one more: past the last line and its newline)
  const starts = [base]
  for (let k = 0; k < lines.length; k++) {
    starts.push(starts[k]! + lines[k]!.length + 1)
    lines[k] = lines[k]!.replace(/\r$/, '')
  }
  const found = blocks(lines, 0)
  return found.map((block, k) => {
    const next = found[k + 1]
    return { ...block, s: starts[block.a]!, e: next ? starts[next.a]! : base + src.length, o: starts[block.a + 1]! }
  })
}

// ---- inline ----

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
function inline<T extends Node & ParentNode>(s: string, parent: T): T {
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
      const src = localFile(href, filesBase)
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
