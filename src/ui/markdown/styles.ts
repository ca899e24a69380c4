import { getBoot } from '../boot'

// The renderer's own stylesheet: typography of the rendered answer, code blocks with a dark
// highlight.js theme, tables, the streaming cursor. Markdown never gets Tailwind classes; colours
// come from the theme's custom properties (set on :host by the Lingxi sheet), with the dark
// defaults as fallbacks for a renderer used outside a Lingxi shadow root.
const ink = 'var(--color-ink, #e9e9ec)'
const muted = 'var(--color-muted, #9a9ca6)'
const line = 'var(--color-line, #33363f)'
const raised = 'var(--color-raised, #2a2c33)'
const surface = 'var(--color-surface, #202228)'
const primary = 'var(--color-primary, #fbab00)'
const mono = 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace'

// Where the streaming cursor goes: after the text of the last block, inline where the block has
// text, else on a line of its own. Rules with `:has` stand apart: a browser without it drops only
// those.
const live = '.lx-md[data-streaming]'
const inlineCursor = [
  `${live} > :is(p, h1, h2, h3, h4, h5, h6):last-child::after`,
  `${live} > blockquote:last-child > p:last-child::after`,
  `${live} > .lx-code:last-child pre > code::after`,
].join(', ')
const listCursor = [
  `${live} > :is(ul, ol):last-child > li:last-child:not(:has(> :is(ul, ol, p, blockquote, .lx-code):last-child))::after`,
  `${live} > :is(ul, ol):last-child > li:last-child > p:last-child::after`,
].join(', ')
const blockCursor = `${live}:not(:has(> :is(p, h1, h2, h3, h4, h5, h6, ul, ol, blockquote, .lx-code):last-child))::after`
const cursor = `content: ''; display: inline-block; width: 0.5em; height: 1.1em; margin-left: 2px; vertical-align: -0.2em;
  background: ${primary}; border-radius: 1px; animation: lx-md-blink 1s steps(2, start) infinite;`

export const markdownCss = `
.lx-md { color: ${ink}; font-size: 14px; line-height: 1.75; overflow-wrap: break-word; word-break: normal; min-width: 0; }
.lx-md > :first-child { margin-top: 0; }
.lx-md > :last-child { margin-bottom: 0; }
.lx-md :is(p, ul, ol, blockquote, .lx-code, .lx-table, .lx-mermaid-box) { margin: 0.7em 0; }
.lx-md :is(h1, h2, h3, h4, h5, h6) { margin: 1.1em 0 0.55em; font-weight: 600; line-height: 1.4; color: ${ink}; }
.lx-md h1 { font-size: 1.5em; }
.lx-md h2 { font-size: 1.3em; }
.lx-md h3 { font-size: 1.15em; }
.lx-md h4 { font-size: 1em; }
.lx-md :is(h5, h6) { font-size: 0.95em; color: ${muted}; }
.lx-md :is(strong, b) { font-weight: 600; color: ${ink}; }
.lx-md em { font-style: italic; }
.lx-md del { text-decoration: line-through; color: ${muted}; }
.lx-md a { color: ${primary}; text-decoration: underline; text-underline-offset: 2px; text-decoration-thickness: 1px; }
.lx-md a:not([href]) { color: inherit; text-decoration: none; }
.lx-md a:hover { text-decoration-thickness: 2px; }
.lx-md :is(ul, ol) { padding-left: 1.6em; }
.lx-md ul { list-style: disc; }
.lx-md ul ul { list-style: circle; }
.lx-md ol { list-style: decimal; }
.lx-md li { margin: 0.25em 0; }
.lx-md li > :is(ul, ol) { margin: 0.25em 0; }
.lx-md li > p { margin: 0.4em 0; }
.lx-md li::marker { color: ${muted}; }
.lx-md li > input[type="checkbox"] { margin: 0 0.4em 0 0; vertical-align: -0.1em; accent-color: ${primary}; }
.lx-md blockquote { margin-left: 0; margin-right: 0; padding: 0.1em 0 0.1em 1em; border-left: 3px solid ${primary}; color: ${muted}; }
.lx-md blockquote > :first-child { margin-top: 0; }
.lx-md blockquote > :last-child { margin-bottom: 0; }
.lx-md hr { height: 0; margin: 1.2em 0; border: 0; border-top: 1px solid ${line}; }
.lx-md code { font-family: ${mono}; font-size: 0.88em; padding: 0.12em 0.4em; border-radius: 4px; background: ${raised}; color: ${ink}; }
.lx-md img { max-width: 100%; height: auto; border-radius: 8px; vertical-align: middle; }
.lx-md .lx-img { color: ${primary}; }
.lx-md span.lx-img { color: ${muted}; }
.lx-md .lx-raw { white-space: pre-wrap; color: ${muted}; }

.lx-md .lx-code { overflow: hidden; border: 1px solid ${line}; border-radius: 8px; background: #111215; }
.lx-md .lx-code-head { display: flex; align-items: center; justify-content: space-between; gap: 8px; padding: 3px 6px 3px 12px; background: ${surface}; border-bottom: 1px solid ${line}; color: ${muted}; font-size: 12px; line-height: 24px; }
.lx-md .lx-code-lang { font-family: ${mono}; text-transform: lowercase; }
.lx-md .lx-code-copy { appearance: none; margin: 0; padding: 0 8px; border: 0; border-radius: 4px; background: transparent; color: inherit; font: inherit; line-height: 22px; cursor: pointer; }
.lx-md .lx-code-copy:hover { background: ${raised}; color: ${ink}; }
.lx-md .lx-code-copy:focus-visible { outline: 2px solid ${primary}; outline-offset: 1px; }
.lx-md .lx-code pre { margin: 0; padding: 12px 14px; overflow-x: auto; }
.lx-md .lx-code pre > code { display: block; width: max-content; min-width: 100%; padding: 0; border-radius: 0; background: none; font-size: 13px; line-height: 1.6; white-space: pre; tab-size: 4; }
.lx-md .lx-code-note { margin: 0; padding: 6px 12px; border-top: 1px solid ${line}; color: ${muted}; font-size: 12px; }
.lx-md .lx-mermaid { padding: 12px; overflow-x: auto; text-align: center; }
.lx-md .lx-mermaid svg { max-width: 100%; height: auto; }

.lx-md .lx-table { overflow-x: auto; }
.lx-md table { border-collapse: collapse; border-spacing: 0; font-size: 0.95em; }
.lx-md :is(th, td) { padding: 6px 12px; border: 1px solid ${line}; vertical-align: top; }
.lx-md th { background: ${surface}; font-weight: 600; }
.lx-md th:not([align]) { text-align: start; }
.lx-md tbody tr:nth-child(even) { background: color-mix(in srgb, ${surface} 55%, transparent); }

.lx-md .lx-math { font-family: ${mono}; font-size: 0.9em; color: ${muted}; }
.lx-md .lx-math[data-done] { font-family: inherit; font-size: inherit; color: inherit; }
.lx-md .lx-math-display { display: block; margin: 0.7em 0; overflow-x: auto; overflow-y: hidden; text-align: center; }
.lx-md .lx-math:not([data-done]).lx-math-display { white-space: pre-wrap; text-align: start; }
.lx-md .katex-display { margin: 0; }

${inlineCursor} { ${cursor} }
${listCursor} { ${cursor} }
${live}:empty::after { ${cursor} display: block; }
${blockCursor} { ${cursor} display: block; }
@keyframes lx-md-blink { to { visibility: hidden; } }
@media (prefers-reduced-motion: reduce) {
  ${live}::after, ${live} ::after { animation: none; }
}

.lx-md .hljs { color: #d4d6dd; }
.lx-md :is(.hljs-comment, .hljs-quote) { color: #7f848e; font-style: italic; }
.lx-md :is(.hljs-keyword, .hljs-selector-tag, .hljs-doctag, .hljs-formula) { color: #c792ea; }
.lx-md :is(.hljs-string, .hljs-regexp, .hljs-addition, .hljs-attribute, .hljs-meta .hljs-string) { color: #a5d6a7; }
.lx-md :is(.hljs-number, .hljs-literal, .hljs-symbol, .hljs-bullet, .hljs-variable.constant_) { color: #f8c555; }
.lx-md :is(.hljs-title, .hljs-title.function_, .hljs-section, .hljs-selector-id) { color: #82aaff; }
.lx-md :is(.hljs-title.class_, .hljs-type, .hljs-built_in, .hljs-class .hljs-title) { color: #ffcb6b; }
.lx-md :is(.hljs-attr, .hljs-variable, .hljs-template-variable, .hljs-selector-class, .hljs-selector-attr, .hljs-selector-pseudo, .hljs-property) { color: #f78c6c; }
.lx-md :is(.hljs-name, .hljs-tag) { color: #ff7b72; }
.lx-md :is(.hljs-meta, .hljs-meta .hljs-keyword) { color: #89ddff; }
.lx-md :is(.hljs-params, .hljs-subst, .hljs-operator, .hljs-punctuation) { color: #d4d6dd; }
.lx-md .hljs-deletion { color: #ff8a80; }
.lx-md .hljs-emphasis { font-style: italic; }
.lx-md .hljs-strong { font-weight: 600; }
.lx-md .hljs-link { text-decoration: underline; }
`

const sheets = new WeakMap<Document, Map<string, CSSStyleSheet | null>>()

function sheetFor(doc: Document, key: string, css: string): CSSStyleSheet | null {
  let byKey = sheets.get(doc)
  if (!byKey) sheets.set(doc, (byKey = new Map()))
  if (!byKey.has(key)) {
    let sheet: CSSStyleSheet | null = null
    try {
      const Sheet = (doc.defaultView ?? globalThis).CSSStyleSheet
      sheet = new Sheet()
      sheet.replaceSync(css)
    } catch {
      sheet = null
    }
    byKey.set(key, sheet)
  }
  return byKey.get(key) ?? null
}

/**
 * Gives the tree `node` lives in (its shadow root, or the document) the stylesheet `css` once:
 * a constructable sheet in `adoptedStyleSheets`, or a `<style>` (with the page's CSP nonce)
 * where adoption is missing. False while the node is not in a shadow root or a document yet.
 */
export function adoptCss(node: Node, key: string, css: string): boolean {
  const root = node.getRootNode()
  const doc = node.ownerDocument
  const isShadow = root.nodeType === 11 && 'host' in root
  if (!doc || (!isShadow && root !== doc)) return false
  const target = root as ShadowRoot | Document
  const sheet = sheetFor(doc, key, css)
  if (sheet && 'adoptedStyleSheets' in target) {
    if (!target.adoptedStyleSheets.includes(sheet)) target.adoptedStyleSheets = [...target.adoptedStyleSheets, sheet]
    return true
  }
  const parent = isShadow ? (target as ShadowRoot) : doc.head
  if (parent.querySelector(`style[data-lx-css="${key}"]`)) return true
  const style = doc.createElement('style')
  style.setAttribute('data-lx-css', key)
  const nonce = getBoot().nonce
  if (nonce) style.nonce = nonce
  style.textContent = css
  parent.append(style)
  return true
}
