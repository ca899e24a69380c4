import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { Orders } from './orders'

defineElement('lingxi-orders', Orders, { quality: 'boolean', view: 'string', activityId: 'string', sessionId: 'string', basePath: 'string' })

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-orders': LingxiElement & {
      /** The quality platform (优质接单平台): quality activities only. */
      quality: boolean
      /** 'list' (default), 'mine' or 'detail'. */
      view?: string
      /** detail: the activity and session shown. */
      activityId?: string
      sessionId?: string
      /** Where the platform lives on this site (default /orders, or /miracleOrders with quality). */
      basePath?: string
    }
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-orders': ElementAttributes
    }
  }
}
