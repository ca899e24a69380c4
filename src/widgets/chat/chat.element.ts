import { defineElement, type ElementAttributes } from '../../ui/define'
import { Chat } from './chat'

defineElement(
  'lingxi-chat',
  Chat,
  { mode: 'string', topicId: 'string', externalControls: 'boolean', open: 'boolean', position: 'string', color: 'string', greeting: 'string', label: 'string' },
  {
    methods: {
      show() {
        this.toggleAttribute('open', true)
      },
      hide() {
        this.toggleAttribute('open', false)
      },
      toggle() {
        this.toggleAttribute('open', !this.hasAttribute('open'))
      }
    }
  }
)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-chat': HTMLElement & {
      mode?: 'inline' | 'bubble' | string
      topicId?: string
      externalControls?: boolean
      /** Bubble: the panel is open (reflects the `open` attribute). */
      open: boolean
      position?: 'bottom-right' | 'bottom-left' | string
      color?: string
      greeting?: string
      label?: string
      /** Bubble: opens the panel. */
      show(): void
      /** Bubble: closes the panel. */
      hide(): void
      /** Bubble: opens or closes the panel. */
      toggle(): void
    }
  }
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-chat': ElementAttributes
    }
  }
}
