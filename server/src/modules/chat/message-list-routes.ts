import { and, eq, inArray } from 'drizzle-orm'
import { z } from 'zod'
import type { Tx } from '../../db/database.js'
import { chatMessages, chatTopics } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, pageFields } from '../../http/fields.js'
import { endStreaming } from '../../replies/accounting.js'
import type { ChatRuntime } from '../../replies/runtime.js'
import { withAttachments } from './attachments.js'
import { activePath, loadTree, type Node, newestUnder, type Tree, versionOf } from './branches.js'
import { lockTopic } from './reply-start.js'
import { REQUEST_NOT_FOUND, findReplyByRequest, requireMessage, requireTopic, toMessage } from './repo.js'
import { CHAT_BASE, CHAT_PERMISSION, stopTopicReplies } from './topic-routes.js'
import { messageSchema, paged } from './wire.js'

/** Stop takes any string: an id that is not a UUID simply does not exist (40400001). */
const requiredRequestId = idField('requestId').transform((id) => id.toLowerCase())

/**
 * Reading, deleting and stopping a topic's messages (sending, editing and switching versions are
 * in message-routes.ts). `replyCodes`: the codes of every tool whose replies stream here; each may
 * stop its own.
 */
export function registerMessageListRoutes(api: Api, runtime: ChatRuntime, replyCodes: readonly string[]): void {
  const { db, now } = api
  const path = (p: string) => `${CHAT_BASE}/${p}`
  const tag = 'chat'

  defineRoute(
    api,
    path('topic/messages'),
    {
      tag,
      summary: "The messages of a topic's branch shown, newest first; a message with other versions says which it is (`version` of `versions`)",
      body: z.object({ topicId: idField('topicId'), ...pageFields }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: paged(messageSchema)
    },
    async ({ body, auth }) => {
      const topic = await requireTopic(db, auth.account.id, body.topicId)
      const tree = await loadTree(db, topic)
      const shown = activePath(tree).reverse()
      const offset = (body.pageNum - 1) * body.pageSize
      const ids = shown.slice(offset, offset + body.pageSize).map((n) => n.id)
      const rows = ids.length === 0 ? [] : await db.select().from(chatMessages).where(inArray(chatMessages.id, ids))
      const byId = new Map(rows.map((r) => [r.id, r]))
      const list = ids.flatMap((id) => {
        const row = byId.get(id)
        return row ? [{ ...toMessage(row), ...versionOf(tree, id) }] : []
      })
      return { list: await withAttachments(db, list), total: shown.length, pageNum: body.pageNum, pageSize: body.pageSize }
    }
  )

  defineRoute(
    api,
    path('topic/message/get'),
    { tag, summary: 'One message', body: z.object({ messageId: idField('messageId') }), auth: true, permission: CHAT_PERMISSION, response: messageSchema },
    async ({ body, auth }) => (await withAttachments(db, [toMessage(await requireMessage(db, auth.account.id, body.messageId))]))[0]
  )

  defineRoute(
    api,
    path('topic/message/del'),
    {
      tag,
      summary: 'Delete one message (a streaming reply is stopped first)',
      body: z.object({ messageId: idField('messageId') }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: z.null()
    },
    async ({ body, auth }) => {
      const message = await requireMessage(db, auth.account.id, body.messageId)
      if (message.status === 'streaming' && message.requestId) await runtime.stop(auth.account.id, message.requestId)
      const mine = and(eq(chatMessages.id, message.id), eq(chatMessages.accountId, auth.account.id))!
      await db.transaction(async (tx) => {
        const topic = await lockTopic(tx, message.topicId)
        await endStreaming(tx, mine, new Date(now()))
        if (topic) await unlink(tx, await loadTree(tx, topic), message.id)
        await tx.delete(chatMessages).where(mine)
      })
      return null
    }
  )

  defineRoute(
    api,
    path('topic/message/clear'),
    {
      tag,
      summary: "Delete all of a topic's messages (streaming replies are stopped first)",
      body: z.object({ topicId: idField('topicId') }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: z.null()
    },
    async ({ body, auth }) => {
      const topic = await requireTopic(db, auth.account.id, body.topicId)
      await stopTopicReplies(api, runtime, auth.account.id, topic.id)
      // A reply sent meanwhile is deleted too; its hold goes back first.
      await db.transaction(async (tx) => {
        await endStreaming(tx, eq(chatMessages.topicId, topic.id), new Date(now()))
        await tx.delete(chatMessages).where(eq(chatMessages.topicId, topic.id))
        await tx.update(chatTopics).set({ leafId: null }).where(eq(chatTopics.id, topic.id))
      })
      return null
    }
  )

  defineRoute(
    api,
    path('topic/message/stop'),
    {
      tag,
      summary: 'Stop a reply: it ends as interrput (or keeps the final status it already had)',
      body: z.object({ requestId: requiredRequestId }),
      // Any tool whose replies stream here may stop its own (hot news' AI 解读, order drafts).
      auth: true,
      permission: replyCodes,
      response: messageSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      const reply = await findReplyByRequest(db, accountId, body.requestId)
      if (!reply) throw new ApiError(40400001, REQUEST_NOT_FOUND)
      if (reply.status !== 'streaming') return toMessage(reply)
      await runtime.stop(accountId, body.requestId)
      return toMessage(await requireMessage(db, accountId, reply.id))
    }
  )
}

/**
 * Takes a message out of its branch before it is deleted: the messages after it follow the one
 * before it instead, and a branch that ended with it ends with the newest message left there.
 */
async function unlink(tx: Tx, tree: Tree, id: string): Promise<void> {
  const before = tree.parent.get(id)
  if (before === undefined) return
  const after = (tree.children.get(id) ?? []).map((n) => n.id)
  if (after.length > 0) await tx.update(chatMessages).set({ prevId: before }).where(inArray(chatMessages.id, after))
  if (tree.leaf?.id === id) {
    const leaf = [newestUnder(tree, before, id), ...after.map((c) => newestUnder(tree, c))].reduce<Node | undefined>(
      (best, n) => (n && (!best || n.seq > best.seq) ? n : best),
      undefined
    )
    await tx
      .update(chatTopics)
      .set({ leafId: leaf?.id ?? null })
      .where(eq(chatTopics.id, tree.topicId))
  }
}
