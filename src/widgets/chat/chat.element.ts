import { defineElement, type ElementAttributes, type LingxiElement } from '../../ui/define'
import { Chat } from './chat'
import type { ChatRequest, PageInfo } from './state'

type ChatElement = HTMLElementTagNameMap['lingxi-chat']

/** send() / prefill(): a new request the conversation carries out once; a bubble opens for it. */
function ask(el: ChatElement, request: ChatRequest) {
  el.request = request
  el.toggleAttribute('open', true)
}

defineElement(
  'lingxi-chat',
  Chat,
  {
    mode: 'string',
    topicId: 'string',
    externalControls: 'boolean',
    open: 'boolean',
    position: 'string',
    offset: 'string',
    icon: 'string',
    color: 'string',
    greeting: 'string',
    label: 'string',
    starters: 'json',
    welcome: 'string',
    locale: 'string',
    pageContext: 'string',
    context: 'json',
    request: 'json'
  },
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
      },
      send(text?: unknown) {
        ask(this as ChatElement, { send: String(text) })
      },
      prefill(text?: unknown) {
        ask(this as ChatElement, { prefill: String(text) })
      },
      destroy() {
        this.remove()
      }
    }
  }
)

declare global {
  interface HTMLElementTagNameMap {
    'lingxi-chat': LingxiElement & {
      mode?: 'inline' | 'bubble' | string
      topicId?: string
      externalControls?: boolean
      /** Bubble: the panel is open (reflects the `open` attribute). */
      open: boolean
      position?: 'bottom-right' | 'bottom-left' | 'right' | 'left' | string
      /** Bubble: the launcher's distance from its corner in px, `24` or `24 96` (side, bottom). */
      offset?: string
      /** Bubble: an image URL for the launcher. */
      icon?: string
      color?: string
      greeting?: string
      label?: string
      /** Questions offered in an empty conversation (JSON array in the attribute). */
      starters?: string[]
      /** The line under the greeting of an empty conversation. */
      welcome?: string
      /** `zh-CN` (default) or `en`. */
      locale?: string
      /** `off`: no page context with the questions. */
      pageContext?: string
      /** Sent with the next questions instead of the page's title and URL. */
      context?: PageInfo
      /** Internal: what send() and prefill() asked. */
      request?: ChatRequest
      /** Bubble: opens the panel. */
      show(): void
      /** Bubble: closes the panel. */
      hide(): void
      /** Bubble: opens or closes the panel. */
      toggle(): void
      /** Sends a question (a bubble opens; a visitor is asked to log in first, then it goes). */
      send(text: string): void
      /** Puts a text in the question field without sending it (a bubble opens). */
      prefill(text: string): void
      /** Removes the element from the page (its launcher and panel go with it). */
      destroy(): void
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
