import { atom } from 'nanostores'
import { shared } from '../../core/shared'

/**
 * The chat's chrome in English (issue 16): `locale="en"` on a chat element loads the dictionary
 * (locale-en.ts, a chunk of its own, with the login dialog's and the toasts': src/ui/locale-en.ts),
 * so zh-CN — the default — costs nothing. Keyed by the Chinese text, which stays where it is used.
 * One language for the page: the page-wide store of src/ui/i18n.ts (a copy of its line here).
 */
export const $dict = shared('ui.en', () => atom<Record<string, string> | undefined>())

/** The text in the page's chat language. */
export const t = (zh: string): string => $dict.get()?.[zh] ?? zh

/** `locale` of an element: English (`en`, `en-US`…) loads the dictionary; anything else is zh-CN. */
export function setLocale(locale?: string): void {
  if (/^en\b/i.test(locale ?? '')) void import('./locale-en').then((m) => $dict.set(m.en))
}
