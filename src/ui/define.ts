import { createElement, type ComponentType, type DetailedHTMLProps, type HTMLAttributes } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { startSession } from '../core/auth'
import { currentSession, type SessionInfo } from '../core/stores'
import { adoptStyles } from './styles'

/** The page's loader (src/loader/loader.ts): `window.lingxi`. */
declare const lingxi: { identify(assertion: string): Promise<SessionInfo | null> }

type PropKind = 'string' | 'number' | 'boolean' | 'json'

const attributeName = (prop: string) => prop.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

/** What every Lingxi component receives from its element: the shadow root it renders into. */
export interface ElementProps {
  container?: ShadowRoot
}

/**
 * What every `lingxi-*` element has beyond HTMLElement (each tag's HTMLElementTagNameMap entry
 * builds on it): `document.querySelector('lingxi-painting')!.session` types on every tag.
 */
export interface LingxiElement extends HTMLElement {
  /** Who is logged in (`{accountId, phone, nickName, avatarUrl}`, the phone as the server shows it to this page), or null. */
  readonly session: SessionInfo | null
  /** Logs a partner's user in with the assertion its backend signed (partner single sign-on); resolves the session. */
  identify(assertion: string): Promise<SessionInfo | null>
}

/** What a `lingxi-*` tag takes in JSX (a screen of the host renders the elements): HTML attributes and its own. */
export type ElementAttributes = DetailedHTMLProps<HTMLAttributes<HTMLElement>, HTMLElement> & Record<string, unknown>

export interface DefineOptions {
  /** Methods of the element (`el.show()`), called with the element as `this`. */
  methods?: Record<string, (this: HTMLElement) => unknown>
}

/** An attribute's value as the prop's type; undefined when the attribute is absent (booleans: false). */
function parse(kind: PropKind, value: string | null): unknown {
  if (kind === 'boolean') return value !== null && value !== 'false'
  if (value === null) return undefined
  if (kind === 'number') return parseFloat(value)
  if (kind === 'json') {
    try {
      return JSON.parse(value)
    } catch {
      return undefined
    }
  }
  return value
}

/**
 * Registers a React component as a `lingxi-*` custom element in an open shadow root with the
 * shared stylesheet (React on npm, preact/compat in the CDN build).
 *
 * - Attributes are props: `topic-id` → `topicId`, parsed as the prop's kind; a boolean attribute
 *   means presence (`<lingxi-login button>`), and a removed attribute removes the prop.
 * - Properties of the same names reflect to the attributes (a boolean as presence, so CSS
 *   `[open]` never matches a closed element); a `json` property is kept as the object given.
 * - A property a page set before the element was defined is kept (the upgrade step).
 * - Renders after a change are batched into one, a microtask later: a component may reflect its
 *   own state on the host (the chat bubble's `open`) from an effect without re-entering a render.
 * - An element moved elsewhere in the page keeps its state (unmounted only if it stays out).
 * - Double definition is a no-op (two bundles on one page).
 */
export function defineElement<P extends object>(
  tag: string,
  component: ComponentType<P & ElementProps>,
  props: Record<string, PropKind> = {},
  options: DefineOptions = {}
): void {
  if (typeof customElements === 'undefined' || customElements.get(tag)) return
  const names = Object.keys(props)
  const propOf: Record<string, string> = Object.fromEntries(names.map((n) => [attributeName(n), n]))

  class LingxiElement extends HTMLElement {
    static observedAttributes = Object.keys(propOf)
    lxProps: Record<string, unknown> = {}
    lxRoot: Root | null = null
    lxQueued = false

    constructor() {
      super()
      adoptStyles(this.attachShadow({ mode: 'open' }), tag)
      for (const name of names) this.lxProps[name] = parse(props[name]!, this.getAttribute(attributeName(name)))
    }

    attributeChangedCallback(attr: string, _old: string | null, value: string | null) {
      const name = propOf[attr]
      if (!name) return
      this.lxProps[name] = parse(props[name]!, value)
      this.lxUpdate()
    }

    connectedCallback() {
      for (const name of names) {
        if (Object.hasOwn(this, name)) {
          const value = (this as Record<string, unknown>)[name]
          delete (this as Record<string, unknown>)[name]
          ;(this as Record<string, unknown>)[name] = value
        }
      }
      startSession()
      this.lxRender()
    }

    disconnectedCallback() {
      queueMicrotask(() => {
        if (this.isConnected || !this.lxRoot) return
        this.lxRoot.unmount()
        this.lxRoot = null
      })
    }

    lxUpdate() {
      if (this.lxQueued) return
      this.lxQueued = true
      queueMicrotask(() => {
        this.lxQueued = false
        this.lxRender()
      })
    }

    /** Who is logged in (`{accountId, phone, nickName, avatarUrl}`, the phone as the server shows it to this page), or null. */
    get session(): SessionInfo | null {
      return currentSession()
    }

    /**
     * Logs a partner's user in with the assertion its backend signed (partner single sign-on);
     * resolves the session. The page's loader does it (`lingxi.identify`, its commands chunk): the
     * fewest bytes on every element's first paint. Without the loader (the npm package) call
     * `identify` of the package instead.
     */
    identify(assertion: string): Promise<SessionInfo | null> {
      return lingxi.identify(assertion)
    }

    lxRender() {
      if (!this.isConnected) return
      this.lxRoot ??= createRoot(this.shadowRoot!)
      this.lxRoot.render(createElement(component as ComponentType<Record<string, unknown>>, { ...this.lxProps, container: this.shadowRoot! }))
    }
  }

  for (const name of names) {
    const kind = props[name]!
    const attr = attributeName(name)
    Object.defineProperty(LingxiElement.prototype, name, {
      configurable: true,
      enumerable: true,
      get(this: LingxiElement) {
        return this.lxProps[name]
      },
      set(this: LingxiElement, value: unknown) {
        if (kind === 'boolean') return this.toggleAttribute(attr, Boolean(value) && value !== 'false')
        if (kind === 'json') {
          this.lxProps[name] = value
          return this.lxUpdate()
        }
        if (value === null || value === undefined) this.removeAttribute(attr)
        else this.setAttribute(attr, String(value))
      }
    })
  }
  Object.assign(LingxiElement.prototype, options.methods)
  customElements.define(tag, LingxiElement)
}
