import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { Music } from './music'

defineElement('lingxi-music', Music, { mini: 'boolean', share: 'string' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-music': LingxiElement & {
      /** Only the compact player bar. */
      mini: boolean
      /** A share token: the read-only page of that shared song (no login). */
      share: string
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
