import type { ChatShare } from '@lingxi/server/wire'
import { siteHref } from '../../../ui/boot'
import { call } from '../state'

export type { ChatShare }

export const createShare = (topicId: string) => call<ChatShare>('share/create', { topicId })
export const revokeShare = (shareId: string) => call<null>('share/revoke', { shareId })
export const listShares = (topicId?: string) =>
  call<{ list: ChatShare[]; total: number }>('share/list', { ...(topicId ? { topicId } : {}), pageNum: 1, pageSize: 100 })

/** The link to a share page: on Lingxi's site (the API's origin when embedded elsewhere). */
export function shareUrl(path: string): string {
  return new URL(siteHref(path), location.href).href
}
