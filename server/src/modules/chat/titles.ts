import { and, asc, eq, isNull } from 'drizzle-orm'
import { z } from 'zod'
import { type ChatMessage, type ChatTopic, chatMessages, chatTopics } from '../../db/schema.js'
import type { Api } from '../../http/api.js'
import { defineRoute } from '../../http/api.js'
import { idField } from '../../http/fields.js'
import type { Logger } from '../../logger.js'
import type { ChatSettings } from '../../config.js'
import { createOpenAiProvider } from '../../replies/providers/openai.js'
import type { ChatProvider } from '../../replies/providers/provider.js'
import type { ChatRuntime } from '../../replies/runtime.js'
import { onReplySettled } from '../../replies/settle.js'
import { requireTopic, toTopic } from './repo.js'
import { topicSchema } from './wire.js'

/**
 * Automatic topic titles (issue 20). A topic created without a name (title_source 'auto') is
 * named once, when the first reply of it completes: at once after the first question (cut to
 * TITLE_MAX characters), then, with CHAT_TITLE_MODEL, by that model in the background. The model
 * is the operator's cost: nothing is charged to the user (it reads at most QUESTION_MAX characters
 * and writes at most a few tokens). A name the user gave (rename, or at creation) is never
 * replaced: every write is conditional on title_source = 'auto', and a rename sets 'user'.
 * Nothing here can fail a reply: the settle hook's errors are logged (replies/settle.ts).
 */
export const TITLE_MAX = 20
const QUESTION_MAX = 500
const MODEL_TIMEOUT_MS = 15_000
/** How long `topic/title` waits for a title the model is still writing. */
const WAIT_MS = 12_000
/** Model titles written at once by this node; more fall back to the question's title. */
const MAX_RUNNING = 8
/** Topics remembered as needing no title; the memory is cleared when it is full. */
const NAMED_MAX = 100_000

const PROMPT = '你是标题助手。根据用户的第一条消息，为这段对话起一个简短的中文标题，不超过 12 个字。只输出标题本身，不要标点、引号或解释。'

/** The first line of a question, markdown marks and spaces folded, cut to TITLE_MAX characters ('' when nothing is left). */
export function titleFromQuestion(text: string): string {
  const line =
    text
      .replace(/```[\s\S]*?(```|$)/g, ' ')
      .split(/\r?\n/)
      .map((l) => l.replace(/^[\s#>*\-+\d.、]+/, '').trim())
      .find((l) => l !== '') ?? ''
  const plain = line
    .replace(/[`*_~[\]()<>]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
  return cut(plain)
}

/** A model's answer as a title: the first line, without quotes, a "标题：" label or the final punctuation. */
export function titleFromModel(text: string): string {
  const line =
    text
      .replace(/<think>[\s\S]*?<\/think>/g, '')
      .trim()
      .split(/\r?\n/)[0] ?? ''
  const plain = line
    .replace(/^\s*(标题|title)\s*[:：]\s*/i, '')
    .replace(/^[\s"'“”‘’「」『』《》【】]+|[\s"'“”‘’「」『』《》【】。．.！!？?，,；;：:]+$/g, '')
    .trim()
  return cut(plain)
}

function cut(text: string): string {
  const chars = [...text]
  return chars.length <= TITLE_MAX ? text : `${chars.slice(0, TITLE_MAX - 1).join('')}…`
}

export interface Titles {
  /** The topic, once the title its model is writing is saved (or WAIT_MS passed). */
  settled(accountId: string, topicId: string): Promise<ChatTopic>
  /** Waits for the titles being written (shutdown). */
  close(): Promise<void>
}

export function createTitles(deps: {
  api: Api
  runtime: ChatRuntime
  settings: ChatSettings
  logger: Logger
  /** Replaces the OpenAI-compatible provider (tests). */
  provider?: ChatProvider
}): Titles {
  const { api, runtime, settings, logger } = deps
  const { db } = api
  /** Model titles being written here, by topic. */
  const running = new Map<string, Promise<void>>()
  /**
   * Topics that need no automatic title: titled, or named by the user. Neither ever needs one
   * again, so a reply settled in them (every reply after the first) costs no query here: it would
   * otherwise read the first question and try the update before the reply's final event.
   */
  const named = new Set<string>()
  const remember = (topicId: string) => {
    if (named.size >= NAMED_MAX) named.clear()
    named.add(topicId)
  }
  const provider =
    deps.provider ??
    (settings.openai
      ? createOpenAiProvider({
          baseUrl: settings.openai.baseUrl,
          apiKey: settings.openai.apiKey,
          firstByteTimeoutMs: Math.min(settings.firstByteTimeoutMs, MODEL_TIMEOUT_MS),
          idleTimeoutMs: Math.min(settings.idleTimeoutMs, MODEL_TIMEOUT_MS),
          label: '标题模型',
          logger
        })
      : undefined)

  async function ask(question: string): Promise<string> {
    const model = settings.titleModel ? await runtime.models.find(settings.titleModel) : undefined
    if (model?.provider !== 'openai' || !provider) return ''
    let text = ''
    for await (const chunk of provider.stream({
      model: { ...model, maxTokens: 40 },
      messages: [
        { role: 'system', content: PROMPT },
        { role: 'user', content: [...question].slice(0, QUESTION_MAX).join('') }
      ],
      temperature: 0.3,
      signal: AbortSignal.timeout(MODEL_TIMEOUT_MS)
    })) {
      if (chunk.type === 'content') text += chunk.text
      if (text.length > 200) break
    }
    return titleFromModel(text)
  }

  async function byModel(topic: ChatTopic, question: string, fallback: string): Promise<void> {
    try {
      const title = await ask(question)
      if (!title || title === fallback) return
      await db
        .update(chatTopics)
        .set({ name: title })
        .where(and(eq(chatTopics.id, topic.id), eq(chatTopics.titleSource, 'auto'), eq(chatTopics.name, fallback)))
    } catch (error) {
      logger.warn('the title model failed; the topic keeps its first question as title', { error, topicId: topic.id })
    }
  }

  /** After a reply is saved: a complete answer to a question names its topic, once. */
  async function onSettled(row: ChatMessage): Promise<void> {
    if (row.role !== 'assistant' || row.status !== 'complete' || !row.parentId || named.has(row.topicId)) return
    const [first] = await db
      .select({ content: chatMessages.content })
      .from(chatMessages)
      .where(and(eq(chatMessages.topicId, row.topicId), eq(chatMessages.role, 'user')))
      .orderBy(asc(chatMessages.seq))
      .limit(1)
    const question = first?.content ?? ''
    const fallback = titleFromQuestion(question)
    const at = new Date(api.now())
    const [topic] = await db
      .update(chatTopics)
      .set(fallback ? { name: fallback, titledAt: at } : { titledAt: at })
      .where(and(eq(chatTopics.id, row.topicId), eq(chatTopics.titleSource, 'auto'), isNull(chatTopics.titledAt)))
      .returning()
    remember(row.topicId)
    if (!topic || !fallback || !settings.titleModel || running.size >= MAX_RUNNING) return
    const done = byModel(topic, question, fallback).finally(() => running.delete(topic.id))
    running.set(topic.id, done)
  }
  onReplySettled(db, 'chat-titles', onSettled)

  return {
    async close() {
      await Promise.allSettled([...running.values()])
    },
    async settled(accountId, topicId) {
      const topic = await requireTopic(db, accountId, topicId)
      const pending = running.get(topic.id)
      if (!pending) return topic
      let timer: NodeJS.Timeout | undefined
      await Promise.race([pending, new Promise<void>((resolve) => (timer = setTimeout(resolve, WAIT_MS)))])
      clearTimeout(timer)
      return requireTopic(db, accountId, topicId)
    }
  }
}

/** `topic/title`: the topic once its automatic title is made (the client asks after a topic's first reply). */
export function registerTitleRoutes(api: Api, titles: Titles, permission: string, base: string): void {
  defineRoute(
    api,
    `${base}/topic/title`,
    {
      tag: 'chat',
      summary: 'A topic, once the title its first exchange gives it is saved (waits up to 12 s for the title model)',
      body: z.object({ topicId: idField('topicId') }),
      auth: true,
      permission,
      response: topicSchema
    },
    async ({ body, auth }) => toTopic(await titles.settled(auth.account.id, body.topicId))
  )
}
