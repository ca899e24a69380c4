import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { Admin } from './admin'

defineElement('lingxi-admin', Admin, { tab: 'string' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-admin': LingxiElement & {
      /** users (default), cards, packages, orders or audit. */
      tab?: string
    }
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-admin': ElementAttributes
    }
  }
}
