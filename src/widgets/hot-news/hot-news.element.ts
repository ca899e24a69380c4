import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { HotNews } from './hot-news'

defineElement('lingxi-hot-news', HotNews, { source: 'string', externalControls: 'boolean' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-hot-news': LingxiElement & {
      /** The source to start on (a sourceId). */
      source?: string
      externalControls: boolean
    }
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-hot-news': ElementAttributes
    }
  }
}
