import { THEME_KEY } from './wire'

// The host page's theme (docs/decisions/0018-themes.md). src/host/public/theme.js applies the
// stored choice to <html data-theme> before the first paint; site.css gives it its colours, which
// every element's shadow root inherits. Embedded elements take their own `theme` attribute instead.

/** A theme choice. */
export type Theme =
  /** The site's default. */
  | 'dark'
  | 'light'
  /** Light or dark as the system's `prefers-color-scheme` says, following its changes. */
  | 'auto'

const THEMES: readonly Theme[] = ['dark', 'light', 'auto']

/** The page's theme: what <html data-theme> says, null on a page that has none (not the host). */
export function pageTheme(): Theme | null {
  if (typeof document === 'undefined') return null
  const value = document.documentElement.dataset.theme as Theme | undefined
  return value && THEMES.includes(value) ? value : null
}

/** Applies a theme to the page and remembers it for the next visits. */
export function setTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme
  try {
    localStorage.setItem(THEME_KEY, theme)
  } catch {
    // full or blocked: the choice holds for this page
  }
}
