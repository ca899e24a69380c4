import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { Roles } from './roles'

defineElement('lingxi-roles', Roles)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-roles': LingxiElement
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-roles': ElementAttributes
    }
  }
}
