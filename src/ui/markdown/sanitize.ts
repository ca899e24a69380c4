import createDOMPurify, { type Config, type DOMPurify } from 'dompurify'
import { getBoot } from '../boot'

// Every piece of HTML the renderer inserts passes through DOMPurify, in the window of the tree it
// goes into, with one of three allowlists: rendered markdown (html), KaTeX output (math) and
// mermaid's diagrams (svg). On top of DOMPurify's own checks:
// - a link keeps its destination only if the parsed DOM value is an absolute http, https or mailto
//   URL; it then opens in a new tab with rel="noopener noreferrer nofollow";
// - nothing can fetch: no img/image/video/iframe/object/embed/link/meta/base/form tags, no style
//   attributes in markdown, and in KaTeX and mermaid output no `url()`, `@import`, `image-set()`
//   or CSS escapes in any style.

type Mode = 'html' | 'math' | 'svg'

const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:'])

/** Absolute http(s)/mailto URL → its normalised form; anything else (relative, javascript:, data: …) → null. */
export function safeLinkUrl(value: string | null | undefined): string | null {
  if (!value) return null
  try {
    // parsed as a browser would (it drops tabs and newlines, lowercases the scheme); relative fails
    const url = new URL(value.trim())
    return LINK_PROTOCOLS.has(url.protocol) ? url.href : null
  } catch {
    return null
  }
}

/**
 * Where images may load from without a click: the API's own `/files/` (Lingxi re-hosts every
 * generated or uploaded image there, so loading it tells no third party anything). Everything
 * else stays a placeholder link.
 */
export function filesBase(): string {
  const page = typeof location === 'undefined' ? 'http://localhost/' : location.href
  return new URL(`${(getBoot().apiBase ?? '').replace(/\/+$/, '')}/files/`, page).href
}

/** Whether an absolute URL points into {@link filesBase} (after resolving `..`). */
export function isLocalFile(url: string, base = filesBase()): boolean {
  try {
    const u = new URL(url)
    const b = new URL(base)
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === b.origin && u.pathname.startsWith(b.pathname) && !/%2f|%5c|\\/i.test(u.pathname)
  } catch {
    return false
  }
}

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

const HTML_TAGS = [
  'a', 'blockquote', 'br', 'button', 'code', 'del', 'div', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'input',
  'li', 'ol', 'p', 'pre', 'span', 'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul',
]
const HTML_ATTRS = ['href', 'title', 'class', 'start', 'align', 'type', 'checked', 'disabled', 'data-lang', 'data-img', 'data-src']
const NEVER = [
  'script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'form', 'link', 'meta', 'base', 'img', 'image',
  'picture', 'source', 'video', 'audio', 'track', 'input', 'textarea', 'select', 'button', 'foreignObject', 'use',
  'feImage', 'template', 'slot', 'portal', 'noscript', 'xmp', 'plaintext',
]

const configs: Record<Mode, Config> = {
  html: {
    ALLOWED_TAGS: HTML_TAGS,
    ALLOWED_ATTR: HTML_ATTRS,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  },
  math: {
    USE_PROFILES: { html: true, svg: true, mathMl: true },
    FORBID_TAGS: ['a', ...NEVER],
    FORBID_ATTR: ['href', 'xlink:href', 'src', 'action', 'formaction', 'srcset', 'background', 'poster', 'id', 'name'],
    ALLOW_DATA_ATTR: false,
  },
  svg: {
    USE_PROFILES: { svg: true, svgFilters: true },
    ADD_ATTR: ['role'],
    FORBID_TAGS: NEVER,
    FORBID_ATTR: ['src', 'action', 'formaction', 'srcset', 'background', 'poster'],
    ALLOW_DATA_ATTR: false,
  },
}

const instances = new WeakMap<object, Map<Mode, DOMPurify>>()

function hooksFor(purify: DOMPurify, mode: Mode): void {
  purify.addHook('afterSanitizeAttributes', (node) => {
    const el = node as Element
    if (el.nodeType !== 1) return
    const tag = el.localName
    if (el.hasAttribute('style')) {
      const clean = mode === 'html' ? null : safeStyle(el.getAttribute('style') ?? '')
      if (clean === null) el.removeAttribute('style')
    }
    if (mode === 'html' && tag === 'input') {
      if (el.getAttribute('type') === 'checkbox') el.setAttribute('disabled', '')
      else el.remove()
      return
    }
    if (mode === 'html' && tag === 'button') el.setAttribute('type', 'button')
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
  if (!byMode) instances.set(win, (byMode = new Map()))
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
 * `mode`: 'html' for rendered markdown, 'math' for KaTeX output, 'svg' for mermaid diagrams.
 */
export function sanitize(html: string, doc: Document, mode: Mode = 'html'): DocumentFragment {
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
