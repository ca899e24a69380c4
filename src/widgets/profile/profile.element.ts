import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { Profile } from './profile'

defineElement('lingxi-profile', Profile)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-profile': LingxiElement
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-profile': ElementAttributes
    }
  }
}
