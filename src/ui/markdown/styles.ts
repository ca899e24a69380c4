import { getBoot } from '../boot'

// The renderer's own stylesheet: typography of the rendered answer, code blocks, tables, the
// streaming cursor. Markdown never gets Tailwind classes; colours come from the theme's custom
// properties (set on :host by the Lingxi sheet), with the dark defaults as fallbacks for a
// renderer used outside a Lingxi shadow root; .lx-md keeps them in short local properties. The code
// block follows the theme's `color-scheme` (dark where light-dark() is missing). The code theme
// lives in highlight.ts, the KaTeX and mermaid rules in math.ts and mermaid.ts: each is adopted
// when its chunk first runs. Written compact: it ships in the renderer chunk.
//
// The cursor goes after the text of the last block: at the end of a paragraph, heading or code,
// of the last list item or quoted block; at the start while nothing is shown yet.
export const markdownCss = `.lx-md{--i:var(--color-ink,#e9e9ec);--m:var(--color-muted,#9a9ca6);--l:1px solid var(--color-line,#33363f);--r:var(--color-raised,#2a2c33);--s:var(--color-surface,#202228);--p:var(--color-primary,#fbab00);--f:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:var(--i);font-size:14px;line-height:1.75;overflow-wrap:break-word;word-break:normal;min-width:0}
.lx-md>:first-child,.lx-md blockquote>:first-child{margin-top:0}
.lx-md>:last-child,.lx-md blockquote>:last-child{margin-bottom:0}
.lx-md :is(p,ul,ol,blockquote,.lx-code,.lx-table){margin:.7em 0}
.lx-md li>:is(p,ul,ol,.lx-code){margin:.25em 0}
.lx-md :is(h1,h2,h3,h4,h5,h6){margin:1.1em 0 .55em;font-size:1em;font-weight:600;line-height:1.4}
.lx-md h1{font-size:1.5em}
.lx-md h2{font-size:1.3em}
.lx-md h3{font-size:1.15em}
.lx-md :is(h5,h6,del,.lx-raw,span.lx-img,blockquote),.lx-md li::marker{color:var(--m)}
.lx-md strong{font-weight:600;color:var(--i)}
.lx-md a{color:var(--p);text-decoration:underline;text-underline-offset:2px}
.lx-md a:not([href]){color:inherit;text-decoration:none}
.lx-md :is(ul,ol){padding-left:1.6em;list-style:disc}
.lx-md ol{list-style:decimal}
.lx-md ul ul{list-style:circle}
.lx-md li{margin:.25em 0}
.lx-md input{margin:0 .4em 0 0;vertical-align:-.1em;accent-color:var(--p)}
.lx-md blockquote{margin-inline:0;padding:.1em 0 .1em 1em;border-left:3px solid var(--p)}
.lx-md hr{margin:1.2em 0;border:0;border-top:var(--l)}
.lx-md code{font:.88em var(--f);padding:.12em .4em;border-radius:4px;background:var(--r)}
.lx-md img{max-width:100%;border-radius:8px}
.lx-md .lx-raw{white-space:pre-wrap}
.lx-md .lx-code{overflow:hidden;border:var(--l);border-radius:8px;background:#111215;background:light-dark(#f6f7f9,#111215)}
.lx-md .lx-code-head{display:flex;justify-content:space-between;padding:3px 6px 3px 12px;background:var(--s);border-bottom:var(--l);color:var(--m);font-size:12px;line-height:24px}
.lx-md .lx-code-lang{font-family:var(--f)}
.lx-md .lx-code-copy{padding:0 8px;border:0;border-radius:4px;background:none;color:inherit;font:inherit;cursor:pointer}
.lx-md .lx-code-copy:hover{background:var(--r);color:var(--i)}
.lx-md pre{margin:0;padding:12px 14px;overflow-x:auto}
.lx-md pre>code{display:block;width:max-content;min-width:100%;padding:0;background:none;font-size:13px;line-height:1.6;white-space:pre;tab-size:4}
.lx-md .lx-table{overflow-x:auto}
.lx-md table{border-collapse:collapse;font-size:.95em}
.lx-md :is(th,td){padding:6px 12px;border:var(--l);vertical-align:top;text-align:start}
.lx-md th{background:var(--s);font-weight:600}
.lx-md .lx-center{text-align:center}
.lx-md .lx-right{text-align:right}
.lx-md tbody tr:nth-child(even){background:color-mix(in srgb,var(--s) 55%,transparent)}
.lx-md .lx-math{font:.9em var(--f);color:var(--m)}
.lx-md .lx-math-display{display:block;margin:.7em 0;overflow:auto hidden;white-space:pre-wrap}
.lx-md[data-streaming]:empty::after,.lx-md[data-streaming]>:is(p,h1,h2,h3,h4,h5,h6):last-child::after,.lx-md[data-streaming]>:is(ul,ol,blockquote):last-child>:last-child::after,.lx-md[data-streaming]>.lx-code:last-child code::after{content:'';display:inline-block;width:.5em;height:1.1em;margin-left:2px;vertical-align:-.2em;background:var(--p);border-radius:1px;animation:lx-md-blink 1s steps(2,start) infinite}
@keyframes lx-md-blink{to{visibility:hidden}}
@media (prefers-reduced-motion:reduce){.lx-md::after,.lx-md ::after{animation:none!important}}`

const sheets: Record<string, CSSStyleSheet | null> = {}

/**
 * Gives the tree `node` lives in (its shadow root, or the document) the stylesheet `css` once:
 * a constructable sheet (one per key, shared by every tree of the page) in `adoptedStyleSheets`,
 * or a `<style>` (with the page's CSP nonce) where adoption is missing. False while the node is
 * not in a shadow root or a document yet.
 */
export function adoptCss(node: Node, key: string, css: string): boolean {
  const root = node.getRootNode() as ShadowRoot | Document
  const doc = node.ownerDocument!
  if (root !== doc && !(root as ShadowRoot).host) return false
  if (!(key in sheets)) {
    try {
      const sheet = new CSSStyleSheet()
      sheet.replaceSync(css)
      sheets[key] = sheet
    } catch {
      sheets[key] = null
    }
  }
  const sheet = sheets[key]
  if (sheet && root.adoptedStyleSheets) {
    if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet]
  } else if (!root.querySelector(`style[data-lx-css="${key}"]`)) {
    const style = (root === doc ? doc.head : root).appendChild(doc.createElement('style'))
    style.setAttribute('data-lx-css', key)
    style.nonce = getBoot().nonce ?? ''
    style.textContent = css
  }
  return true
}
