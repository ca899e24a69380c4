/**
 * The single Lingxi loader: `<script async src=".../loader.js" data-api="https://...">`.
 *
 * It stays tiny (budget ≤ 3 KB gzip): it records the page's configuration on the shared anchor,
 * runs the calls the `window.lingxi` snippet queued, and imports each `lingxi-*` element's chunk
 * once, the first time a tag appears. Everything else lives in those chunks. The one global it
 * leaves is `window.lingxi`.
 */
import type { Anchor, BootConfig } from '../core/anchor'

declare const __LINGXI_ELEMENTS__: string[]

type Command = [name: string, ...args: unknown[]]
type Lingxi = ((...args: unknown[]) => Promise<unknown>) & {
  q?: ArrayLike<unknown>[]
  ready?: Promise<void>
  /** The snippet's resolver of its own `ready` promise, if it made one. */
  r?: () => void
  load?: (root: string | ParentNode) => Promise<unknown>
  /** `lingxi.session()`: resolves who is logged in (`lingxi('session')`). */
  session?: () => Promise<unknown>
  /** `lingxi.chat.open()`…: the page's chat (README, "Programmatic control"). */
  chat?: Record<string, (arg?: unknown) => Promise<unknown>>
  /** `lingxi.identify(assertion)`: logs a partner's user in with the assertion its backend signed (`lingxi('identify', assertion)`). */
  identify?: (assertion: string) => Promise<unknown>
  version?: string
}

const known = new Set(__LINGXI_ELEMENTS__)
const script = document.currentScript as HTMLScriptElement | null
const base = script ? new URL('.', script.src).href : new URL('/cdn/', location.href).href
const data = script?.dataset ?? {}

const key = Symbol.for('lingxi.v1')
const g = globalThis as unknown as Record<symbol, Anchor | undefined>
const anchor: Anchor = g[key] ?? { v: 1, registry: {} }
g[key] = anchor
const boot: BootConfig = {
  apiBase: (data.api ?? '').replace(/\/+$/, ''),
  cookieDomain: data.cookieDomain ?? '',
  siteUrl: data.site ?? '',
  nonce: script?.nonce || undefined,
  cdnBase: base
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

// Toasts and confirmations need a <lingxi-toaster>. A page without one (the one-line chat bubble,
// the host site, whose first screen has no toast to show) gets one at the end of <body> when the
// first toast or confirmation is raised (they wait in the shared stores meanwhile); it goes again
// if the page brings its own.
const TOASTER = 'lingxi-toaster'
/** null: none needed yet; an element: the one added here; false: the page has its own. */
let toaster: Element | null | false = null

function addToaster(): void {
  if (toaster !== null || !document.body) return
  if (document.querySelector(TOASTER)) {
    toaster = false
    return
  }
  toaster = document.createElement(TOASTER)
  document.body.append(toaster)
  importTag(TOASTER)
}
addEventListener('lingxi-toast', addToaster)
addEventListener('lingxi-confirm', addToaster)

/** Imports the chunks of every undefined `lingxi-*` element under `root` (a node or a tag name). */
function load(root: string | ParentNode = document): Promise<unknown> {
  if (typeof root === 'string') return importTag(root)
  const tags = new Set<string>()
  if (root instanceof Element && !customElements.get(root.localName)) tags.add(root.localName)
  for (const el of root.querySelectorAll(':not(:defined)')) tags.add(el.localName)
  const found: Element[] = [...root.querySelectorAll(TOASTER)]
  if (root instanceof Element && root.localName === TOASTER) found.push(root)
  if (found.some((el) => el !== toaster)) {
    if (toaster) toaster.remove()
    toaster = false
  }
  return Promise.all([...tags].map(importTag))
}

/**
 * `lingxi('open')` / `lingxi('close')`: the `open` attribute of every bubble in the document (an
 * element whose code has not arrived keeps it), plus a window event for bubbles inside shadow
 * roots, which a document query cannot reach.
 */
async function bubbles(command: 'open' | 'close'): Promise<void> {
  if (document.readyState === 'loading') await new Promise((r) => addEventListener('DOMContentLoaded', r, { once: true }))
  for (const el of document.querySelectorAll('lingxi-chat[mode=bubble]')) el.toggleAttribute('open', command === 'open')
  dispatchEvent(new CustomEvent('lingxi-command', { detail: { command } }))
}

// The commands that need no Lingxi code run here; the others (login, logout) in the commands chunk.
const local: Record<string, (...args: unknown[]) => unknown> = {
  /** `lingxi('on', 'message', fn)` → fn(detail) on every `lingxi-message` event; returns an unsubscribe. */
  on(name, fn) {
    if (typeof name !== 'string' || typeof fn !== 'function') return
    const listener = (event: Event) => (fn as (d: unknown) => void)((event as CustomEvent).detail)
    addEventListener(`lingxi-${name}`, listener)
    return () => removeEventListener(`lingxi-${name}`, listener)
  },
  open: () => bubbles('open'),
  close: () => bubbles('close'),
  /** `lingxi('load', shadowRoot)`: the elements inside a root the loader cannot watch. */
  load: (root) => load(root as ParentNode)
}

const commands = () => importTag('lingxi-commands') as Promise<{ run(cmd: Command): unknown }>
const run = async ([name, ...args]: Command) => (local[name] ? local[name](...args) : (await commands()).run([name, ...args]))

// Calls queued before the loader arrived run first, in order.
const previous = (window as unknown as { lingxi?: Lingxi }).lingxi
const queued: Command[] = Array.from(previous?.q ?? [], (args) => Array.from(args) as Command)

const lingxi: Lingxi = (...args) => run(args as Command)
lingxi.load = load
// `lingxi.chat.send(text)` … = `lingxi('send', text)` (commands.ts, but open and close).
lingxi.chat = new Proxy({} as NonNullable<Lingxi['chat']>, { get: (_, name) => (arg?: unknown) => run([name as string, arg]) })
// `lingxi.session()` (who is logged in) and `lingxi.identify(assertion)` (partner single sign-on), in the commands chunk.
for (const name of ['session', 'identify'] as const) lingxi[name] = (arg?: unknown) => run([name, arg])
lingxi.version = '1'
lingxi.ready = (async () => {
  for (const cmd of queued) await run(cmd)
  // On every lingxi-* element, then on document, bubbling to window (like the login, logout and error events).
  for (const el of document.querySelectorAll('*')) if (el.localName.startsWith('lingxi-')) el.dispatchEvent(new CustomEvent('lingxi-ready'))
  document.dispatchEvent(new CustomEvent('lingxi-ready', { bubbles: true }))
  previous?.r?.()
})()
;(window as unknown as { lingxi: Lingxi }).lingxi = lingxi

load()
// `data-chat="bubble"`: the commands chunk adds that chat, the other data-* as its attributes.
if (data.chat) run(['add', { ...data }])
new MutationObserver((records) => {
  for (const r of records)
    r.addedNodes.forEach((n) => {
      if (n.nodeType === 1) load(n as Element)
    })
}).observe(document.documentElement, { childList: true, subtree: true })
