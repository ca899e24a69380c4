import { rateLimit } from '../../http/rate-limit.js'
import { and, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm'
import { z } from 'zod'
import { chatMessages, chatTopics } from '../../db/schema.js'
import { type Api, defineRoute } from '../../http/api.js'
import { requiredText, wholeNumber } from '../../http/fields.js'
import type { Kv } from '../../kv/kv.js'

/**
 * Search over the account's own topic titles and message text (docs/decisions/0031-chat-search.md).
 * A substring match (strpos on lower()), so a 2-character Chinese term matches inside a sentence,
 * on PGlite and PostgreSQL alike. Messages are read newest first through chat_messages_account_idx
 * (account_id, seq), at most SCAN_WINDOW of them per request: a page ends at PAGE_SIZE hits or at
 * the end of its window, and `nextCursor` continues from there ("load more"), so no request reads
 * more than a bounded slice of a large history. Every query is bound to the caller's account.
 */
export const SEARCH_MAX = 100
export const PAGE_SIZE = 20
export const SCAN_WINDOW = 5000
const TOPIC_HITS = 20
export const SEARCHES_PER_MINUTE = 60
const SNIPPET_BEFORE = 24
const SNIPPET_AFTER = 60

export const searchHitSchema = z
  .object({
    messageId: z.string(),
    topicId: z.string(),
    topicName: z.string(),
    role: z.enum(['user', 'assistant']),
    /** Text around the first match, whitespace folded; the match is at [matchStart, matchStart + matchLength). */
    snippet: z.string(),
    matchStart: z.number(),
    matchLength: z.number(),
    createTime: z.number()
  })
  .meta({ id: 'ChatSearchHit' })

export const searchResultSchema = z
  .object({
    /** Topics whose title contains the term (first page only). */
    topics: z.array(z.object({ topicId: z.string(), name: z.string(), updateTime: z.number() })),
    messages: z.array(searchHitSchema),
    /** Pass back as `cursor` to read older messages; null when the whole history was read. */
    nextCursor: z.number().nullable()
  })
  .meta({ id: 'ChatSearchResult' })

/** The text around the first occurrence of `term` (case-insensitive), with the match's place in it. */
export function snippetOf(content: string, term: string): { snippet: string; matchStart: number; matchLength: number } {
  const text = content.replace(/\s+/g, ' ')
  const at = text.toLowerCase().indexOf(term.toLowerCase())
  if (at < 0) return { snippet: [...text].slice(0, SNIPPET_BEFORE + SNIPPET_AFTER).join(''), matchStart: 0, matchLength: 0 }
  const start = Math.max(0, at - SNIPPET_BEFORE)
  const end = Math.min(text.length, at + term.length + SNIPPET_AFTER)
  const head = start > 0 ? '…' : ''
  return {
    snippet: `${head}${text.slice(start, end)}${end < text.length ? '…' : ''}`,
    matchStart: head.length + at - start,
    matchLength: term.length
  }
}

export function registerSearchRoutes(api: Api, kv: Kv, permission: string, base: string): void {
  const { db } = api
  defineRoute(
    api,
    `${base}/search`,
    {
      tag: 'chat',
      summary: 'Search my topic titles and messages (newest first; `cursor` continues; 60 a minute)',
      body: z.object({
        keyword: requiredText('搜索内容', { max: SEARCH_MAX }),
        cursor: wholeNumber('cursor', 1, Number.MAX_SAFE_INTEGER).optional()
      }),
      auth: true,
      permission,
      response: searchResultSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      await rateLimit(kv, `chat-search:${accountId}`, SEARCHES_PER_MINUTE, 60_000, '搜索')
      const term = body.keyword.toLowerCase()
      const found = sql`strpos(lower(${chatMessages.content}), ${term}) > 0`
      const mine = eq(chatMessages.accountId, accountId)
      const before = body.cursor === undefined ? undefined : lt(chatMessages.seq, body.cursor)

      // The window: the SCAN_WINDOW newest messages before the cursor (an index-only walk).
      const [floor] = await db
        .select({ seq: chatMessages.seq })
        .from(chatMessages)
        .where(and(mine, before))
        .orderBy(desc(chatMessages.seq))
        .offset(SCAN_WINDOW - 1)
        .limit(1)
      const rows = await db
        .select({
          id: chatMessages.id,
          seq: chatMessages.seq,
          topicId: chatMessages.topicId,
          role: chatMessages.role,
          content: chatMessages.content,
          createdAt: chatMessages.createdAt
        })
        .from(chatMessages)
        .where(and(mine, before, floor ? gte(chatMessages.seq, floor.seq) : undefined, inArray(chatMessages.role, ['user', 'assistant']), found))
        .orderBy(desc(chatMessages.seq))
        .limit(PAGE_SIZE + 1)
      const page = rows.slice(0, PAGE_SIZE)
      const nextCursor = rows.length > PAGE_SIZE ? page.at(-1)!.seq : (floor?.seq ?? null)

      const topicIds = [...new Set(page.map((r) => r.topicId))]
      const names = topicIds.length
        ? await db
            .select({ id: chatTopics.id, name: chatTopics.name })
            .from(chatTopics)
            .where(and(eq(chatTopics.accountId, accountId), inArray(chatTopics.id, topicIds)))
        : []
      const nameOf = new Map(names.map((t) => [t.id, t.name]))

      const topics =
        body.cursor === undefined
          ? await db
              .select({ topicId: chatTopics.id, name: chatTopics.name, updatedAt: chatTopics.updatedAt })
              .from(chatTopics)
              .where(and(eq(chatTopics.accountId, accountId), sql`strpos(lower(${chatTopics.name}), ${term}) > 0`))
              .orderBy(desc(chatTopics.updatedAt))
              .limit(TOPIC_HITS)
          : []

      return {
        topics: topics.map((t) => ({ topicId: t.topicId, name: t.name, updateTime: t.updatedAt.getTime() })),
        messages: page
          .filter((r) => nameOf.has(r.topicId))
          .map((r) => ({
            messageId: r.id,
            topicId: r.topicId,
            topicName: nameOf.get(r.topicId)!,
            role: r.role as 'user' | 'assistant',
            ...snippetOf(r.content, body.keyword),
            createTime: r.createdAt.getTime()
          })),
        nextCursor
      }
    }
  )
}
