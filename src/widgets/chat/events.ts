/** detail: none. A chat bubble opened (launcher, `open`, `show()`, `lingxi('open')`). */
export const EVENT_OPEN = 'lingxi-open'
/** detail: none. A chat bubble closed. */
export const EVENT_CLOSE = 'lingxi-close'
/** detail `{topicId, messageId, content}`: a reply asked from this element finished. */
export const EVENT_MESSAGE = 'lingxi-message'
/** Sent by `lingxi('open')` / `lingxi('close')` to every bubble on the page (detail `{command}`). */
export const EVENT_COMMAND = 'lingxi-command'

/** A reply that finished (status complete). */
export interface ReplyDetail {
  topicId: string
  messageId: string
  content: string
}

declare global {
  /** Events of `<lingxi-chat>`: dispatched on the element, bubbling and composed (they reach window). */
  interface GlobalEventHandlersEventMap {
    'lingxi-open': CustomEvent<null>
    'lingxi-close': CustomEvent<null>
    'lingxi-message': CustomEvent<ReplyDetail>
  }
  interface WindowEventMap {
    /** The loader ran the calls queued before it arrived (`lingxi.ready` resolves at the same time). */
    'lingxi-ready': Event
    'lingxi-command': CustomEvent<{ command: 'open' | 'close' }>
  }
}

/**
 * Dispatches a `lingxi-*` event from the element that hosts `container` (bubbling, composed), or
 * from window without one. Kept here rather than taken from ui/define so that the npm build of
 * the chat does not pull in the custom-element machinery.
 */
export function emitFrom(container: ShadowRoot | undefined, name: string, detail: unknown = null): void {
  const target: EventTarget | undefined = container?.host ?? (typeof window === 'undefined' ? undefined : window)
  target?.dispatchEvent(new CustomEvent(name, { bubbles: true, composed: true, detail }))
}
