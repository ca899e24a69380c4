import katex from 'katex'
import { $config } from '../../core/config'
import { getBoot } from '../boot'
import { katexCss, katexFonts } from './vendor/katex-css'
import { safeStyle, sanitize } from './sanitize'
import { adoptCss } from './styles'

// Maths, loaded only when an answer has some. KaTeX runs untrusted (no \href, \url,
// \includegraphics, \html*), its output is sanitised, its stylesheet is adopted into the shadow
// root, its inline styles are set through the CSSOM (applyStyles: no CSP violation), and its
// fonts come from Lingxi's own CDN (dist/cdn/fonts/katex/, copied by the build).

const registered = new WeakSet<Document>()

/** KaTeX's stylesheet, and how a typeset placeholder differs from one waiting for it. */
const css = `${katexCss}
.lx-md .lx-math[data-done]{font:inherit;color:inherit;white-space:normal}
.lx-md .katex-display{margin:0}`

/** The CDN folder the loader recorded (the element chunks' folder), else the API's /cdn/ (the npm package's case). */
export function cdnBase(): string {
  const base = getBoot().cdnBase || `${$config.get().apiBase}/cdn/`
  return base.endsWith('/') ? base : `${base}/`
}

/**
 * Registers KaTeX's fonts on the document once. Browsers do not load `@font-face` declared inside
 * a shadow root, but faces in `document.fonts` serve every tree of the page; each file is fetched
 * only when some text needs it.
 */
export function registerFonts(doc: Document): void {
  if (registered.has(doc)) return
  registered.add(doc)
  const FontFaceCtor = (doc.defaultView as (Window & typeof globalThis) | null)?.FontFace
  if (!FontFaceCtor || !doc.fonts) return
  const base = new URL(`${cdnBase()}fonts/katex/`, doc.baseURI).href
  for (const [family, file, weight, style] of katexFonts) {
    try {
      doc.fonts.add(new FontFaceCtor(family, `url(${base}${file}.woff2) format("woff2")`, { weight, style, display: 'swap' }))
    } catch {
      // a font that cannot be declared just falls back to the system serif
    }
  }
}

/**
 * KaTeX lays out with inline `style` attributes (heights, offsets, colours), which a page whose
 * Content-Security-Policy has no 'unsafe-inline' in style-src refuses, one violation each. No
 * such attribute is ever parsed: KaTeX's markup carries them as `data-lx-style` (KaTeX escapes
 * every `"` of text and values, so ` style="` is always one of its attributes), and each value,
 * once sanitised, is set through the CSSOM, which style-src does not govern.
 */
export function applyStyles(fragment: DocumentFragment): void {
  for (const el of fragment.querySelectorAll<HTMLElement | SVGElement | MathMLElement>('[data-lx-style]')) {
    const style = safeStyle(el.getAttribute('data-lx-style') ?? '')
    el.removeAttribute('data-lx-style')
    if (style) el.style.cssText = style
  }
}

/** Renders TeX to sanitised nodes of `doc` (a KaTeX error shows the source, in the error colour). */
export function renderTex(tex: string, display: boolean, doc: Document): DocumentFragment {
  const html = katex.renderToString(tex, {
    displayMode: display,
    throwOnError: false,
    trust: false,
    strict: 'ignore',
    output: 'htmlAndMathml',
    maxSize: 50,
    maxExpand: 500,
    errorColor: '#f5595b'
  })
  const fragment = sanitize(html.replaceAll(' style="', ' data-lx-style="'), doc, 'math')
  applyStyles(fragment)
  return fragment
}

/** Fills maths placeholders (`.lx-math` holding TeX source) with KaTeX's rendering. */
export function renderMath(placeholders: Iterable<Element>): void {
  for (const el of placeholders) {
    if (el.hasAttribute('data-done')) continue
    const doc = el.ownerDocument
    registerFonts(doc)
    adoptCss(el, 'katex', css)
    const tex = el.textContent ?? ''
    el.replaceChildren(renderTex(tex, el.classList.contains('lx-math-display'), doc))
    el.setAttribute('data-done', '')
  }
}

/** The renderer's entry point: typesets a maths placeholder. */
export const enhance = (el: Element): void => renderMath([el])
