import { shared } from '../core/shared'
import { css } from '../styles/generated'
import { getBoot } from './boot'

/**
 * Gives a shadow root Lingxi's one stylesheet: a constructable sheet created once per page and
 * adopted by every root, or a `<style>` (with the page's CSP nonce) where adoption is missing.
 */
export function adoptStyles(root: ShadowRoot): void {
  const sheet = shared('ui.stylesheet', () => {
    try {
      const s = new CSSStyleSheet()
      s.replaceSync(css)
      return s
    } catch {
      return null
    }
  })
  if (sheet && 'adoptedStyleSheets' in root) {
    if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet]
    return
  }
  const style = document.createElement('style')
  const nonce = getBoot().nonce
  if (nonce) style.nonce = nonce
  style.textContent = css
  root.prepend(style)
}
