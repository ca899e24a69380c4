import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { ImageHost } from './image-host'

defineElement('lingxi-image-host', ImageHost)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-image-host': LingxiElement
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-image-host': ElementAttributes
    }
  }
}
