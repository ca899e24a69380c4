import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { Toaster } from './toaster'

defineElement('lingxi-toaster', Toaster)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-toaster': LingxiElement
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-toaster': ElementAttributes
    }
  }
}
