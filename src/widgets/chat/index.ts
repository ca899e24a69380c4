export { Chat, ChatView, type ChatProps } from './chat'
export { Composer, type ComposerProps } from './composer'
