import { defineElement, type ElementAttributes } from '../../ui/define'
import { Profile } from './profile'

defineElement('lingxi-profile', Profile)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-profile': HTMLElement
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-profile': ElementAttributes
    }
  }
}
