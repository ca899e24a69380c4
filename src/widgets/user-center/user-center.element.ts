import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { UserCenter } from './user-center'

defineElement('lingxi-user-center', UserCenter, { tab: 'string' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-user-center': LingxiElement
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-user-center': ElementAttributes
    }
  }
}
