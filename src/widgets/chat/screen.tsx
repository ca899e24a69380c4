import type { ScreenProps } from '../manifest'
import './chat.element'

/**
 * /chat: the chat element filling the page area (its messages scroll, the page does not). On
 * phones the host header's buttons drive it (`external-controls`). Loaded with the route, so the
 * first screen of other pages never pays for the chat.
 */
export default function ChatScreen(_: ScreenProps) {
  return <lingxi-chat external-controls="" className="block h-full" />
}
