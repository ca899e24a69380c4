import { randomUUID } from 'node:crypto'
import { and, desc, eq, or, isNull, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '../../db/database.js'
import { chatMessages, chatRoles, chatTopics } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { assertTexts, type Moderator, NO_MODERATION } from '../../moderation/index.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, literalNumber, optionalText, requiredText } from '../../http/fields.js'
import { endStreaming } from '../../replies/accounting.js'
import { countTokens } from '../../replies/context.js'
import type { ModelEntry } from '../../replies/models.js'
import { requireTopic, toTopic } from './repo.js'
import type { ChatRuntime } from '../../replies/runtime.js'
import { topicSchema } from './wire.js'

export const CHAT_PERMISSION = 'AI_TOOLS_CHAT'
export const CHAT_BASE = '/api/v1/ai-chat'
export const DEFAULT_TOPIC_NAME = '新对话'
export const ROLE_NOT_FOUND = '角色不存在或已删除'

const tag = 'chat'

export const modelField = requiredText('model', { max: 100 })
const temperatureField = z.number({ error: 'temperature 必须是数字' }).min(0, 'temperature 不能小于 0').max(2, 'temperature 不能大于 2')

/** A model users may pick now, or 40000001. */
export async function requireModel(runtime: ChatRuntime, id: string): Promise<ModelEntry> {
  const model = await runtime.models.find(id)
  if (!model) throw new ApiError(40000001, `模型「${id}」不可用，请重新选择模型`)
  return model
}

/** Stops every streaming reply of a topic (before it is cleared or deleted) and waits for them. */
export async function stopTopicReplies(api: Api, runtime: ChatRuntime, accountId: string, topicId: string): Promise<void> {
  const rows = await api.db
    .select({ requestId: chatMessages.requestId })
    .from(chatMessages)
    .where(and(eq(chatMessages.topicId, topicId), eq(chatMessages.status, 'streaming')))
  await Promise.all(rows.map((r) => (r.requestId ? runtime.stop(accountId, r.requestId) : undefined)))
}

/** topic/list's read, on every chat page: built and prepared once per database, not per request. */
function prepareTopicList(db: Db) {
  const t = chatTopics
  return db
    .select({
      id: t.id,
      name: t.name,
      topFlag: t.topFlag,
      updatedAt: t.updatedAt,
      createdAt: t.createdAt,
      roleId: t.roleId,
      roleName: t.roleName,
      roleAvatar: t.roleAvatar,
      model: t.model,
      temperature: t.temperature,
      contextEnabled: t.contextEnabled
    })
    .from(t)
    .where(eq(t.accountId, sql.placeholder('accountId')))
    .orderBy(desc(t.topFlag), desc(t.updatedAt), desc(t.seq))
    .prepare('lingxi_topic_list')
}
const topicLists = new WeakMap<Db, ReturnType<typeof prepareTopicList>>()

export function registerTopicRoutes(api: Api, runtime: ChatRuntime, moderator: Moderator = NO_MODERATION): void {
  const { db, now } = api
  const path = (p: string) => `${CHAT_BASE}/${p}`
  const topicId = idField('topicId')

  defineRoute(
    api,
    path('topic/create'),
    {
      tag,
      summary: 'New topic; with a role, its name and prompt, and its welcome message as the first reply',
      body: z.object({ name: optionalText('name', { max: 50 }), roleId: idField('roleId').optional(), model: modelField.optional() }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: topicSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      await assertTexts(moderator, accountId, [{ kind: 'name', text: body.name, source: 'chat.topic-name', what: '话题名称' }])
      const site = await runtime.models.read()
      const model = body.model === undefined ? site.defaultModel : (await requireModel(runtime, body.model)).id
      let role: typeof chatRoles.$inferSelect | undefined
      if (body.roleId !== undefined) {
        ;[role] = await db
          .select()
          .from(chatRoles)
          .where(and(eq(chatRoles.id, body.roleId), or(isNull(chatRoles.accountId), eq(chatRoles.accountId, accountId))))
        if (!role) throw new ApiError(40400001, ROLE_NOT_FOUND)
      }
      const at = new Date(now())
      const id = randomUUID()
      const welcome = role?.welcomeMessage?.trim() ? role.welcomeMessage : undefined
      const welcomeTokens = welcome ? await countTokens(welcome) : 0
      const row = await db.transaction(async (tx) => {
        const [topic] = await tx
          .insert(chatTopics)
          .values({
            id,
            accountId,
            name: body.name || role?.name || DEFAULT_TOPIC_NAME,
            // Unnamed: its first exchange names it (titles.ts).
            titleSource: body.name ? 'user' : 'auto',
            topFlag: 0,
            roleId: role?.id ?? null,
            roleName: role?.name ?? null,
            roleAvatar: role?.avatar ?? null,
            systemPrompt: role?.systemPrompt ?? null,
            model,
            temperature: site.defaultTemperature,
            contextEnabled: site.contextEnabled ? 1 : 0,
            createdAt: at,
            updatedAt: at
          })
          .returning()
        if (welcome) {
          await tx.insert(chatMessages).values({
            id: randomUUID(),
            accountId,
            topicId: id,
            role: 'assistant',
            content: welcome,
            status: 'complete',
            contentTokens: welcomeTokens,
            createdAt: at,
            updatedAt: at
          })
        }
        return topic!
      })
      return toTopic(row)
    }
  )

  defineRoute(
    api,
    path('topic/list'),
    {
      tag,
      summary: 'Topics of the account: pinned first, then most recently updated',
      body: z.object({}),
      auth: true,
      permission: CHAT_PERMISSION,
      response: z.array(topicSchema)
    },
    async ({ auth }) => {
      let list = topicLists.get(db)
      if (!list) {
        list = prepareTopicList(db)
        topicLists.set(db, list)
      }
      return (await list.execute({ accountId: auth.account.id })).map(toTopic)
    }
  )

  async function update(accountId: string, id: string, values: Partial<typeof chatTopics.$inferInsert>) {
    const [row] = await db
      .update(chatTopics)
      .set(values)
      .where(and(eq(chatTopics.id, id), eq(chatTopics.accountId, accountId)))
      .returning()
    if (!row) throw new ApiError(40400001, '对话不存在或已删除')
    return toTopic(row)
  }

  defineRoute(
    api,
    path('topic/configs/save'),
    {
      tag,
      summary: "Change a topic's model, temperature (0–2) or context switch",
      body: z.object({
        topicId,
        model: modelField.optional(),
        temperature: temperatureField.optional(),
        contextEnabled: literalNumber('contextEnabled', [0, 1]).optional()
      }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: topicSchema
    },
    async ({ body, auth }) => {
      await requireTopic(db, auth.account.id, body.topicId)
      if (body.model !== undefined) await requireModel(runtime, body.model)
      return update(auth.account.id, body.topicId, {
        ...(body.model !== undefined ? { model: body.model } : {}),
        ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
        ...(body.contextEnabled !== undefined ? { contextEnabled: body.contextEnabled } : {}),
        updatedAt: new Date(now())
      })
    }
  )

  defineRoute(
    api,
    path('topic/configs/context/switch'),
    { tag, summary: 'Toggle whether history is sent upstream', body: z.object({ topicId }), auth: true, permission: CHAT_PERMISSION, response: topicSchema },
    async ({ body, auth }) => {
      const topic = await requireTopic(db, auth.account.id, body.topicId)
      return update(auth.account.id, topic.id, { contextEnabled: topic.contextEnabled === 1 ? 0 : 1, updatedAt: new Date(now()) })
    }
  )

  defineRoute(
    api,
    path('topic/top/switch'),
    { tag, summary: 'Pin or unpin a topic', body: z.object({ topicId }), auth: true, permission: CHAT_PERMISSION, response: topicSchema },
    async ({ body, auth }) => {
      const topic = await requireTopic(db, auth.account.id, body.topicId)
      return update(auth.account.id, topic.id, { topFlag: topic.topFlag === 1 ? 0 : 1 })
    }
  )

  defineRoute(
    api,
    path('topic/name/edit'),
    {
      tag,
      summary: 'Rename a topic (1–50 characters)',
      body: z.object({ topicId, name: requiredText('name', { max: 50 }) }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: topicSchema
    },
    async ({ body, auth }) => {
      await assertTexts(moderator, auth.account.id, [{ kind: 'name', text: body.name, source: 'chat.topic-name', what: '话题名称' }])
      // A name the user gave is never replaced by an automatic title.
      return update(auth.account.id, body.topicId, { name: body.name, titleSource: 'user', updatedAt: new Date(now()) })
    }
  )

  defineRoute(
    api,
    path('topic/del'),
    {
      tag,
      summary: 'Delete a topic and its messages (streaming replies are stopped first)',
      body: z.object({ topicId }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: z.null()
    },
    async ({ body, auth }) => {
      const topic = await requireTopic(db, auth.account.id, body.topicId)
      await stopTopicReplies(api, runtime, auth.account.id, topic.id)
      // A reply sent meanwhile goes with the topic; its hold goes back first.
      await db.transaction(async (tx) => {
        await endStreaming(tx, eq(chatMessages.topicId, topic.id), new Date(api.now()))
        await tx.delete(chatTopics).where(and(eq(chatTopics.id, topic.id), eq(chatTopics.accountId, auth.account.id)))
      })
      return null
    }
  )
}
