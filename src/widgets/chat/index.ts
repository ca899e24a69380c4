export { Chat, type ChatProps } from './chat'
export { EVENT_CLOSE, EVENT_MESSAGE, EVENT_OPEN, type ReplyDetail } from './events'
