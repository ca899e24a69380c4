import createDOMPurify, { type Config, type DOMPurify } from 'dompurify'
import { safeLinkUrl } from './url'

export { safeLinkUrl }

// The markup that libraries produce, sanitised with DOMPurify in the window of the tree it goes
// into: KaTeX's output (math) and mermaid's diagrams (svg). Markdown itself never comes here: the
// renderer builds its DOM node by node (parse.ts). Only the maths and mermaid chunks import this
// module, so DOMPurify loads with them, not with the renderer. On top of DOMPurify's own checks:
// - a link keeps its destination only if the parsed DOM value is an absolute http, https or mailto
//   URL; it then opens in a new tab with rel="noopener noreferrer nofollow";
// - nothing can fetch: no img/image/video/iframe/object/embed/link/meta/base/form tags, and no
//   `url()`, `@import`, `image-set()` or CSS escapes in any style.

type Mode = 'math' | 'svg'

const FETCHING_CSS = /url\s*\(|@import|image-set\s*\(|image\s*\(|expression\s*\(|\\|javascript:|behavior\s*:|-moz-binding|@font-face|src\s*\(/i

/** A style attribute value that cannot fetch anything or run script, else null. */
export function safeStyle(style: string): string | null {
  return FETCHING_CSS.test(style) ? null : style
}

/** Mermaid's diagram stylesheet with anything that could fetch removed (its `url(#marker)` stay). */
export function safeStylesheet(css: string): string {
  return css
    .replace(/\\/g, '')
    .replace(/@import[^;]*;?/gi, '')
    .replace(/@font-face\s*\{[^}]*\}/gi, '')
    .replace(/(?:-webkit-)?image-set\s*\(/gi, 'none(')
    .replace(/url\s*\(\s*(['"]?)\s*(?!#)[^)]*\)/gi, 'none')
    .replace(/expression\s*\(|javascript:|behavior\s*:|-moz-binding/gi, '')
}

const NEVER = [
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'form',
  'link',
  'meta',
  'base',
  'img',
  'image',
  'picture',
  'source',
  'video',
  'audio',
  'track',
  'input',
  'textarea',
  'select',
  'button',
  'foreignObject',
  'use',
  'feImage',
  'template',
  'slot',
  'portal',
  'noscript',
  'xmp',
  'plaintext'
]

const configs: Record<Mode, Config> = {
  math: {
    USE_PROFILES: { html: true, svg: true, mathMl: true },
    FORBID_TAGS: ['a', ...NEVER],
    FORBID_ATTR: ['href', 'xlink:href', 'src', 'action', 'formaction', 'srcset', 'background', 'poster', 'id', 'name'],
    // KaTeX's inline styles, which math.ts sets through the CSSOM (no style attribute under a strict CSP).
    // URI-safe too: DOMPurify checks an added attribute's value as a URL, and `height:0.81em` reads
    // as one with the scheme `height:`, so without this every offset was dropped (superscripts sat
    // on the baseline). safeStyle() checks the values instead.
    ADD_ATTR: ['data-lx-style'],
    ADD_URI_SAFE_ATTR: ['data-lx-style'],
    ALLOW_DATA_ATTR: false
  },
  svg: {
    USE_PROFILES: { svg: true, svgFilters: true },
    ADD_ATTR: ['role'],
    FORBID_TAGS: NEVER,
    FORBID_ATTR: ['src', 'action', 'formaction', 'srcset', 'background', 'poster'],
    ALLOW_DATA_ATTR: false
  }
}

const instances = new WeakMap<object, Map<Mode, DOMPurify>>()

function hooksFor(purify: DOMPurify, mode: Mode): void {
  purify.addHook('afterSanitizeAttributes', (node) => {
    const el = node as Element
    if (el.nodeType !== 1) return
    const tag = el.localName
    if (el.hasAttribute('style') && safeStyle(el.getAttribute('style') ?? '') === null) el.removeAttribute('style')
    if (tag === 'a') {
      for (const attr of ['href', 'xlink:href']) {
        if (!el.hasAttribute(attr)) continue
        const raw = el.getAttribute(attr)
        const url = mode === 'svg' && raw?.startsWith('#') ? raw : safeLinkUrl(raw)
        if (url) el.setAttribute(attr, url)
        else el.removeAttribute(attr)
      }
      if (el.hasAttribute('href') || el.hasAttribute('xlink:href')) {
        el.setAttribute('target', '_blank')
        el.setAttribute('rel', 'noopener noreferrer nofollow')
      } else {
        el.removeAttribute('target')
        el.removeAttribute('rel')
      }
    } else if (mode === 'svg') {
      // only an <a> may point elsewhere; elsewhere an href may reference the diagram itself
      for (const attr of ['href', 'xlink:href']) {
        const v = el.getAttribute(attr)
        if (v !== null && !v.startsWith('#')) el.removeAttribute(attr)
      }
    }
  })
  purify.addHook('uponSanitizeAttribute', (_node, data) => {
    // event handlers never survive, whatever an allowlist says
    if (/^on/i.test(data.attrName)) data.keepAttr = false
  })
}

function purifier(win: Window & typeof globalThis, mode: Mode): DOMPurify {
  let byMode = instances.get(win)
  if (!byMode) {
    byMode = new Map()
    instances.set(win, byMode)
  }
  let purify = byMode.get(mode)
  if (!purify) {
    purify = createDOMPurify(win)
    hooksFor(purify, mode)
    byMode.set(mode, purify)
  }
  return purify
}

/**
 * Sanitises `html` into a fragment of `doc` (the document of the tree it will be inserted in).
 * `mode`: 'math' for KaTeX output, 'svg' for mermaid diagrams.
 */
export function sanitize(html: string, doc: Document, mode: Mode): DocumentFragment {
  const win = (doc.defaultView ?? window) as Window & typeof globalThis
  const purify = purifier(win, mode)
  const fragment = purify.sanitize(html, { ...configs[mode], RETURN_DOM_FRAGMENT: true })
  return doc === fragment.ownerDocument ? fragment : (doc.importNode(fragment, true) as DocumentFragment)
}

const SVG_NS = 'http://www.w3.org/2000/svg'
const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' }

function decodeEntities(text: string): string {
  return text.replace(/&(#x[\da-f]+|#\d+|\w+);/gi, (m, ref: string) => {
    if (ref[0] !== '#') return named[ref.toLowerCase()] ?? m
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)
    return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : ''
  })
}

/**
 * A mermaid diagram (SVG markup) → sanitised nodes of `doc`. Its stylesheet (scoped to the
 * diagram's id) never goes through an HTML parser: it is cut out, decoded, cleaned of anything
 * that could fetch, and put back as the text of a new <style>.
 */
export function sanitizeSvg(svg: string, doc: Document): DocumentFragment {
  const sheets: string[] = []
  const markup = svg.replace(/<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi, (_, css: string) => {
    sheets.push(decodeEntities(css))
    return ''
  })
  const fragment = sanitize(markup, doc, 'svg')
  const root = fragment.querySelector('svg')
  if (root && sheets.length) {
    const style = doc.createElementNS(SVG_NS, 'style')
    style.textContent = safeStylesheet(sheets.join('\n'))
    root.prepend(style)
  }
  return fragment
}
