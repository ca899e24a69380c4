import { defineElement, type ElementAttributes } from '../../ui/define'
import { Toaster } from './toaster'

defineElement('lingxi-toaster', Toaster)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-toaster': HTMLElement
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-toaster': ElementAttributes
    }
  }
}
