import type { Tool } from '../manifest'

/** Toasts and confirmations for the page (the loader adds one when a page has none). */
export const toaster: Tool = {
  tag: 'lingxi-toaster'
}
