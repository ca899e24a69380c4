import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { Login } from './login'

defineElement('lingxi-login', Login, { button: 'boolean' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-login': LingxiElement & { button?: boolean }
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-login': ElementAttributes
    }
  }
}
