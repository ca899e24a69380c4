import { el, fragment } from './dom'
import { inline } from './inline'

// Markdown (the GFM subset models write) → DOM, safe by construction: every element is made with
// createElement from a fixed set of tags, all model text goes in as text nodes, and the only
// attributes ever set are href/target/rel on links (after checking the URL), class names of our
// own, data-lang, start on <ol>, src/alt/loading on images from Lingxi's own files, and
// type/checked/disabled on task checkboxes. Raw HTML is shown as text (an inline `<br>` is a line
// break, as models put it in table cells). Images load only from Lingxi's own /files/; any other
// image is a `[图片：alt]` link, fetched on click only. See README.md for what is covered.
//
// Parsing is two-level: `parse` splits the source into top-level blocks (their extent, and a
// function that builds their DOM); a block's content (inline markdown: inline.ts; list items, quotes)
// is parsed only when it is built. Every step is linear in its input: regexes are anchored or cannot
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
      add((tight) => inline(text, tight ? fragment() : el('p')))
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
  return scrollable(el('div', 'lx-table', t), '表格')
}

/** A box that may scroll sideways: reachable by keyboard (arrow keys scroll it) and named (WCAG 2.1.1). */
function scrollable(box: HTMLElement, name: string): HTMLElement {
  box.tabIndex = 0
  box.setAttribute('role', 'region')
  box.setAttribute('aria-label', name)
  return box
}

/** A code block: its language and a copy button above the code (highlighted later, see renderer.ts). */
function codeBlock(lang: string, code: string): HTMLElement {
  const copy = el('button', 'lx-code-copy', '复制')
  copy.type = 'button'
  const head = el('div', 'lx-code-head', el('span', 'lx-code-lang', lang || 'text'), copy)
  const box = el('div', 'lx-code', head, scrollable(el('pre', '', el('code', lang && `language-${lang}`, code)), `代码 ${lang || 'text'}`))
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
