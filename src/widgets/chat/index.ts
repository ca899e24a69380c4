export { Chat, type ChatProps } from './chat'
export { ChatView, type ChatViewProps } from './chat-view'
export { Composer, type ComposerProps } from './composer'
export { EVENT_CLOSE, EVENT_MESSAGE, EVENT_OPEN, type ReplyDetail } from './events'
