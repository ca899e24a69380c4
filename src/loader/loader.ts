/**
 * The single Lingxi loader: `<script async src=".../loader.js" data-api="https://...">`.
 *
 * It stays tiny (budget ≤ 3 KB gzip): it records the page's configuration on the shared anchor,
 * drains the command queue of the `window.lingxi` snippet, and imports each `lingxi-*` element's
 * chunk once, the first time a tag appears. Everything else lives in those chunks.
 */
import type { Anchor, BootConfig } from '../core/anchor'

declare const __LINGXI_ELEMENTS__: string[]

type Command = [name: string, ...args: unknown[]]
type Lingxi = ((...args: unknown[]) => Promise<unknown>) & {
  q?: ArrayLike<unknown>[]
  ready?: Promise<void>
  load?: (root: string | ParentNode) => Promise<unknown>
  version?: string
}

const known = new Set(__LINGXI_ELEMENTS__)
const script = document.currentScript as HTMLScriptElement | null
const base = script ? new URL('.', script.src).href : new URL('/cdn/', location.href).href
const data = script?.dataset ?? {}

const key = Symbol.for('lingxi.v1')
const g = globalThis as unknown as Record<symbol, Anchor | undefined>
const anchor: Anchor = (g[key] ??= { v: 1, registry: {} })
const boot: BootConfig = {
  apiBase: (data.api ?? '').replace(/\/+$/, ''),
  cookieDomain: data.cookieDomain ?? '',
  siteUrl: data.site ?? '',
  nonce: script?.nonce || undefined,
  cdnBase: base,
}
anchor.boot = { ...boot, ...anchor.boot }

const loaded = new Map<string, Promise<unknown>>()

function importTag(tag: string): Promise<unknown> {
  const name = tag.toLowerCase().slice(7)
  if (!tag.toLowerCase().startsWith('lingxi-') || !known.has(name)) return Promise.resolve()
  let p = loaded.get(name)
  if (!p) {
    p = import(/* @vite-ignore */ `${base}${name}.js`)
    loaded.set(name, p)
  }
  return p
}

/** Imports the chunks of every undefined `lingxi-*` element under `root` (a node or a tag name). */
function load(root: string | ParentNode = document): Promise<unknown> {
  if (typeof root === 'string') return importTag(root)
  const tags = new Set<string>()
  if (root instanceof Element && !customElements.get(root.localName)) tags.add(root.localName)
  root.querySelectorAll(':not(:defined)').forEach((el) => tags.add(el.localName))
  return Promise.all([...tags].map(importTag))
}

// Commands run in the commands chunk; those queued before the loader arrived run first, in order.
const commands = () => importTag('lingxi-commands') as Promise<{ run(cmd: Command): unknown }>
const previous = (window as unknown as { lingxi?: Lingxi }).lingxi
const queued: Command[] = Array.from(previous?.q ?? [], (args) => Array.from(args) as Command)

const lingxi: Lingxi = (...args) => commands().then((m) => m.run(args as Command))
lingxi.load = load
lingxi.version = '1'
lingxi.ready = (async () => {
  if (queued.length) {
    const m = await commands()
    for (const cmd of queued) await m.run(cmd)
  }
  dispatchEvent(new CustomEvent('lingxi-ready'))
})()
;(window as unknown as { lingxi: Lingxi }).lingxi = lingxi

load()
new MutationObserver((records) => {
  for (const r of records)
    r.addedNodes.forEach((n) => {
      if (n.nodeType === 1) load(n as Element)
    })
}).observe(document.documentElement, { childList: true, subtree: true })
