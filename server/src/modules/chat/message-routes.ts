import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { AuthInfo } from '../../auth/sessions.js'
import type { Tx } from '../../db/database.js'
import { chatMessages, chatTopics } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField } from '../../http/fields.js'
import { rateLimit } from '../../http/rate-limit.js'
import type { Kv } from '../../kv/kv.js'
import { assertTexts, type Moderator } from '../../moderation/index.js'
import { endStreaming, requireTokens } from '../../replies/accounting.js'
import { countTokens } from '../../replies/context.js'
import type { ChatRuntime } from '../../replies/runtime.js'
import { attachmentsOf, copyAttachments, linkAttachments, unsentAttachments } from './attachments.js'
import { activePath, loadTree, newestUnder, pathTo, versionsOf } from './branches.js'
import { pageContextField } from './page-context.js'
import { lockTopic, previous, replyStarter } from './reply-start.js'
import { findReplyByRequest, MESSAGE_NOT_FOUND, requireMessage, requireTopic } from './repo.js'
import { CHAT_BASE, CHAT_PERMISSION, requireModel, stopTopicReplies } from './topic-routes.js'
import { sendResultSchema, switchResultSchema } from './wire.js'

export const MAX_CONTENT_CHARS = 20_000

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const contentField = z
  .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'content 不能为空' : 'content 格式不正确') })
  .refine((text) => text.trim() !== '', 'content 不能为空')
  .refine((text) => text.length <= MAX_CONTENT_CHARS, `content 不能超过 ${MAX_CONTENT_CHARS} 个字符`)

const requestIdField = z
  .string({ error: 'requestId 格式不正确' })
  .trim()
  .regex(UUID, 'requestId 必须是 UUID')
  .transform((id) => id.toLowerCase())

/** Edits (each a new reply) and version switches per account per minute. */
export const EDITS_PER_MINUTE = 30
export const SWITCHES_PER_MINUTE = 120

/**
 * A question and the reply that answers it, in one statement: the rows in this order, so `seq`
 * orders them too. The question belongs to the reply's account and topic and has its time.
 */
function insertQuestionAndReply(
  tx: Tx,
  question: { id: string; content: string; prevId: string | null; contentTokens: number },
  reply: typeof chatMessages.$inferInsert
) {
  const { accountId, topicId, createdAt } = reply
  return tx.insert(chatMessages).values([{ ...question, accountId, topicId, role: 'user', status: 'complete', createdAt, updatedAt: createdAt }, reply])
}

/** Sending, editing, switching versions and regenerating (reading and deleting: message-list-routes.ts). */
export function registerMessageRoutes(
  api: Api,
  runtime: ChatRuntime,
  moderator: Moderator,
  { kv, attachmentsPerMessage }: { kv: Kv; attachmentsPerMessage: number }
): void {
  const { db } = api
  const path = (p: string) => `${CHAT_BASE}/${p}`
  const tag = 'chat'

  const requireAllowance = (auth: AuthInfo) => requireTokens(db, auth.account.id)

  const startReply = replyStarter(api, runtime)

  defineRoute(
    api,
    path('topic/message/send'),
    {
      tag,
      summary: 'Send a message; the reply is generated on the server and streamed at sse/subscribe/{requestId}',
      body: z.object({
        topicId: idField('topicId'),
        content: contentField,
        requestId: requestIdField.optional(),
        /** Uploaded at ATTACHMENT_UPLOAD_PATH and not yet sent (modules/chat/attachments.ts). */
        attachmentIds: z
          .array(idField('attachmentIds'), { error: 'attachmentIds 格式不正确' })
          .max(attachmentsPerMessage, `一条消息最多 ${attachmentsPerMessage} 个附件`)
          .optional(),
        /** The partner page's title and URL (embedded widgets): capped, moderated, used for this request only. */
        page: pageContextField
      }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: sendResultSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      // Independent reads go together: on the embedded database each waits its turn anyway, but
      // without a round trip of this thread between them.
      const [topic, existing] = await Promise.all([
        requireTopic(db, accountId, body.topicId),
        body.requestId ? findReplyByRequest(db, accountId, body.requestId) : undefined
      ])
      if (existing) return previous(existing, topic.id)
      // Checked before anything is held, stored or sent upstream.
      await assertTexts(moderator, accountId, [
        { kind: 'chat', text: body.content, source: 'chat.message', what: '消息' },
        { kind: 'chat', text: body.page?.title, source: 'chat.page', what: '网页标题' },
        { kind: 'chat', text: body.page?.url, source: 'chat.page', what: '网页地址' }
      ])
      const messageId = randomUUID()
      const contentTokens = await countTokens(body.content)
      const [attachments, tree] = await Promise.all([unsentAttachments(db, accountId, body.attachmentIds ?? []), loadTree(db, topic)])
      // What the files bring to the model is checked like the message: their names and their text.
      await assertTexts(
        moderator,
        accountId,
        attachments.flatMap((a) => [
          { kind: 'name' as const, text: a.name, source: 'chat.attachment', what: '附件名' },
          { kind: 'chat' as const, text: a.text, source: 'chat.attachment', what: '附件内容' }
        ])
      )
      // The question follows the end of the branch shown.
      const branch = activePath(tree)
      return startReply({
        auth,
        topic,
        question: body.content,
        branch,
        requestId: body.requestId,
        parentId: messageId,
        attachments,
        page: body.page,
        async write(tx, reply) {
          // Another send went in meanwhile (a second tab): this one follows it, on the same branch.
          const locked = await lockTopic(tx, topic.id)
          const moved = locked?.leafId && locked.leafId !== topic.leafId
          await insertQuestionAndReply(
            tx,
            { id: messageId, content: body.content, prevId: moved ? locked.leafId : (branch.at(-1)?.id ?? topic.id), contentTokens },
            reply
          )
          await linkAttachments(tx, attachments, messageId, reply.createdAt as Date)
        }
      })
    }
  )

  defineRoute(
    api,
    path('topic/message/edit'),
    {
      tag,
      summary:
        'Edit a question and ask it again: the edited question is a new version beside the old one (whose replies stay, a branch to switch back to), and its reply streams at sse/subscribe/{requestId}. Replies of the topic still streaming are stopped first.',
      body: z.object({ messageId: idField('messageId'), content: contentField, requestId: requestIdField.optional() }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: sendResultSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      await rateLimit(kv, `chat-edit:${accountId}`, EDITS_PER_MINUTE, 60_000, '编辑消息')
      const old = await requireMessage(db, accountId, body.messageId)
      if (body.requestId) {
        const existing = await findReplyByRequest(db, accountId, body.requestId)
        if (existing) return previous(existing, old.topicId)
      }
      if (old.role !== 'user') throw new ApiError(40000001, '只能编辑自己发送的消息')
      const topic = await requireTopic(db, accountId, old.topicId)
      await requireModel(runtime, topic.model)
      await requireAllowance(auth)
      await assertTexts(moderator, accountId, [{ kind: 'chat', text: body.content, source: 'chat.message', what: '消息' }])
      // A reply still streaming would go on writing into the branch being left: it ends first
      // (interrupted, charged for what it wrote) and stays with the old version.
      await stopTopicReplies(api, runtime, accountId, topic.id)
      const tree = await loadTree(db, topic)
      if (!tree.byId.has(old.id)) throw new ApiError(40400001, MESSAGE_NOT_FOUND)
      const before = tree.parent.get(old.id)!
      const messageId = randomUUID()
      const contentTokens = await countTokens(body.content)
      // The new version keeps the files the question was asked with.
      const files = await attachmentsOf(db, old.id)
      return startReply({
        auth,
        topic,
        question: body.content,
        attachments: files,
        branch: pathTo(tree, before),
        requestId: body.requestId,
        parentId: messageId,
        async write(tx, reply) {
          await insertQuestionAndReply(tx, { id: messageId, content: body.content, prevId: before, contentTokens }, reply)
          await copyAttachments(tx, files, messageId, reply.createdAt as Date)
        }
      })
    }
  )

  defineRoute(
    api,
    path('topic/message/switch'),
    {
      tag,
      summary:
        'Show another version of a message (1-based `version` among the messages that follow the same one) and the branch last written after it; the answer is the new end of the branch shown',
      body: z.object({
        messageId: idField('messageId'),
        version: z.number({ error: 'version 必须是数字' }).int('version 必须是整数').min(1, 'version 不能小于 1').max(10_000, 'version 超出范围')
      }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: switchResultSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      await rateLimit(kv, `chat-switch:${accountId}`, SWITCHES_PER_MINUTE, 60_000, '切换版本')
      const message = await requireMessage(db, accountId, body.messageId)
      const topic = await requireTopic(db, accountId, message.topicId)
      const tree = await loadTree(db, topic)
      const versions = versionsOf(tree, message.id)
      const target = versions[body.version - 1]
      if (!target) throw new ApiError(40000001, `这条消息只有 ${Math.max(1, versions.length)} 个版本`)
      const leaf = newestUnder(tree, target.id)!
      await db
        .update(chatTopics)
        .set({ leafId: leaf.id })
        .where(and(eq(chatTopics.id, topic.id), eq(chatTopics.accountId, accountId)))
      return { topicId: topic.id, messageId: target.id, leafId: leaf.id }
    }
  )

  defineRoute(
    api,
    path('topic/message/regenerate'),
    {
      tag,
      summary: 'Write the last reply of the branch shown again for the same question: the new reply is a version beside the old one (‹ 1/2 ›), which stays',
      body: z.object({ replyId: idField('replyId'), requestId: requestIdField.optional() }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: sendResultSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      if (body.requestId) {
        const existing = await findReplyByRequest(db, accountId, body.requestId)
        if (existing) return previous(existing, existing.topicId)
      }
      const reply = await requireMessage(db, accountId, body.replyId)
      if (reply.role !== 'assistant') throw new ApiError(40000001, 'replyId 不是助手的回复')
      const topic = await requireTopic(db, accountId, reply.topicId)
      const tree = await loadTree(db, topic)
      const shown = activePath(tree)
      const last = shown.filter((n) => n.role === 'assistant').at(-1)
      if (last?.id !== reply.id) throw new ApiError(40000001, '只能重新生成最后一条回复')
      const [parent] = reply.parentId
        ? await db
            .select()
            .from(chatMessages)
            .where(and(eq(chatMessages.id, reply.parentId), eq(chatMessages.accountId, accountId)))
        : []
      if (!parent || tree.parent.get(reply.id) !== parent.id) throw new ApiError(40000001, '这条回复没有对应的提问，不能重新生成')
      await requireModel(runtime, topic.model)
      await requireAllowance(auth)
      if (reply.status === 'streaming' && reply.requestId) await runtime.stop(accountId, reply.requestId)
      return startReply({
        auth,
        topic,
        question: parent.content,
        attachments: await attachmentsOf(db, parent.id),
        branch: pathTo(tree, tree.parent.get(parent.id)),
        requestId: body.requestId,
        parentId: parent.id,
        async write(tx, next) {
          // Stopped above; should it still be streaming (its node did not answer), its hold goes
          // back. The old reply stays, as the version before the new one.
          await endStreaming(tx, eq(chatMessages.id, reply.id), next.createdAt as Date)
          await tx.insert(chatMessages).values(next)
        }
      })
    }
  )
}
