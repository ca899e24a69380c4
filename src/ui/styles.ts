import { shared } from '../core/shared'
import { css as baseCss } from '../styles/generated/base'
import { getBoot } from './boot'

/** Stylesheet text by element tag; '*' is the sheet for any other root (the npm package's, tests'). */
export const texts = () => shared('ui.css', () => new Map<string, string>())

/**
 * Gives an element its stylesheet. The CDN build calls this in each element's entry with the sheet
 * compiled for that element alone (scripts/build-css.mjs); the npm package registers the full
 * sheet as '*'.
 */
export function registerCss(tag: string, css: string): void {
  if (!texts().has(tag)) texts().set(tag, css)
}

/**
 * Gives a shadow root its element's styles: the base sheet (theme, preflight, :host) then the
 * element's own utilities, or the full sheet for roots of no registered element. Each is a
 * constructable sheet created once per page and shared by every root, or a `<style>` (with the
 * page's CSP nonce) where adoption is missing.
 */
export function adoptStyles(root: ShadowRoot, tag = '*'): void {
  const own = texts().get(tag)
  const full = texts().get('*')
  const list = own !== undefined ? [baseCss, own] : full !== undefined ? [full] : []
  if (!('adoptedStyleSheets' in root) || list.some((css) => !sheetOf(css))) {
    const nonce = getBoot().nonce
    for (const css of [...list].reverse()) {
      const style = document.createElement('style')
      if (nonce) style.nonce = nonce
      style.textContent = css
      root.prepend(style)
      styleElements().set(style, css)
    }
    return
  }
  const wanted = list.map((css) => sheetOf(css)!).filter((s) => !root.adoptedStyleSheets.includes(s))
  if (wanted.length) root.adoptedStyleSheets = [...root.adoptedStyleSheets, ...wanted]
}

/** The `<style>` elements made where adoption is missing, with their text (extend-css.ts updates them). */
export const styleElements = () => shared('ui.styleElements', () => new Map<HTMLStyleElement, string>())

/** The page's one constructable sheet for a text; null where they are unsupported. */
/** The page's constructable sheets by text. */
export const stylesheets = () => shared('ui.stylesheets', () => new Map<string, CSSStyleSheet | null>())

function sheetOf(css: string): CSSStyleSheet | null {
  const sheets = stylesheets()
  if (!sheets.has(css)) {
    let s: CSSStyleSheet | null = null
    try {
      s = new CSSStyleSheet()
      s.replaceSync(css)
    } catch {
      s = null
    }
    sheets.set(css, s)
  }
  return sheets.get(css)!
}
