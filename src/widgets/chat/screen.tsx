import type { ScreenProps } from '../manifest'
import './chat.element'
// The page shows the conversation and its topic list at once (a bubble loads them when opened):
// as static imports they are part of the page's chunks, which the host preloads together with
// the page, rather than requests made one after another once the element has rendered.
import './chat-view'
import './topic-list'

/**
 * /chat: the chat element filling the page area (its messages scroll, the page does not). On
 * phones the host header's buttons drive it (`external-controls`). Loaded with the route, so the
 * first screen of other pages never pays for the chat.
 */
export default function ChatScreen(_: ScreenProps) {
  // Lingxi's own page: no page context to send with the questions.
  return <lingxi-chat external-controls="" page-context="off" className="block h-full" />
}
