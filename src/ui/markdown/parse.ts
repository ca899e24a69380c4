import { Marked, Renderer, type Links, type Token, type Tokens, type TokenizerAndRendererExtension } from 'marked'
import { blockMath, inlineMath, maskMath, mathStart } from './math-syntax'

// Markdown → HTML strings, with Lingxi's policies built into the renderer (everything it makes
// still goes through DOMPurify, see sanitize.ts):
// - raw HTML is shown as text, never parsed (only a bare `<br>` becomes a line break, as models
//   put it in table cells);
// - links keep their destination, which the sanitiser then checks on the parsed DOM (http, https
//   and mailto only) and opens in a new tab;
// - images become a `[图片：alt]` placeholder: nothing is fetched until the user clicks it;
// - code blocks get a header (language, copy button); maths becomes a placeholder holding its
//   TeX source, which KaTeX fills in later.

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML. With `keepEntities`, an existing character reference stays one. */
export function escapeHtml(text: string, keepEntities = false): string {
  const re = keepEntities ? /[<>"']|&(?!#?\w+;)/g : /[&<>"']/g
  return text.replace(re, (c) => entities[c] ?? c)
}

/** The first word of a fence's info string, as a safe language name ('' if none). */
export function fenceLanguage(lang: string | undefined): string {
  const word = (lang ?? '').trim().split(/\s/, 1)[0] ?? ''
  return /^[\w+#.-]{1,32}$/.test(word) ? word.toLowerCase() : ''
}

/** Whether a code token is a fenced block whose closing fence has arrived. */
export function isClosedFence(token: Tokens.Code): boolean {
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(token.raw)
  if (!open) return true // indented code ends where its lines end
  const nl = token.raw.indexOf('\n')
  if (nl < 0) return false
  const fence = open[1]!
  const close = new RegExp(`(?:^|\\n) {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*\\n?$`)
  return close.test(token.raw.slice(nl + 1))
}

let inLink = 0
/** The source being lexed while the answer is still arriving, else null. */
let streaming: string | null = null
const openMathLine = /^ {0,3}(?:\$\$|\\\[)[ \t]*\n/

const renderer = {
  html({ text, block }: Tokens.HTML | Tokens.Tag) {
    if (/^<br\s*\/?>\s*$/i.test(text)) return '<br>'
    return block ? `<p class="lx-raw">${escapeHtml(text.replace(/\n+$/, ''))}</p>\n` : escapeHtml(text)
  },
  code({ text, lang }: Tokens.Code) {
    const name = fenceLanguage(lang)
    const label = escapeHtml(name || 'text')
    const cls = name ? ` class="language-${escapeHtml(name)}"` : ''
    return (
      `<div class="lx-code" data-lang="${escapeHtml(name)}"><div class="lx-code-head"><span class="lx-code-lang">${label}</span>` +
      `<button type="button" class="lx-code-copy">复制</button></div>` +
      `<pre><code${cls}>${escapeHtml(text)}</code></pre></div>\n`
    )
  },
  link(this: Renderer, token: Tokens.Link) {
    inLink++
    try {
      const inner = token.autolink ? escapeHtml(token.text) : this.parser.parseInline(token.tokens)
      const href = escapeHtml(token.href, !token.autolink)
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : ''
      return `<a href="${href}"${title}>${inner}</a>`
    } finally {
      inLink--
    }
  },
  image({ href, title, text }: Tokens.Image) {
    const label = `[图片${text ? `：${escapeHtml(text)}` : ''}]`
    if (inLink) return `<span class="lx-img">${label}</span>`
    const t = title ? ` title="${escapeHtml(title)}"` : ''
    // the renderer turns it into a link (or, for Lingxi's own files, an <img>) after sanitising
    return `<span class="lx-img" data-img="${escapeHtml(text)}" data-src="${escapeHtml(href, true)}"${t}>${label}</span>`
  },
  table(this: Renderer, token: Tokens.Table) {
    return `<div class="lx-table">${Renderer.prototype.table.call(this, token)}</div>\n`
  },
}

interface MathToken extends Tokens.Generic {
  text: string
  display: boolean
}

const math: TokenizerAndRendererExtension[] = [
  {
    name: 'blockMath',
    level: 'block',
    tokenizer(src) {
      const m = blockMath.exec(src)
      if (m) return { type: 'blockMath', raw: m[0], text: (m[1] ?? m[2] ?? '').trim(), display: true }
      // While streaming, a `$$` or `\[` line not closed yet (and no blank line after it, which
      // would end it) holds everything after it, as a fence does, so its lines are not mistaken
      // for headings or lists and rendered as finished blocks in the meantime.
      // Only at the end of the whole answer so far (not in a list item or quote before it).
      if (streaming !== null && openMathLine.test(src) && !/\n[ \t]*\n/.test(src) && streaming.endsWith(src)) {
        return { type: 'openMath', raw: src, text: src }
      }
      return undefined
    },
    renderer(token) {
      return `<div class="lx-math lx-math-display">${escapeHtml((token as MathToken).text)}</div>\n`
    },
  },
  {
    name: 'openMath',
    renderer(token) {
      return `<p class="lx-raw">${escapeHtml(token.raw.replace(/\n+$/, ''))}</p>\n`
    },
  },
  {
    name: 'inlineMath',
    level: 'inline',
    start(src) {
      const i = src.search(mathStart)
      return i < 0 ? undefined : i
    },
    tokenizer(src) {
      const m = inlineMath.exec(src)
      if (!m) return undefined
      const display = Boolean(m[1] ?? m[3])
      const text = (m[2] ?? m[4] ?? m[6] ?? m[8] ?? '').trim()
      return { type: 'inlineMath', raw: m[0], text, display }
    },
    renderer(token) {
      const t = token as MathToken
      return `<span class="lx-math${t.display ? ' lx-math-display' : ''}">${escapeHtml(t.text)}</span>`
    },
  },
]

/** Lingxi's marked instance (never the global one, which the host page may configure). */
export const md = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: renderer as never,
  extensions: math,
  hooks: { emStrongMask: maskMath },
})

/**
 * Lexes `src` as top-level blocks, resolving reference links against `links` (and adding to it).
 * `open`: the text is still arriving (an unclosed display-maths opener holds the rest).
 */
export function lex(src: string, links: Links, open = false): Token[] & { links: Links } {
  const lexer = new md.Lexer(md.defaults)
  Object.assign(lexer.tokens.links, links)
  streaming = open ? src : null
  try {
    const tokens = lexer.lex(src)
    Object.assign(links, tokens.links)
    return tokens
  } finally {
    streaming = null
  }
}

/** Whether tokens hold an unclosed display-maths block (never part of a finished block). */
export function holdsOpenMath(tokens: Token[]): boolean {
  let found = false
  md.walkTokens(tokens, (t) => {
    found ||= t.type === 'openMath'
  })
  return found
}

/** Renders block tokens to an HTML string (to be sanitised before use). */
export function render(tokens: Token[]): string {
  return md.parser(tokens)
}
