import type katex from 'katex'
import type mermaid from 'mermaid/dist/mermaid.esm.min.mjs'
import { $config } from '../core/config'
import { getBoot } from '../ui/boot'

// The npm build's markdown loaders (scripts/npm-vendors.mjs puts this module in place of
// src/ui/markdown/lazy.ts, and `vendors` in place of the renderers' `katex` and mermaid imports). KaTeX and
// mermaid are not bundled: a bundler resolves every import it sees at build time, and an app that
// installs only `lingxi` must build. Before the maths or diagram renderer loads, its library is
// imported at run time from the Lingxi server the app points at (`<api>/cdn/vendor/*.js`, the CDN
// build's own chunks: scripts/vendor-chunks.mjs), or from the app's own install when it handed
// Lingxi a loader (`markdownVendors`).

type Katex = typeof katex
type Mermaid = typeof mermaid
type Name = 'katex' | 'mermaid'

/** A loader of the app's own copy, e.g. `() => import('katex')`. */
export type VendorLoader = () => Promise<{ default: unknown }>

/** The libraries, once loaded: the renderers' `katex` and `mermaid` imports read them (scripts/npm-vendors.mjs). */
export const vendors: { katex?: Katex; mermaid?: Mermaid } = {}

const loaders: Partial<Record<Name, VendorLoader>> = {}
const pending: Partial<Record<Name, Promise<void>>> = {}

/**
 * Renders maths and diagrams with the app's own KaTeX and mermaid (optional peer dependencies)
 * instead of the Lingxi server's copies: `markdownVendors({ katex: () => import('katex'), mermaid:
 * () => import('mermaid') })`, before the first reply shows. Without it nothing of theirs is
 * bundled and both load from the server when a reply needs them.
 */
export function markdownVendors(next: Partial<Record<Name, VendorLoader>>): void {
  for (const name of ['katex', 'mermaid'] as const) if (next[name] && !vendors[name]) loaders[name] = next[name]
}

/** Where the Lingxi server serves a library: the loader's CDN folder if any, else `<api>/cdn/`. */
export function vendorUrl(name: Name): string {
  const cdn = getBoot().cdnBase || `${$config.get().apiBase}/cdn/`
  return new URL(`${cdn.endsWith('/') ? cdn : `${cdn}/`}vendor/${name}.js`, document.baseURI).href
}

/** Loads a library once (a failed load is tried again next time: the renderer then shows the source). */
function load(name: Name): Promise<void> {
  pending[name] ??= (loaders[name]?.() ?? import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ vendorUrl(name)))
    .then((module: { default?: unknown } | undefined) => {
      if (!module?.default) throw new Error(`${name}: no default export`)
      Object.assign(vendors, { [name]: module.default })
    })
    .catch((error: unknown) => {
      delete pending[name]
      throw error
    })
  return pending[name]
}

export const lazy = {
  highlight: () => import('../ui/markdown/highlight'),
  katex: () => load('katex').then(() => import('../ui/markdown/math')),
  mermaid: () => load('mermaid').then(() => import('../ui/markdown/mermaid'))
}
