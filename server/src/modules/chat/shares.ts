import { rateLimit } from '../../http/rate-limit.js'
import { randomBytes } from 'node:crypto'
import { and, count, desc, eq, inArray, notExists } from 'drizzle-orm'
import { z } from 'zod'
import { type ChatShare, chatMessages, chatShares, disabledAccounts, type SharedMessage } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, type AppContext, defineRoute } from '../../http/api.js'
import { clientAddress } from '../../http/client-address.js'
import { idField, pageFields, paged, readPage } from '../../http/fields.js'
import type { Kv } from '../../kv/kv.js'
import { activePath, loadTree } from './branches.js'
import { requireTopic } from './repo.js'
import { CHAT_BASE, CHAT_PERMISSION } from './topic-routes.js'
import { publicShareSchema, shareSchema } from './wire.js'

export const SHARE_NOT_FOUND = '分享不存在或已撤销'
/** Links per account (revoked ones do not count). */
export const MAX_SHARES = 200
/** A snapshot's size: beyond it the topic is too long to share (the Markdown export still works). */
export const MAX_SHARE_MESSAGES = 1000
export const MAX_SHARE_CHARS = 1_000_000
/** New links per account per hour; public reads per client address per minute. */
export const SHARES_PER_HOUR = 30
export const READS_PER_MINUTE = 120

const HOUR_MS = 3_600_000
const MINUTE_MS = 60_000
/** 18 random bytes as base64url: 24 characters, 144 bits. */
const SHARE_ID = /^[A-Za-z0-9_-]{24}$/

export const newShareId = () => randomBytes(18).toString('base64url')

/** The public page's address (on the site's origin) for a share id. */
export const sharePath = (id: string) => `/share/${id}`

function toShare(row: Omit<ChatShare, 'messages'>) {
  return {
    shareId: row.id,
    topicId: row.topicId,
    title: row.title,
    path: sharePath(row.id),
    messageCount: row.messageCount,
    createTime: row.createdAt.getTime()
  }
}

const tooLong = () => new ApiError(40000001, `对话过长，无法分享（最多 ${MAX_SHARE_MESSAGES} 条消息、${MAX_SHARE_CHARS / 10_000} 万字），可以导出为 Markdown`)

export interface ShareOptions {
  kv: Kv
  /** Trusted proxy hops before the client address (config.trustProxy). */
  trustProxy: number
}

/**
 * Share links: `share/create` copies a topic's finished messages into a snapshot with an
 * unguessable id; `share/get` shows a snapshot to anyone holding the id (no login, no owner, no
 * other topic); the owner lists and revokes them. Every answer is read from the database (API
 * answers are `no-store`), so a revoked link is a 404 at once on every node.
 */
export function registerShareRoutes(api: Api, { kv, trustProxy }: ShareOptions): void {
  const { db, now } = api
  const path = (p: string) => `${CHAT_BASE}/${p}`
  const tag = 'chat'
  const shareId = idField('shareId')

  defineRoute(
    api,
    path('share/create'),
    {
      tag,
      summary: 'Share a topic: a read-only snapshot of its messages now, public at /share/{shareId} until revoked',
      body: z.object({ topicId: idField('topicId') }),
      auth: true,
      permission: CHAT_PERMISSION,
      response: shareSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      const topic = await requireTopic(db, accountId, body.topicId)
      await rateLimit(kv, `share:create:${accountId}`, SHARES_PER_HOUR, HOUR_MS, '创建分享')
      const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(chatShares).where(eq(chatShares.accountId, accountId))
      if (n >= MAX_SHARES) throw new ApiError(40000001, `分享链接已达上限（${MAX_SHARES} 个），请先撤销不再需要的链接`)
      // The branch shown (edit and resend keep other versions aside: they are not shared); a reply
      // still being written is left out: the snapshot holds what was finished.
      const shown = activePath(await loadTree(db, topic)).filter((n) => n.status !== 'streaming' && (n.role === 'user' || n.role === 'assistant'))
      if (shown.length > MAX_SHARE_MESSAGES) throw tooLong()
      const found = shown.length
        ? await db
            .select({
              id: chatMessages.id,
              role: chatMessages.role,
              content: chatMessages.content,
              thinking: chatMessages.thinking,
              status: chatMessages.status,
              createdAt: chatMessages.createdAt
            })
            .from(chatMessages)
            .where(
              and(
                eq(chatMessages.topicId, topic.id),
                inArray(
                  chatMessages.id,
                  shown.map((n) => n.id)
                )
              )
            )
        : []
      const byId = new Map(found.map((r) => [r.id, r]))
      const rows = shown.flatMap((n) => byId.get(n.id) ?? [])
      const messages: SharedMessage[] = rows
        .filter((r) => r.content !== '' || r.thinking)
        .map((r) => ({
          role: r.role as SharedMessage['role'],
          content: r.content,
          thinking: r.thinking || null,
          status: r.status,
          createTime: r.createdAt.getTime()
        }))
      if (messages.length === 0) throw new ApiError(40000001, '对话还没有消息，无法分享')
      const chars = messages.reduce((sum, m) => sum + m.content.length + (m.thinking?.length ?? 0), 0)
      if (chars > MAX_SHARE_CHARS) throw tooLong()
      const [row] = await db
        .insert(chatShares)
        .values({
          id: newShareId(),
          accountId,
          topicId: topic.id,
          title: topic.name,
          roleName: topic.roleName,
          roleAvatar: topic.roleAvatar,
          messageCount: messages.length,
          messages,
          createdAt: new Date(now())
        })
        .returning()
      return toShare(row!)
    }
  )

  const listed = {
    id: chatShares.id,
    seq: chatShares.seq,
    accountId: chatShares.accountId,
    topicId: chatShares.topicId,
    title: chatShares.title,
    roleName: chatShares.roleName,
    roleAvatar: chatShares.roleAvatar,
    messageCount: chatShares.messageCount,
    createdAt: chatShares.createdAt
  }

  // Listing and revoking need a login only: someone whose chat permission was taken away can still
  // take their links down.
  defineRoute(
    api,
    path('share/list'),
    {
      tag,
      summary: 'My share links, newest first (of one topic when topicId is given)',
      body: z.object({ topicId: idField('topicId').optional(), ...pageFields }),
      auth: true,
      response: paged(shareSchema)
    },
    async ({ body, auth }) => {
      const where = and(eq(chatShares.accountId, auth.account.id), body.topicId === undefined ? undefined : eq(chatShares.topicId, body.topicId))
      return readPage(
        body,
        db.select({ n: count() }).from(chatShares).where(where),
        (limit, offset) => db.select(listed).from(chatShares).where(where).orderBy(desc(chatShares.seq)).limit(limit).offset(offset),
        (rows) => rows.map(toShare)
      )
    }
  )

  defineRoute(
    api,
    path('share/revoke'),
    { tag, summary: 'Revoke a share link of mine: the link answers 404 from now on', body: z.object({ shareId }), auth: true, response: z.null() },
    async ({ body, auth }) => {
      const gone = await db
        .delete(chatShares)
        .where(and(eq(chatShares.id, body.shareId), eq(chatShares.accountId, auth.account.id)))
        .returning({ id: chatShares.id })
      if (gone.length === 0) throw new ApiError(40400001, SHARE_NOT_FOUND)
      return null
    }
  )

  defineRoute(
    api,
    path('share/get'),
    {
      tag,
      summary: 'A shared topic as it was when shared, for anyone with the link (no login): title and messages, nothing of the owner',
      body: z.object({ shareId: z.string({ error: 'shareId 格式不正确' }).max(64, 'shareId 格式不正确') }),
      response: publicShareSchema
    },
    async ({ c, body }) => {
      await rateLimit(kv, `share:get:${clientAddress(c as AppContext, trustProxy)}`, READS_PER_MINUTE, MINUTE_MS, '访问')
      // A malformed id is just a link that does not exist.
      if (!SHARE_ID.test(body.shareId)) throw new ApiError(40400001, SHARE_NOT_FOUND)
      // An account an operator disabled shows nothing any more (its links come back if it is enabled).
      const [row] = await db
        .select()
        .from(chatShares)
        .where(
          and(
            eq(chatShares.id, body.shareId),
            notExists(db.select({ id: disabledAccounts.accountId }).from(disabledAccounts).where(eq(disabledAccounts.accountId, chatShares.accountId)))
          )
        )
      if (!row) throw new ApiError(40400001, SHARE_NOT_FOUND)
      return {
        shareId: row.id,
        title: row.title,
        roleName: row.roleName,
        roleAvatar: row.roleAvatar,
        createTime: row.createdAt.getTime(),
        messages: row.messages.map((m) => ({ role: m.role, content: m.content, thinking: m.thinking, status: m.status, createTime: m.createTime }))
      }
    }
  )
}
