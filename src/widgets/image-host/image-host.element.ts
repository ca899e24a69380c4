import { defineElement, type ElementAttributes } from '../../ui/define'
import { ImageHost } from './image-host'

defineElement('lingxi-image-host', ImageHost)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-image-host': HTMLElement
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-image-host': ElementAttributes
    }
  }
}
