import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { Painting } from './painting'

defineElement('lingxi-painting', Painting, { view: 'string', prompt: 'string' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-painting': LingxiElement & {
      /** `mj` (default), `sd`, `helper` or `gallery`. */
      view?: 'mj' | 'sd' | 'helper' | 'gallery' | string
      /** A prompt to start /mj with. */
      prompt?: string
    }
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-painting': ElementAttributes
    }
  }
}
