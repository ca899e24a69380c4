import { formatTime } from '../../../core/time'
import { type ChatMessage, call, type Topic } from '../state'

/** At most this many messages are exported (the newest); a longer topic says so at the top. */
export const MAX_EXPORT_MESSAGES = 2000
const PAGE = 100

/** What an export needs of a message (a shared snapshot's messages have no ids). */
export type ExportMessage = Pick<ChatMessage, 'role' | 'content' | 'createTime' | 'status'> & { thinking?: string | null }

export interface ExportedTopic {
  name: string
  model?: string
  roleName?: string | null
  /** Oldest first. */
  messages: ExportMessage[]
  /** Messages the topic had beyond those exported. */
  left: number
}

/** The topic's finished messages, oldest first, fetched 100 at a time (the newest MAX_EXPORT_MESSAGES). */
export async function loadTopic(topic: Topic): Promise<ExportedTopic> {
  const newest: ChatMessage[] = []
  let total = 0
  for (let pageNum = 1; newest.length < MAX_EXPORT_MESSAGES; pageNum++) {
    const page = await call<{ list: ChatMessage[]; total: number }>('topic/messages', { topicId: topic.topicId, pageNum, pageSize: PAGE })
    total = page.total
    newest.push(...page.list)
    if (page.list.length < PAGE || newest.length >= total) break
  }
  const kept = newest.slice(0, MAX_EXPORT_MESSAGES).filter((m) => m.status !== 'streaming' && (m.content || m.thinking) && m.role !== 'system')
  return { name: topic.name, model: topic.model, roleName: topic.roleName, messages: kept.reverse(), left: Math.max(0, total - newest.length) }
}

const NOTES: Partial<Record<string, string>> = { interrput: '（已中断）', timeout: '（回复超时）', error: '（回复失败）' }

/** The topic as a Markdown document: a title, then each message under a heading of who and when. */
export function toMarkdown(topic: ExportedTopic, at: number, assistant = '灵犀'): string {
  const lines = [`# ${topic.name.replace(/\n/g, ' ')}`, '']
  const about = [`导出于 ${formatTime(at)}`, topic.model && `模型：${topic.model}`, topic.roleName && `角色：${topic.roleName}`].filter(Boolean)
  lines.push(`> ${about.join(' · ')}`, '')
  if (topic.left > 0) lines.push(`> 仅导出最近的 ${topic.messages.length} 条消息（更早的 ${topic.left} 条未包含）`, '')
  for (const m of topic.messages) {
    const who = m.role === 'user' ? '我' : (topic.roleName ?? assistant)
    lines.push(`## ${who} · ${formatTime(m.createTime)}${NOTES[m.status] ?? ''}`, '')
    if (m.thinking) lines.push(m.thinking.replace(/^/gm, '> '), '')
    lines.push(m.content.trim(), '')
  }
  return `${lines.join('\n').trimEnd()}\n`
}

/** A file name from a topic name: no path or reserved characters, at most 60 characters. */
export function fileName(name: string, ext: string): string {
  const safe =
    name
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
      .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, ' ')
      .replace(/\s+/g, ' ')
      .replace(/^[.\s]+/, '')
      .trim()
      .slice(0, 60) || '灵犀对话'
  return `${safe}.${ext}`
}

/** Saves a blob as a download (an object URL on a temporary link). */
export function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.style.display = 'none'
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

export async function exportMarkdown(topic: Topic): Promise<void> {
  const data = await loadTopic(topic)
  save(new Blob([toMarkdown(data, Date.now())], { type: 'text/markdown;charset=utf-8' }), fileName(topic.name, 'md'))
}
