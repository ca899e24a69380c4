/**
 * The page-wide object every Lingxi bundle meets at `globalThis[Symbol.for('lingxi.v1')]`.
 * The loader writes `boot` (the page's configuration from its script tag); `registry` holds the
 * stores and singletons created through `shared()`, so separately built bundles share them.
 */
export interface BootConfig {
  /** API origin, '' for the page's own origin. */
  apiBase: string
  /** Parent domain for the session cookies, '' for the page's host. */
  cookieDomain: string
  /** The full Lingxi site, for links out of an embedded widget ('' = same origin). */
  siteUrl: string
  /** CSP nonce for the `<style>` fallback. */
  nonce?: string
  /** Where the element chunks live. */
  cdnBase: string
}

export interface Anchor {
  v: 1
  registry: Record<string, unknown>
  boot?: Partial<BootConfig>
}
