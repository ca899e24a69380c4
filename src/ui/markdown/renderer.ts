import { copyText } from '../../core/format'
import { lazy } from './lazy'
import { context } from './dom'
import { parse, type Top } from './parse'
import { adoptCss, markdownCss } from './styles'
import { filesBase } from './url'

/**
 * The streaming markdown renderer behind `<Markdown>`.
 *
 * Incremental: the answer is a list of top-level blocks (parse.ts). Each update splits the text
 * after the last complete block into blocks and builds them; complete ones are kept, the rest
 * replaces the open tail. A block is complete once the block after it has started on a complete
 * line and its second line is complete too, or when it is a fence whose closing line has
 * arrived. That is final: where a top-level block ends is decided by the lines up to the next
 * block's first line and the one after it (a table is a header and its delimiter row; everything
 * else is decided line by line), and a line still arriving decides nothing (`#` may yet become
 * `#tag`, `-` a list item). So complete blocks are built once and their nodes never rebuilt, each
 * update costs the size of the open tail, not of the answer, and when `done` the open tail is
 * built as complete blocks: the result is exactly a one-shot render. Inside an unclosed code fence new text is appended to the code's text node
 * without parsing at all.
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
  /** Told how many characters each split into blocks ('lex') and each build ('parse') got (instrumentation for tests and benchmarks). */
  onWork?: (kind: 'lex' | 'parse', chars: number) => void
  /** Images under this URL prefix load inline; default the API's `/files/`. Others stay a link. */
  filesBase?: string
}

interface OpenFence {
  code: Text
  fence: string
  /** The content ends with a line break that is not shown yet (a block's last line break is not content). */
  pending: boolean
  /** The first characters of the content's last line so far (only they can make it a closing fence). */
  last: string
}

const noop = () => {}

export function createRenderer(container: HTMLElement, options: RendererOptions = {}): MarkdownRenderer {
  const doc = container.ownerDocument
  const work = options.onWork ?? noop
  const files = options.filesBase ?? filesBase()
  const root = container.appendChild(doc.createElement('div'))
  root.className = 'lx-md'
  let styled = adoptCss(container, 'markdown', markdownCss)

  /** The complete blocks' nodes, and where each ends (after the blank lines that follow it) in the answer. */
  let blocks: Element[] = []
  let ends: number[] = []
  /** Characters of the answer covered by `blocks`, and rendered so far (blocks and open tail). */
  let committed = 0
  let seen = 0
  /** The last ≤32 characters before `seen`, to notice a replaced answer. */
  let tip = ''
  let tail: Element[] = []
  let fence: OpenFence | null = null
  let lastText: string | null = null
  let lastDone = false
  let destroyed = false
  const chunks: Partial<Record<keyof typeof lazy, Promise<{ enhance(el: Element, lang: string): unknown }>>> = {}

  const copy = (event: Event) => {
    const button = (event.target as Element).closest?.('.lx-code-copy')
    if (!button || !root.contains(button)) return
    void copyText(button.closest('.lx-code')!.querySelector('code')!.textContent!).then((ok) => {
      if (!ok) return
      button.textContent = '已复制'
      setTimeout(() => {
        button.textContent = '复制'
      }, 2000)
    })
  }
  root.addEventListener('click', copy)

  /** Builds top-level blocks; maths is typeset and, in `complete` ones, code highlighted and diagrams drawn once their chunks load. */
  const build = (tops: Top[], complete?: boolean) => {
    work(
      'parse',
      tops.reduce((n, t) => n + t.e - t.s, 0)
    )
    context(doc, files)
    const nodes = tops.map((t) => t.r() as Element)
    for (const el of nodes.flatMap((n) => [n, ...n.querySelectorAll('.lx-math,.lx-code')])) {
      const lang = el.getAttribute('data-lang') ?? ''
      const kind = el.matches('.lx-math') ? 'katex' : complete && lang ? (lang === 'mermaid' ? 'mermaid' : 'highlight') : ''
      if (!kind) continue
      chunks[kind] ??= lazy[kind]()
      chunks[kind].then((m) => destroyed || m.enhance(el, lang), noop)
    }
    return nodes
  }

  const clearTail = () => {
    for (const n of tail) n.remove()
    tail = []
    fence = null
  }
  const mark = (text: string) => {
    seen = text.length
    tip = text.slice(-32)
  }

  /** Splits the answer after the last complete block; `done`: all of it is complete. */
  function stream(text: string, done?: boolean) {
    const src = text.slice(committed)
    work('lex', src.length)
    const tops = parse(src, committed)
    const cut = text.lastIndexOf('\n') + 1
    // A block is complete when the answer is done, when it is closed before the last line break,
    // or when the next block starts before that line break (or at the very end).
    let k = 0
    for (; k < tops.length; k++) {
      const t = tops[k]!
      const next = tops[k + 1]
      const complete = done || (t.c && t.e <= cut) || (next && (next.o < cut || next.o === text.length))
      if (!complete) break
      const [node] = build([t], true) as [Element]
      blocks.push(root.insertBefore(node, tail[0] ?? null))
      committed = t.e
      ends.push(committed)
    }
    mark(text)
    clearTail()
    const rest = tops.slice(k)
    tail = build(rest)
    root.append(...tail)
    // an open fence at the end: later text goes straight into its code
    const last = rest.at(-1)
    const code = last?.f && last.o <= text.length && tail.at(-1)!.querySelector('code')!.firstChild
    if (code) {
      const content = text.slice(last.o)
      fence = { code: code as Text, fence: last.f!, pending: content.endsWith('\n'), last: content.slice(content.lastIndexOf('\n') + 1).slice(0, 4) }
    }
  }

  return {
    update(text, done) {
      if (destroyed || (text === lastText && done === lastDone)) return
      if (text.length < seen || text.slice(seen - tip.length, seen) !== tip) {
        // a text that does not continue what is on screen (checked at its end, in O(1)): start over
        for (const b of blocks) b.remove()
        clearTail()
        blocks = []
        ends = []
        committed = seen = 0
      } else if (lastDone && !done) {
        // more text after `done`: the last block is open again
        clearTail()
        tail = blocks.splice(-1)
        ends.pop()
        committed = ends.at(-1) ?? 0
      }
      lastText = text
      lastDone = done
      if (!styled) styled = adoptCss(container, 'markdown', markdownCss)
      root.toggleAttribute('data-streaming', !done)
      const delta = text.slice(seen)
      const line = fence?.last + delta
      if (done) {
        clearTail()
        stream(text, done)
      } else if (fence && !/\r/.test(delta) && !new RegExp(`(^|\\n) {0,3}\\${fence.fence}`).test(line)) {
        // inside an open fence, without a line that could close it: append to its code, as a
        // full parse would show it (the content less its last line break)
        const add = (fence.pending ? '\n' : '') + delta
        fence.pending = add.endsWith('\n')
        fence.code.appendData(fence.pending ? add.slice(0, -1) : add)
        fence.last = line.slice(line.lastIndexOf('\n') + 1).slice(0, 4)
        mark(text)
      } else stream(text)
    },
    destroy() {
      destroyed = true
      root.removeEventListener('click', copy)
      root.remove()
      blocks = []
      tail = []
    }
  }
}
