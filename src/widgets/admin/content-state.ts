// The shapes of the 内容, 举报 and 审核日志 tabs (server/src/admin/http/{content,reports,moderation}.ts).

export type ContentList = 'gallery' | 'painting' | 'song' | 'image'
export type ContentKind = 'painting' | 'song' | 'image'

export interface ContentRow {
  kind: ContentKind
  itemId: string
  accountId: string
  ownerPhone: string
  ownerName: string
  title: string
  previewUrl: string | null
  published: boolean
  createTime: number
  takedown: { reason: string; createTime: number } | null
}

export interface ReportRow {
  id: number
  kind: ContentKind | 'reply'
  itemId: string
  reason: string
  excerpt: string
  status: 'open' | 'confirmed' | 'dismissed'
  reporterId: string
  reporterPhone: string | null
  ownerId: string | null
  ownerPhone: string | null
  takenDown: boolean
  note: string | null
  handledAt: number | null
  createTime: number
}

export interface ModerationLine {
  id: number
  kind: string
  source: string
  accountId: string | null
  accountPhone: string | null
  excerpt: string
  verdict: string
  provider: string | null
  rule: string | null
  failure: string | null
  createdAt: string
}

export const CONTENT_LISTS: { id: ContentList; label: string }[] = [
  { id: 'gallery', label: '画廊作品' },
  { id: 'painting', label: '全部绘画' },
  { id: 'song', label: '歌曲' },
  { id: 'image', label: '图床图片' }
]

export const KIND_LABEL: Record<string, string> = { painting: '绘画', song: '歌曲', image: '图片', reply: '对话回复' }

export const REPORT_STATUS: { id: ReportRow['status']; label: string }[] = [
  { id: 'open', label: '待处理' },
  { id: 'confirmed', label: '已确认' },
  { id: 'dismissed', label: '已驳回' }
]

/** Epoch milliseconds as an ISO string, for `when`. */
export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
