import { defineElement, type ElementAttributes } from '../../ui/define'
import { Roles } from './roles'

defineElement('lingxi-roles', Roles)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-roles': HTMLElement
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-roles': ElementAttributes
    }
  }
}
