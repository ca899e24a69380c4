import { atom } from 'nanostores'
import { shared } from '../core/shared'

/**
 * Lingxi's chrome in English (issue 16): a chat's `locale="en"` (the loader's `data-locale`) loads
 * one dictionary, keyed by the Chinese text, which stays where it is used: the chat's own
 * (src/widgets/chat/locale-en.ts) with the login dialog's and the toasts' (./locale-en.ts), a
 * chunk of its own, so zh-CN — the default — costs nothing. One language for the page: the chat
 * (src/widgets/chat/i18n.ts) and the toaster hold the same page-wide store under this key, each
 * with its own two-line copy, so no tiny shared chunk lands on a partner page's first screen.
 */
export const $english = shared('ui.en', () => atom<Record<string, string> | undefined>())

/** The text in the page's language. */
export const tr = (zh: string): string => $english.get()?.[zh] ?? zh
