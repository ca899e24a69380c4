import type { PublicChatShare } from '@lingxi/server/wire'
import { request } from '../../../core/api'

// The share page's one call, apart from the owner's (api.ts): the page is a host screen, and
// importing the chat's state for it would pull that into a chunk the chat element and the host share.

export type { PublicChatShare }

/** A shared topic, for anyone: sent without the bearer (the page is the same for everyone). */
export const readShare = (shareId: string, signal?: AbortSignal) => request<PublicChatShare>('/ai-chat/share/get', { shareId }, { token: null, signal })
