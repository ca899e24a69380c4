import type { Links, Token, Tokens } from 'marked'
import { copyText } from '../../core/format'
import { lazy } from './lazy'
import { holdsOpenMath, isClosedFence, lex, render } from './parse'
import { filesBase as defaultFilesBase, isLocalFile, safeLinkUrl, sanitize } from './sanitize'
import { adoptCss, markdownCss } from './styles'

/**
 * The streaming markdown renderer behind `<Markdown>`.
 *
 * Incremental: the answer is a list of top-level blocks (marked's lexer). A block is complete
 * once another block follows it in a lex of the complete lines (a line still arriving decides
 * nothing: `#` may yet become `#tag`, `-` a list item); the last block stays open, unless it is
 * a fence whose closing line has arrived. Complete blocks are rendered once and their nodes never
 * rebuilt; each update lexes and renders only the text after the last complete block. Inside an
 * unclosed code fence new text is appended to the code's text node without lexing at all. When
 * `done`, the whole answer is lexed once and compared with the blocks on screen, so the result is
 * exactly a one-shot render (a reference link defined after its use, or any block the streaming
 * guess got wrong, is re-rendered then).
 *
 * Finished code blocks are highlighted, maths typeset and mermaid drawn after the fact, in place,
 * by lazily imported chunks; nothing of them loads for an answer that does not need it.
 */
export interface MarkdownRenderer {
  /** Shows `text` (the whole answer so far; normally the previous text plus a delta). */
  update(text: string, done: boolean): void
  /** Removes the rendered answer and stops pending work. */
  destroy(): void
}

export interface RendererOptions {
  /** Told how many characters each lexer and parser run got (instrumentation for tests and benchmarks). */
  onWork?: (kind: 'lex' | 'parse', chars: number) => void
  /** Images under this URL prefix load inline; default the API's `/files/`. Others stay a link. */
  filesBase?: string
}

interface Group {
  tokens: Token[]
  /** Source as lexed (`\r\n` → `\n`). */
  raw: string
  /** Length of the blank lines before the block (only the first group has any). */
  lead: number
  /** Source of the block itself, without blank lines around it ('' for blank lines only). */
  main: string
}

interface Block {
  /** Source of the block (Group.main) and where it starts and ends in the answer. */
  main: string
  start: number
  end: number
  nodes: ChildNode[]
  /** Reference definitions known when it was rendered. */
  links: number
}

interface OpenFence {
  code: Text
  fence: string
  /** The content ends with a newline that is not shown yet (marked drops a lone final newline). */
  pending: boolean
  /** The content's last line so far (to spot a closing fence) and last character. */
  lastLine: string
  lastChar: string
}

const norm = (s: string) => (s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s)

/** Length in `src` of its first `n` characters after `\r\n` → `\n`. */
function sourceLength(src: string, n: number): number {
  if (!src.includes('\r')) return n
  let i = 0
  for (let k = 0; k < n && i < src.length; k++) i += src[i] === '\r' && src[i + 1] === '\n' ? 2 : 1
  return i
}

/** Top-level tokens → blocks: each non-space token with the blank lines after it. */
function groupTokens(tokens: Token[]): Group[] {
  const groups: Group[] = []
  let lead: Token[] = []
  for (const token of tokens) {
    const last = groups.at(-1)
    if (token.type === 'space' && last) {
      last.tokens.push(token)
      last.raw += token.raw
    } else if (token.type === 'space') {
      lead.push(token)
    } else {
      const blank = lead.map((t) => t.raw).join('')
      groups.push({ tokens: [...lead, token], raw: blank + token.raw, lead: blank.length, main: token.raw })
      lead = []
    }
  }
  if (lead.length) groups.push({ tokens: lead, raw: lead.map((t) => t.raw).join(''), lead: 0, main: '' })
  return groups
}

/** A fenced code block whose closing fence line is complete. */
function isFinishedFence(group: Group): boolean {
  const token = group.tokens.find((t) => t.type !== 'space')
  return token?.type === 'code' && /^ {0,3}(`{3,}|~{3,})/.test(token.raw) && isClosedFence(token as Tokens.Code) && group.raw.endsWith('\n')
}

export function createRenderer(container: HTMLElement, options: RendererOptions = {}): MarkdownRenderer {
  const doc = container.ownerDocument
  const work = options.onWork ?? (() => {})
  const files = options.filesBase ?? defaultFilesBase()
  const root = doc.createElement('div')
  root.className = 'lx-md'
  container.append(root)
  let styled = adoptCss(container, 'markdown', markdownCss)

  let blocks: Block[] = []
  let links: Links = Object.create(null)
  let linkCount = 0
  /** Characters of the answer covered by `blocks`. */
  let committed = 0
  /** Characters of the answer rendered so far (blocks and open tail). */
  let seen = 0
  /** The last ≤32 characters before `committed` and before `seen`, to notice a replaced answer. */
  let guard = ''
  let tip = ''
  /** End of the last complete line when blocks were last decided. */
  let decided = 0
  let tail: ChildNode[] = []
  let tailHtml = ''
  let fence: OpenFence | null = null
  let lastText: string | null = null
  let lastDone = false
  let destroyed = false
  let katex: ReturnType<typeof lazy.katex> | undefined
  let highlight: ReturnType<typeof lazy.highlight> | undefined
  let mermaid: ReturnType<typeof lazy.mermaid> | undefined

  function handleClick(event: Event) {
    const button = (event.target as Element | null)?.closest?.('.lx-code-copy')
    if (!button || !root.contains(button)) return
    const code = button.closest('.lx-code')?.querySelector('pre > code')
    void copyText(code?.textContent ?? '').then((ok) => {
      if (!ok) return
      button.textContent = '已复制'
      setTimeout(() => (button.textContent = '复制'), 2000)
    })
  }
  root.addEventListener('click', handleClick)

  function renderTokens(tokens: Token[]): { nodes: ChildNode[]; html: string } {
    work(
      'parse',
      tokens.reduce((n, t) => n + t.raw.length, 0),
    )
    const html = render(tokens)
    return { nodes: toNodes(html), html }
  }

  function toNodes(html: string): ChildNode[] {
    const fragment = sanitize(html, doc)
    for (const el of fragment.querySelectorAll('span.lx-img[data-src]')) placeImage(el)
    return [...fragment.childNodes].filter((n) => n.nodeType !== 3 || n.textContent!.trim() !== '')
  }

  /**
   * An image: Lingxi's own files (under the API's /files/) load inline; any other http(s) image
   * becomes a link that opens it in a new tab on click; anything else stays the text placeholder.
   */
  function placeImage(el: Element) {
    const src = el.getAttribute('data-src') ?? ''
    el.removeAttribute('data-src')
    let resolved: string | null = null
    try {
      resolved = new URL(src.trim(), files).href
    } catch {
      resolved = null
    }
    if (resolved && isLocalFile(resolved, files)) {
      const img = doc.createElement('img')
      img.alt = el.getAttribute('data-img') ?? ''
      img.loading = 'lazy'
      img.decoding = 'async'
      img.src = resolved
      el.replaceWith(img)
      return
    }
    const url = safeLinkUrl(src)
    if (!url || !/^https?:/.test(url)) return
    const a = doc.createElement('a')
    a.className = 'lx-img'
    a.href = url
    a.target = '_blank'
    a.rel = 'noopener noreferrer nofollow'
    if (el.getAttribute('title')) a.title = el.getAttribute('title')!
    a.textContent = el.textContent
    el.replaceWith(a)
  }

  /** Highlighting, maths and diagrams, filled in place once their chunks have loaded. */
  function enhance(nodes: ChildNode[], complete: boolean) {
    const math: Element[] = []
    const code: Element[] = []
    for (const node of nodes) {
      if (node.nodeType !== 1) continue
      const el = node as Element
      if (el.matches('.lx-math')) math.push(el)
      math.push(...el.querySelectorAll('.lx-math'))
      if (!complete) continue
      if (el.matches('.lx-code')) code.push(el)
      code.push(...el.querySelectorAll('.lx-code'))
    }
    if (math.length) {
      katex ??= lazy.katex()
      void katex.then((m) => !destroyed && m.renderMath(math.filter((el) => el.isConnected)), () => {})
    }
    for (const box of code) {
      const lang = box.getAttribute('data-lang') ?? ''
      const el = box.querySelector<HTMLElement>('pre > code')
      if (!el || !lang) continue
      if (lang === 'mermaid') drawDiagram(box, el.textContent ?? '')
      else {
        highlight ??= lazy.highlight()
        void highlight.then((m) => (destroyed ? undefined : m.highlightCode(el, lang)), () => {})
      }
    }
  }

  function drawDiagram(box: Element, source: string) {
    const note = (text: string) => {
      if (destroyed || box.querySelector('.lx-code-note')) return
      const p = doc.createElement('p')
      p.className = 'lx-code-note'
      p.textContent = text
      box.append(p)
    }
    mermaid ??= lazy.mermaid()
    void mermaid
      .then((m) => (destroyed ? null : m.renderMermaid(source, doc)))
      .then((svg) => {
        if (destroyed) return
        if (!svg) return note('图表语法有误，已显示源码')
        const holder = doc.createElement('div')
        holder.className = 'lx-mermaid'
        holder.setAttribute('role', 'img')
        holder.setAttribute('aria-label', '图表')
        holder.append(svg)
        const pre = box.querySelector('pre')
        if (pre) pre.hidden = true
        box.append(holder)
      }, () => note('图表无法显示，已显示源码'))
  }

  function insert(nodes: ChildNode[], before: ChildNode | null) {
    for (const n of nodes) root.insertBefore(n, before)
  }

  function commit(group: Group, start: number, end: number) {
    const { nodes } = renderTokens(group.tokens)
    insert(nodes, tail[0] ?? null)
    blocks.push({ main: group.main, start, end, nodes, links: linkCount })
    enhance(nodes, true)
  }

  function dropTail() {
    for (const n of tail) n.remove()
    tail = []
    tailHtml = ''
    fence = null
  }

  function reset() {
    for (const b of blocks) for (const n of b.nodes) n.remove()
    dropTail()
    blocks = []
    links = Object.create(null)
    linkCount = 0
    committed = 0
    seen = 0
    decided = 0
    guard = ''
    tip = ''
  }

  /** After `done`, more text: the last block is open again. */
  function reopen(text: string) {
    const last = blocks.pop()
    if (!last) return
    dropTail()
    tail = last.nodes
    committed = blocks.at(-1)?.end ?? 0
    decided = committed
    guard = text.slice(Math.max(0, committed - 32), committed)
  }

  /** Whether `text` continues what is on screen (checked at both ends only, so it costs O(1)). */
  function continues(text: string): boolean {
    return (
      text.length >= seen &&
      text.slice(seen - tip.length, seen) === tip &&
      text.slice(committed - guard.length, committed) === guard
    )
  }

  function saw(text: string, upTo: number) {
    seen = upTo
    tip = text.slice(Math.max(committed, seen - 32), seen)
  }

  /** Appends to the open code fence's text node; false when the new text needs a real lex. */
  function appendToFence(text: string): boolean {
    if (!fence) return false
    const delta = text.slice(seen)
    if (delta.includes('\r')) return false
    const lines = (fence.lastLine + delta).split('\n')
    const closing = new RegExp(`^ {0,3}${fence.fence === '`' ? '`' : '~'}`)
    if (lines.some((l) => closing.test(l))) return false
    // marked shows the content as it is, less a final newline that follows another character
    let add = (fence.pending ? '\n' : '') + delta
    const before = delta.length > 1 ? delta[delta.length - 2]! : fence.lastChar
    fence.pending = delta.endsWith('\n') && before !== '' && before !== '\n'
    if (fence.pending) add = add.slice(0, -1)
    fence.code.appendData(add)
    fence.lastLine = lines.at(-1) ?? ''
    fence.lastChar = delta.at(-1) ?? fence.lastChar
    saw(text, text.length)
    return true
  }

  function openFenceOf(group: Group | undefined, nodes: ChildNode[]): OpenFence | null {
    const token = group?.tokens.length === 1 ? group.tokens[0] : undefined
    if (token?.type !== 'code') return null
    const code = token as Tokens.Code
    const m = /^(`{3,}|~{3,})[^\n]*\n/.exec(code.raw)
    if (!m || isClosedFence(code)) return null
    const last = nodes.at(-1)
    const el = last?.nodeType === 1 ? (last as Element).querySelector('pre > code') : null
    if (!el) return null
    if (!el.firstChild) el.append(doc.createTextNode(''))
    if (el.childNodes.length !== 1 || el.firstChild!.nodeType !== 3) return null
    const content = code.raw.slice(m[0].length)
    return {
      code: el.firstChild as Text,
      fence: m[1]![0]!,
      pending: /[^\n]\n$/.test(content),
      lastLine: content.slice(content.lastIndexOf('\n') + 1),
      lastChar: content.at(-1) ?? '',
    }
  }

  /** Lexes the answer from `committed` on, as blocks. */
  function lexFrom(text: string, end = text.length): { src: string; source: string; groups: Group[] } {
    const src = text.slice(committed, end)
    const source = norm(src)
    work('lex', source.length)
    const groups = groupTokens(lex(source, links, true))
    linkCount = Object.keys(links).length
    return { src, source, groups }
  }

  /**
   * Commits every block but the last of a lex of complete lines: block structure is decided line
   * by line, so a line still arriving (`-` of `- item`, `#` of `#tag`) never decides anything.
   * Returns the number of groups committed.
   */
  function commitComplete(text: string, { src, source, groups }: ReturnType<typeof lexFrom>): number {
    let offset = 0
    let count = 0
    for (let i = 0; i < groups.length; i++) {
      const group = groups[i]!
      // the last block stays open, unless it is a fence already closed: nothing can extend it
      const last = i === groups.length - 1
      if (last && !isFinishedFence(group)) break
      if (!source.startsWith(group.raw, offset) || holdsOpenMath(group.tokens)) break
      const start = committed + sourceLength(src, offset + group.lead)
      offset += group.raw.length
      commit(group, start, committed + sourceLength(src, offset))
      count++
    }
    const end = blocks.at(-1)?.end
    if (count && end !== undefined) {
      committed = end
      guard = text.slice(Math.max(0, committed - 32), committed)
    }
    return count
  }

  function stream(text: string) {
    const before = committed
    const cut = text.lastIndexOf('\n') + 1
    let rest: Group[] | null = null
    if (cut > decided && cut > committed) {
      // a line was completed since the last update: blocks may have ended
      decided = cut
      const complete = lexFrom(text, cut)
      const count = commitComplete(text, complete)
      if (cut === text.length) rest = complete.groups.slice(count)
    }
    rest ??= lexFrom(text).groups
    saw(text, text.length)

    const { nodes, html } = renderTokens(rest.flatMap((g) => g.tokens))
    if (html === tailHtml && tail.length && committed === before) {
      // same output: keep the nodes, but the fence may have closed (```) without showing it
      fence = openFenceOf(rest.at(-1), tail)
      return
    }
    dropTail()
    insert(nodes, null)
    tail = nodes
    tailHtml = html
    fence = openFenceOf(rest.at(-1), nodes)
    enhance(nodes, false)
  }

  function finish(text: string) {
    const source = norm(text)
    work('lex', source.length)
    const all = lex(source, Object.create(null))
    const total = Object.keys(all.links).length
    links = all.links
    linkCount = total
    const groups = groupTokens(all)
    dropTail()
    let i = 0
    let offset = 0
    for (; i < groups.length && i < blocks.length; i++) {
      const group = groups[i]!
      const block = blocks[i]!
      // (marked folds a single newline after a block into it, so trailing blank lines may differ)
      if (block.main.trimEnd() !== group.main.trimEnd() || block.start !== sourceLength(text, offset + group.lead)) break
      offset += group.raw.length
      if (total > block.links && group.raw.includes('[')) {
        const { nodes } = renderTokens(group.tokens)
        insert(nodes, block.nodes[0] ?? blocks.slice(i + 1).find((b) => b.nodes.length)?.nodes[0] ?? null)
        for (const n of block.nodes) n.remove()
        blocks[i] = { ...block, nodes, links: total }
        enhance(nodes, true)
      }
    }
    for (const b of blocks.slice(i)) for (const n of b.nodes) n.remove()
    blocks = blocks.slice(0, i)
    for (; i < groups.length; i++) {
      const start = sourceLength(text, offset + groups[i]!.lead)
      offset += groups[i]!.raw.length
      commit(groups[i]!, start, sourceLength(text, offset))
    }
    committed = text.length
    guard = text.slice(Math.max(0, committed - 32))
    saw(text, text.length)
  }

  return {
    update(text, done) {
      if (destroyed || (text === lastText && done === lastDone)) return
      if (!continues(text)) reset()
      else if (lastDone && !done && lastText !== null) reopen(text)
      lastText = text
      lastDone = done
      if (!styled) styled = adoptCss(container, 'markdown', markdownCss)
      if (done) root.removeAttribute('data-streaming')
      else root.setAttribute('data-streaming', '')
      if (done) finish(text)
      else if (!appendToFence(text)) stream(text)
    },
    destroy() {
      destroyed = true
      root.removeEventListener('click', handleClick)
      root.remove()
      blocks = []
      tail = []
    },
  }
}
