import { shared } from '../core/shared'
import { styleElements, stylesheets, texts } from './styles'

// Apart from styles.ts, which every element's chunk carries: only an element with deferred parts
// (the chat) needs it, when one of them loads.

/**
 * Completes an element's sheet when a lazily loaded part of it arrives: `rest` holds the rules only
 * that part uses, each with its offset in the sheet registered (scripts/build-css.mjs), so the
 * result is the element's full sheet, every rule in its place. Roots that adopted the sheet see the
 * new rules at once; later ones get the full text. Once per tag; nothing for a tag whose sheet is
 * not the one `rest` was made for (the npm package and the tests register the full sheet as '*').
 */
export function extendCss(tag: string, rest: [number, string][]): void {
  const own = texts().get(tag)
  const done = shared('ui.extended', () => new Set<string>())
  if (own === undefined || done.has(tag) || rest.some(([offset]) => offset > own.length)) return
  done.add(tag)
  let full = ''
  let at = 0
  for (const [offset, text] of rest) {
    full += own.slice(at, offset) + text
    at = offset
  }
  full += own.slice(at)
  texts().set(tag, full)
  const sheets = stylesheets()
  const sheet = sheets.get(own)
  if (sheet) {
    sheet.replaceSync(full)
    sheets.set(full, sheet)
  }
  for (const [style, css] of styleElements()) {
    if (css !== own) continue
    style.textContent = full
    styleElements().set(style, full)
  }
}
