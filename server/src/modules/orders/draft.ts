import type { AuthInfo } from '../../auth/sessions.js'
import type { ChatRuntime } from '../../replies/runtime.js'
import { startToolReply } from '../../replies/tool-reply.js'
import type { Db } from '../../db/database.js'
import type { OrderActivity } from '../../db/schema.js'
import { PLATFORM_NAMES, type Platform } from './wire.js'

export const DRAFT_TOPIC_NAME = '接单文案'
export const DRAFT_SYSTEM_PROMPT =
  '你是灵犀的内容创作助手，帮助用户为推广活动撰写可以直接发布的文案。用简体中文写作，符合目标平台的风格，遵守活动要求，不夸大、不编造产品功效或数据。只输出文案正文。'

export function draftPrompt(activity: Pick<OrderActivity, 'title' | 'brief' | 'requirements' | 'platform'>, current: string): string {
  const lines = [
    `请为下面的活动写一篇发布在「${PLATFORM_NAMES[activity.platform as Platform] ?? activity.platform}」的文案。`,
    '',
    `活动：${activity.title}`,
    `活动简介：${activity.brief}`
  ]
  if (activity.requirements.trim()) lines.push(`发布要求：${activity.requirements}`)
  if (current.trim()) lines.push('', '我已经写了一部分，请在此基础上改写完善：', current.slice(0, 4000))
  return lines.join('\n')
}

/**
 * Starts a chat reply drafting an order's content in the account's 接单文案 topic (made on first
 * use): the same rows, stream and charge as a message sent in chat.
 */
export function startDraft(input: { db: Db; runtime: ChatRuntime; now: () => number; auth: AuthInfo; activity: OrderActivity; current: string }) {
  return startToolReply({
    ...input,
    topicName: DRAFT_TOPIC_NAME,
    systemPrompt: DRAFT_SYSTEM_PROMPT,
    question: draftPrompt(input.activity, input.current),
    tooLong: '活动简介太长'
  })
}
