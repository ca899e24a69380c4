import { defineElement, type ElementAttributes } from '../../ui/define'
import { Login } from './login'

defineElement('lingxi-login', Login, { button: 'boolean' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-login': HTMLElement & { button?: boolean }
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-login': ElementAttributes
    }
  }
}
