import type { Anchor, BootConfig } from '../core/anchor'

/** The configuration the loader read from its script tag (empty when there was no loader). */
export function getBoot(): Partial<BootConfig> {
  const anchor = (globalThis as unknown as Record<symbol, Anchor | undefined>)[Symbol.for('lingxi.v1')]
  return anchor?.boot ?? {}
}

/**
 * A link into the full Lingxi site: the loader's `data-site`, else the API origin (the server
 * serves the site too), else this page's origin (the host page itself).
 */
export function siteHref(path: string): string {
  const boot = getBoot()
  return `${boot.siteUrl || boot.apiBase || ''}${path}`
}
