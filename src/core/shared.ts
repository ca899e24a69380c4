import type { Anchor } from './anchor'

const KEY = Symbol.for('lingxi.v1')

/** The page-wide anchor, created by whichever Lingxi bundle (or the loader) runs first. */
export function anchor(): Anchor {
  const g = globalThis as unknown as Record<symbol, Anchor | undefined>
  const a = g[KEY] ?? { v: 1, registry: {} }
  g[KEY] = a
  a.registry ??= {}
  return a
}

/**
 * Get-or-create a page-wide singleton. Every store and once-per-page setup goes through here, so
 * separately built bundles on one page (CDN chunks, the npm package) share one `$user`.
 */
export function shared<T>(key: string, create: () => T): T {
  const registry = anchor().registry
  if (!(key in registry)) registry[key] = create()
  return registry[key] as T
}
