import type { AuthInfo } from '../../auth/sessions.js'
import type { ChatRuntime } from '../../replies/runtime.js'
import { startToolReply, type ToolReply } from '../../replies/tool-reply.js'
import type { Db } from '../../db/database.js'
import type { HotListItem } from './service.js'
import type { HotSource } from './types.js'

export const INTERPRET_TOPIC_NAME = '热点解读'

export const INTERPRET_SYSTEM_PROMPT =
  '你是灵犀的热点解读助手。用简体中文回答，语气客观、简洁。只依据用户给出的信息解读，不确定的地方直接说明，不编造人物、数据或细节。'

/** The question sent for one item: what it is, then a short commentary, within about 300 characters. */
export function interpretPrompt(source: HotSource, item: HotListItem): string {
  const lines = [
    '请解读下面这条热点：先用两三句话说明它在讲什么，再给出一两点简短的评论或背景。全文不超过 300 字。',
    '',
    `来源：${source.name}${source.demo ? '（示例数据，不是真实新闻）' : ''}`,
    `标题：${item.title}`
  ]
  const desc = item.desc.replace(/^示例数据( · )?/, '')
  if (desc) lines.push(`简介：${desc}`)
  if (item.hot !== null) lines.push(`热度：${item.hot}`)
  lines.push(`链接：${item.url}`)
  return lines.join('\n')
}

export type InterpretResult = ToolReply

/**
 * Starts a chat reply about one item in the account's 热点解读 topic (made on first use): the
 * same rows, stream and charge as a message sent in chat.
 */
export function startInterpretation(input: {
  db: Db
  runtime: ChatRuntime
  now: () => number
  auth: AuthInfo
  source: HotSource
  item: HotListItem
}): Promise<InterpretResult> {
  return startToolReply({
    ...input,
    topicName: INTERPRET_TOPIC_NAME,
    systemPrompt: INTERPRET_SYSTEM_PROMPT,
    question: interpretPrompt(input.source, input.item),
    tooLong: '这条热点太长'
  })
}
