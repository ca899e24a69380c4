import { createContext } from 'react'
import type { SendResult } from './state'

/** Given every send and regenerate of a chat view, so the element can announce finished replies. */
export const ReplyContext = createContext<((result: SendResult) => void) | null>(null)
