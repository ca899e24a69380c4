import { defineElement, type ElementAttributes } from '../../ui/define'
import { Music } from './music'

defineElement('lingxi-music', Music, { mini: 'boolean' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-music': HTMLElement & {
      /** Only the compact player bar. */
      mini: boolean
    }
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-music': ElementAttributes
    }
  }
}
