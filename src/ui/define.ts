import r2wc from '@r2wc/react-to-web-component'
import type { ComponentType } from 'react'
import { startSession } from '../core'
import { adoptStyles } from './styles'

type PropKind = 'string' | 'number' | 'boolean' | 'json'

// r2wc's own state slots (@r2wc/core), used to fix its attribute handling below.
const R2WC_PROPS = Symbol.for('r2wc.props')
const R2WC_RENDER = Symbol.for('r2wc.render')

const attributeName = (prop: string) => prop.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
const propertyName = (attr: string) => attr.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/** What every Lingxi component receives from its element: the shadow root it renders into. */
export interface ElementProps {
  container?: ShadowRoot
}

/**
 * Registers a React component as a `lingxi-*` custom element in an open shadow root with the
 * shared stylesheet. Guards double definition (two bundles on a page), and keeps properties that
 * a page set before the element was defined (r2wc would otherwise lose them).
 */
export function defineElement<P extends object>(
  tag: string,
  component: ComponentType<P & ElementProps>,
  props: Record<string, PropKind> = {},
): void {
  if (typeof customElements === 'undefined' || customElements.get(tag)) return
  const Base = r2wc(component as ComponentType<P>, { shadow: 'open', props: props as never }) as unknown as {
    new (): HTMLElement & { connectedCallback(): void; attributeChangedCallback(n: string, o: string | null, v: string | null): void }
  }
  const names = Object.keys(props)
  const booleans = new Set(names.filter((n) => props[n] === 'boolean').map(attributeName))
  class LingxiElement extends Base {
    constructor() {
      super()
      adoptStyles(this.shadowRoot!)
      for (const name of booleans) this.attributeChangedCallback(name, null, this.getAttribute(name))
    }
    /**
     * r2wc ignores a removed attribute and reads a bare boolean attribute (`<lingxi-login button>`)
     * as false; HTML means presence. Both are handled here, the rest is r2wc's.
     */
    attributeChangedCallback(name: string, old: string | null, value: string | null) {
      const state = this as unknown as Record<symbol, Record<string, unknown>> & Record<symbol, () => void>
      const field = propertyName(name)
      if (booleans.has(name) || value === null) {
        if (booleans.has(name)) state[R2WC_PROPS]![field] = value !== null && value !== 'false'
        else delete state[R2WC_PROPS]![field]
        if (this.isConnected) state[R2WC_RENDER]!()
        return
      }
      super.attributeChangedCallback(name, old, value)
    }
    connectedCallback() {
      for (const name of names) {
        if (Object.prototype.hasOwnProperty.call(this, name)) {
          const value = (this as Record<string, unknown>)[name]
          delete (this as Record<string, unknown>)[name]
          ;(this as Record<string, unknown>)[name] = value
        }
      }
      startSession()
      super.connectedCallback()
    }
  }
  customElements.define(tag, LingxiElement)
}

/** Dispatches a `lingxi-*` event from the element that hosts `container` (bubbling, composed). */
export function emit(container: ShadowRoot | undefined, name: string, detail?: unknown): void {
  const target: EventTarget = container?.host ?? window
  target.dispatchEvent(new CustomEvent(name, { bubbles: true, composed: true, detail }))
}
