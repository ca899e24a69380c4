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
// Written for size (it is most of the renderer chunk): short property names, no syntax tree.

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

// the document and files base blocks are built with (see context)
let D: Document
let F: string

/** Sets what `Top.r` builds with: the document, and the base under which images load inline. */
export function context(doc: Document, files: string): void {
  D = doc
  F = files
}

/**
 * What a line starts (these lines also end a paragraph): 1 indent, then 2 a fence and 3 its info
 * string, 4 a heading's #s, 5 a thematic break's character, 6 a quote's `>`, or 7 a list marker
 * and 8 the spaces after it.
 */
const LINE = /^( {0,3})(?:(`{3,}|~{3,})(.*)|(#{1,6})(?:[ \t]+|$)|([-*_])(?:[ \t]*\5){2,}[ \t]*$|(>) ?|([-*+]|\d{1,9}[.)])([ \t]+|$))/
const blank = (l?: string) => !l?.trim()

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string | 0, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = D.createElement(tag)
  if (cls) e.className = cls
  e.append(...kids)
  return e
}

/** A table row's cells: outer pipes dropped, split at pipes that are not escaped. */
const cells = (line = '') =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'))

/** Whether `head` and `delim` open a table (a delimiter row, as many cells as the header). */
const isTable = (head: string, delim = '') =>
  /\|/.test(head) && delim.includes('|') && cells(delim).every((c) => /^:?-+:?$/.test(c)) && cells(head).length === cells(delim).length

/**
 * Blocks of `ls` (lines without their newline). `d`: nesting depth (lists and quotes stop nesting
 * at 16). The result's `g` is set when a blank line separates two of its blocks (a list item
 * holding it makes its list loose). Display maths (`$$` or `\[` lines) is a paragraph: its
 * delimiters are found inline, across its lines.
 */
function blocks(ls: string[], d: number): Block[] & { g?: boolean } {
  const out: Block[] & { g?: boolean } = []
  const n = ls.length
  let i = 0
  let a = 0
  let gap = false
  let m: RegExpExecArray | null
  const add = (r: Block['r'], more?: Partial<Block>) => out.push({ a, r, ...more })
  /** The lines of a quote or list item from line i on: `inner` maps a line to its content there (undefined: not in it). */
  const take = (inner: (l: string) => string | undefined, first: string) => {
    const lines = [first]
    for (let x; ++i < n; lines.push(x)) {
      // a lazy continuation line: more of a paragraph, without the container's marker or indent
      x = inner(ls[i]!) ?? ([lines.at(-1)!, ls[i]!].every((y) => !blank(y) && !LINE.test(y)) ? ls[i] : undefined)
      if (x === undefined) break
    }
    return lines
  }

  while (i < n) {
    const l = ls[i]!
    if (blank(l)) {
      gap = !!out[0]
      i++
      continue
    }
    if (gap) out.g = true
    gap = false
    a = i
    m = LINE.exec(l)
    if (m?.[2] && !(m[2][0] === '`' && m[3]!.includes('`'))) {
      const [, indent, fence, info] = m as unknown as string[]
      const word = info!.trim().split(/\s/)[0]!
      const lang = /^[\w+#.-]{1,32}$/.test(word) ? word.toLowerCase() : ''
      const body: string[] = []
      let closed = false
      for (let x; ++i < n && !(closed = (x = ls[i]!.trim()).startsWith(fence!) && /^(`+|~+)$/.test(x) && ls[i]!.search(/\S/) < 4); )
        body.push(ls[i]!.slice(Math.min(indent!.length, ls[i]!.search(/\S|$/))))
      const code = body.join('\n')
      if (closed) i++
      add(() => codeBlock(lang, code), { c: closed, f: closed || indent || d ? '' : fence![0] })
    } else if (m?.[4]) {
      const text = l.slice(m[0].length).replace(/(^|[ \t])#+[ \t]*$/, '')
      const tag = `h${m[4].length}` as 'h1'
      i++
      add(() => inline(text.trim(), el(tag)))
    } else if (m?.[5]) {
      i++
      add(() => el('hr'))
    } else if (m?.[6] && d < 16) {
      const lines = take((x) => (LINE.exec(x)?.[6] ? x.replace(/^ *> ?/, '') : undefined), l.slice(m[0].length))
      add(() => build(el('blockquote'), blocks(lines, d + 1)))
    } else if (m?.[7] && d < 16) {
      const kind = m[7].slice(-1)
      const start = parseInt(m[7], 10)
      const items: string[][] = []
      let loose = false
      while (m?.[7]?.endsWith(kind)) {
        const space = m[8]!.length
        const w = m[1]!.length + m[7].length + (space && space < 5 ? space : 1)
        const lines = take((x) => (blank(x) ? '' : x.search(/\S/) >= w ? x.slice(w) : undefined), ls[i]!.slice(w))
        let blanks = 0
        while (lines[1] !== undefined && lines.at(-1) === '') lines.pop(), blanks++
        items.push(lines)
        m = i < n ? LINE.exec(ls[i]!) : null
        if (m?.[7]?.endsWith(kind)) loose ||= blanks > 0
        else i -= blanks
      }
      add(() => list(items, d, start, loose))
    } else if (/^ {0,3}<(?:!--|\/?(?!br\b)[a-z][\w-]*(?:[\s/>]|$))/i.test(l)) {
      // raw HTML, shown as it is, up to a blank line
      while (++i < n && !blank(ls[i]));
      const lines = ls.slice(a, i)
      add(() => el('p', 'lx-raw', lines.join('\n').trimEnd()))
    } else if (isTable(l, ls[i + 1])) {
      const head = cells(l)
      const align = cells(ls[i + 1]).map((c) => ['', 'lx-left', 'lx-right', 'lx-center'][(c[0] === ':' ? 1 : 0) + (c.at(-1) === ':' ? 2 : 0)]!)
      const rows: string[][] = []
      for (i += 2; i < n && !blank(ls[i]) && !LINE.test(ls[i]!); i++) rows.push(cells(ls[i]))
      add(() => table(head, align, rows))
    } else {
      const para = [l]
      while (++i < n && !blank(ls[i]) && !LINE.test(ls[i]!) && !isTable(ls[i]!, ls[i + 1])) para.push(ls[i]!)
      const text = para.map((x) => x.trim()).join('\n')
      add((tight) => inline(text, tight ? D.createDocumentFragment() : el('p')))
    }
  }
  return out
}

/** Appends the blocks' DOM to `parent`. */
function build<T extends Node>(parent: T, list: Block[], tight?: boolean): T {
  for (const b of list) parent.appendChild(b.r(tight))
  return parent
}

function list(items: string[][], d: number, start: number, loose: boolean): HTMLElement {
  const out = el(start >= 0 ? 'ol' : 'ul')
  if (start !== 1 && start >= 0) (out as HTMLOListElement).start = start
  const parsed = items.map(([first, ...rest]) => {
    const task = /^\[([ xX])\][ \t]+(?=\S)/.exec(first!)
    return [task, blocks([first!.slice(task?.[0].length), ...rest], d + 1)] as const
  })
  const tight = !loose && !parsed.some((p) => p[1].g)
  for (const [task, content] of parsed) {
    const li = build(el('li'), content, tight)
    const first = li.firstChild
    if (task) (first?.nodeName === 'P' ? (first as Element) : li).prepend(Object.assign(el('input'), { type: 'checkbox', disabled: true, defaultChecked: task[1] !== ' ' }))
    out.append(li)
  }
  return out
}

function table(head: string[], align: string[], rows: string[][]): HTMLElement {
  const row = (cellsOf: string[], tag: 'th' | 'td') => {
    const tr = el('tr')
    head.forEach((_, k) => tr.append(inline(cellsOf[k] ?? '', el(tag, align[k]))))
    return tr
  }
  const t = el('table', 0, el('thead', 0, row(head, 'th')))
  if (rows[0]) {
    const body = t.appendChild(el('tbody'))
    for (const r of rows) body.append(row(r, 'td'))
  }
  return el('div', 'lx-table', t)
}

function codeBlock(lang: string, code: string): HTMLElement {
  const box = el(
    'div',
    'lx-code',
    el('div', 'lx-code-head', el('span', 'lx-code-lang', lang || 'text'), Object.assign(el('button', 'lx-code-copy', '复制'), { type: 'button' })),
    el('pre', 0, el('code', lang && `language-${lang}`, code)),
  )
  box.dataset.lang = lang
  return box
}

/** Splits `src` into top-level blocks, with offsets from `base`. */
export function parse(src: string, base = 0): Top[] {
  const ls = src.split('\n')
  if (!ls.at(-1)) ls.pop()
  const at = [base]
  ls.forEach((l, k) => {
    at.push(at[k]! + l.length + 1)
    ls[k] = l.replace(/\r$/, '')
  })
  return blocks(ls, 0).map((b, k, all) => ({ ...b, s: at[b.a]!, e: all[k + 1] ? at[all[k + 1]!.a]! : base + src.length, o: at[b.a + 1]! }))
}

// ---- inline ----

const SPECIAL = /[\\`*_~[\]!<$\n]|https?:\/\/|www\./g
// `(?=(\s*))\1` takes the spaces at once (an atomic group): a `\s*` the engine could hand back to
// the one before `)` would make a long run of spaces quadratic
const DEST = /\((?=(\s*))\1(?:(<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))+)(?:\s+("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'))?)?\s*\)/y
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', nbsp: '\u00a0' }

/** Backslash escapes and character references resolved. */
const decode = (s: string) =>
  s.replace(/\\([!-/:-@[-`{-~])|&(?:#(\d{1,7}|x[\da-f]{1,6})|([a-z]{2,5}));/gi, (all, c?: string, num?: string, name?: string) =>
    c ?? (name ? (NAMED[name.toLowerCase()] ?? all) : String.fromCodePoint(+`0${num}` % 0x110000 || 0xfffd)),
  )

function link(href: string, ...kids: (Node | string)[]): HTMLAnchorElement {
  const a = el('a', 0, ...kids)
  const url = safeLinkUrl(href)
  if (url) Object.assign(a, { href: url, target: '_blank', rel: 'noopener noreferrer nofollow' })
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
  c: number
  s: string
  o: Element[]
}
type Token = string | Node | Run

/** Appends tokens to `parent`: text, nodes, and the elements runs open and close. */
function emit<T extends Node & ParentNode>(parent: T, tokens: Token[]): T {
  const open: (Node & ParentNode)[] = [parent]
  // adjacent text goes into one text node
  let text = ''
  const put = (node?: Node) => {
    if (text) open.at(-1)!.append(text)
    if (node) open.at(-1)!.append(node)
    text = ''
  }
  const close = () => {
    put()
    const e = open.pop()!
    if (e !== open.at(-1)) put(e)
  }
  for (const t of tokens) {
    if (typeof t === 'string') text += t
    else if (!('o' in t)) put(t)
    else {
      for (let k = t.c; k--; ) close()
      text += t.s
      for (const e of t.o) put(), open.push(open[16] ? open.at(-1)! : e)
    }
  }
  while (open[1]) close()
  put()
  return parent
}

interface Delim {
  r: Run
  /** Characters left, length of the run, can open, can close, serial number. */
  k: number
  n: number
  o: boolean
  x: boolean
  id: number
}

interface Bracket {
  r: Run
  img: boolean
  /** Its token, the last delimiter serial number when it opened, links formed before it. */
  i: number
  id: number
  ep: number
}

/** Parses inline markdown `s` into `parent` (returned). */
function inline<T extends Node & ParentNode>(s: string, parent: T): T {
  const tokens: Token[] = []
  const stacks: Record<string, Delim[]> = { '*': [], _: [], '~': [] }
  const brackets: Bracket[] = []
  /** Maths openers and code span lengths whose closer was searched for in vain. */
  const failed: Record<string, boolean> = {}
  let serial = 0
  let links = 0
  let i = 0
  let m: RegExpExecArray | null
  const add = (t: Token) => tokens.push(t)
  const run = (text: string): Run => {
    const r = { c: 0, s: text, o: [] }
    add(r)
    return r
  }
  /** Drops every opener after serial number `id` (they can no longer match anything). */
  const drop = (id: number) => {
    for (const c in stacks) while ((stacks[c]!.at(-1)?.id ?? 0) > id) stacks[c]!.pop()
  }
  /** Sticky search at i; a search that failed (`key`) is not repeated. */
  const at = (re: RegExp, key?: string) => {
    re.lastIndex = i
    m = key && failed[key] ? null : re.exec(s)
    if (key) failed[key] = !m
    return m
  }

  while (i < s.length) {
    SPECIAL.lastIndex = i
    const j = SPECIAL.exec(s)?.index ?? s.length
    if (j > i) add(decode(s.slice(i, j)))
    if (j >= s.length) break
    const c = s[(i = j)]!
    const prev = s[i - 1] ?? ' '
    // maths: a `$…$` closer is searched only up to the next `$`, so it need not be remembered
    if ((c === '$' || (c === '\\' && '[('.includes(s[i + 1]!))) && at(inlineMathAt, s[i + 1] === '$' || c === '\\' ? s.slice(i, i + 2) : '')) {
      const display = m![1] || m![3]
      add(el('span', display ? 'lx-math lx-math-display' : 'lx-math', (m![2] ?? m![4] ?? m![6] ?? m![8])!.trim()))
      // a display block is a line of its own: the line break after it would be an empty line
      i = inlineMathAt.lastIndex + +(!!display && s[inlineMathAt.lastIndex] === '\n')
    } else if (c === '\\') {
      const next = s[i + 1] ?? ''
      if (/[!-/:-@[-`{-~]/.test(next)) add(next), i++
      else if (next !== '\n') add(c)
      i++
    } else if (c === '`') {
      // a code span: up to the next run of as many backticks
      const ticks = at(/`+/y)![0]
      i += ticks.length
      if (at(new RegExp(`[^]*?(?<!\`)${ticks}(?!\`)`, 'y'), ticks)) {
        let code = m![0].slice(0, -ticks.length).replace(/\n/g, ' ')
        if (/^ [^]*[^ ]/.test(code) && code.endsWith(' ')) code = code.slice(1, -1)
        add(el('code', 0, code))
        i += m![0].length
      } else add(ticks)
    } else if (c === '*' || c === '_' || c === '~') {
      let k = 1
      while (s[i + k] === c) k++
      const r = run(s.slice(i, (i += k)))
      const next = s[i] ?? ' '
      if (c === '~' && k !== 2) continue
      // a run opens unless a space follows, closes unless one precedes (CommonMark's punctuation
      // rules would keep `**“引号”**后` plain: Chinese has no spaces around emphasis); `_` not
      // inside a word (snake_case)
      const word = c === '_' ? /[\p{L}\p{N}]/u : /$^/
      const o = !/\s/.test(next) && !word.test(prev)
      const dl: Delim = { r, k, n: k, o, x: !/\s/.test(prev) && !word.test(next), id: ++serial }
      const st = stacks[c]!
      // the innermost opener of the same character, inside the innermost open bracket; not when
      // the runs could pair only to a multiple of 3 (CommonMark's rule): then this run may open
      for (let op; dl.x && dl.k && (op = st.at(-1)) && op.id > (brackets.at(-1)?.id ?? 0) && !((op.x || o) && (op.n + k) % 3 === 0 && (op.n % 3 || k % 3)); ) {
        const use = dl.k > 1 && op.k > 1 ? 2 : 1
        // the characters next to the text pair up: the opener's last, the closer's first
        op.r.s = op.r.s.slice(use)
        op.r.o.unshift(el(c === '~' ? 'del' : use > 1 ? 'strong' : 'em'))
        r.s = r.s.slice(use)
        r.c++
        op.k -= use
        dl.k -= use
        drop(op.id)
        if (!op.k) st.pop()
      }
      if (o && dl.k) st.push(dl)
    } else if (c === '[' || (c === '!' && s[i + 1] === '[')) {
      const img = c === '!'
      brackets.push({ r: run(img ? '![' : '['), img, i: tokens.length - 1, id: serial, ep: links })
      i += img ? 2 : 1
    } else if (c === ']') {
      // a link or image: `](destination "title")` right after the text
      const b = brackets.pop()
      i++
      if (!b || !(b.img || b.ep === links) || !at(DEST)) {
        add(']')
        continue
      }
      i += m![0].length
      drop(b.id)
      // (a title, m[3], is not shown)
      const href = decode(m![2]?.replace(/^<([^]*)>$/, '$1') ?? '')
      if (b.img) {
        // an image: inline from Lingxi's own files, else a link that opens it on click, else its label
        const alt = emit(el('span'), tokens.splice(b.i + 1)).textContent!
        const src = localFile(href, F)
        const label = `[图片${alt && `：${alt}`}]`
        tokens[b.i] = src
          ? Object.assign(el('img'), { alt, src, loading: 'lazy' })
          : Object.assign(/^http/.test(safeLinkUrl(href)!) ? link(href, label) : el('span', 0, label), { className: 'lx-img' })
      } else {
        // no link inside a link: inner ones (a bare URL, an image link) become text
        for (let k = b.i; ++k < tokens.length; ) {
          const a = tokens[k] as Element
          if (a.localName === 'a') tokens[k] = el('span', a.className, ...a.childNodes)
        }
        b.r.s = ''
        b.r.o.push(link(href))
        run('').c = 1
        links++
      }
    } else if (c === '<' && at(/<([a-z][\w+.-]{1,31}:[^\s<>]*)>|<br\s*\/?>/iy)) {
      add(m![1] ? link(m![1], m![1]) : el('br'))
      i += m![0].length
    } else if (c === '\n') {
      add(el('br'))
      i++
    } else if (!/[a-z\d]/i.test(prev) && at(/(?:https?:\/\/|www\.)[^\s<>[\]\u3000-\u303f\uff00-\uffef]+/y)) {
      // a bare URL (not inside a word), less the punctuation after it
      let url = m![0]
      while ('?!.,:;*_~\'")'.includes(url.at(-1)!) && !(url.endsWith(')') && url.includes('('))) url = url.slice(0, -1)
      const href = safeLinkUrl(url[0] === 'w' ? `http://${url}` : url)
      add(href ? link(href, url) : url)
      i += url.length
    } else add(decode(s[i++]!))
  }
  return emit(parent, tokens)
}
