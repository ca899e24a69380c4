import { randomUUID } from 'node:crypto'
import { and, asc, count, desc, eq, isNull, or } from 'drizzle-orm'
import { z } from 'zod'
import { accounts, type ChatPrompt, chatPrompts, chatRoles } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, requiredText } from '../../http/fields.js'

/**
 * Prompt shortcuts (issue 20): typing `/` in the composer lists the account's saved prompts and the
 * roles' prompts (public roles and the account's own). Saved prompts are private: every read and
 * write is bound to the caller's account, and another account's id answers 40400001.
 */
export const MAX_PROMPTS = 100
export const PROMPT_TITLE_MAX = 30
export const PROMPT_CONTENT_MAX = 2000
/** Roles offered in the list: the newest ones first, this many at most. */
const ROLE_PROMPTS = 50
export const PROMPT_NOT_FOUND = '提示词不存在或已删除'

export const promptSchema = z
  .object({ promptId: z.string(), title: z.string(), content: z.string(), createTime: z.number(), updateTime: z.number() })
  .meta({ id: 'ChatPrompt' })
export type Prompt = z.infer<typeof promptSchema>

export const promptListSchema = z
  .object({
    mine: z.array(promptSchema),
    /** The roles' system prompts, as starters: `title` is the role's name. */
    roles: z.array(z.object({ roleId: z.string(), title: z.string(), avatar: z.string(), content: z.string() }))
  })
  .meta({ id: 'ChatPromptList' })

const toPrompt = (row: ChatPrompt): Prompt => ({
  promptId: row.id,
  title: row.title,
  content: row.content,
  createTime: row.createdAt.getTime(),
  updateTime: row.updatedAt.getTime()
})

export function registerPromptRoutes(api: Api, permission: string, base: string): void {
  const { db, now } = api
  const tag = 'chat'

  defineRoute(
    api,
    `${base}/prompt/list`,
    {
      tag,
      summary: 'My saved prompts (newest first) and the roles’ prompts, for the `/` shortcut',
      body: z.object({}),
      auth: true,
      permission,
      response: promptListSchema
    },
    async ({ auth }) => {
      const accountId = auth.account.id
      const mine = await db.select().from(chatPrompts).where(eq(chatPrompts.accountId, accountId)).orderBy(desc(chatPrompts.seq)).limit(MAX_PROMPTS)
      const roles = await db
        .select({ roleId: chatRoles.id, title: chatRoles.name, avatar: chatRoles.avatar, content: chatRoles.systemPrompt })
        .from(chatRoles)
        .where(or(isNull(chatRoles.accountId), eq(chatRoles.accountId, accountId)))
        .orderBy(asc(chatRoles.seq))
        .limit(ROLE_PROMPTS)
      return { mine: mine.map(toPrompt), roles }
    }
  )

  defineRoute(
    api,
    `${base}/prompt/save`,
    {
      tag,
      summary: `Save a prompt: new without promptId (at most ${MAX_PROMPTS}), else edit my own`,
      body: z.object({
        promptId: idField('promptId').optional(),
        title: requiredText('标题', { max: PROMPT_TITLE_MAX }),
        content: requiredText('提示词内容', { max: PROMPT_CONTENT_MAX })
      }),
      auth: true,
      permission,
      response: promptSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      const at = new Date(now())
      if (body.promptId !== undefined) {
        const [row] = await db
          .update(chatPrompts)
          .set({ title: body.title, content: body.content, updatedAt: at })
          .where(and(eq(chatPrompts.id, body.promptId), eq(chatPrompts.accountId, accountId)))
          .returning()
        if (!row) throw new ApiError(40400001, PROMPT_NOT_FOUND)
        return toPrompt(row)
      }
      const row = await db.transaction(async (tx) => {
        // The account's row serializes its creations, so concurrent saves cannot pass the cap together.
        await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for('update')
        const [n] = await tx.select({ n: count() }).from(chatPrompts).where(eq(chatPrompts.accountId, accountId))
        if ((n?.n ?? 0) >= MAX_PROMPTS) throw new ApiError(40000001, `最多保存 ${MAX_PROMPTS} 条提示词，请先删除不用的`)
        const [created] = await tx
          .insert(chatPrompts)
          .values({ id: randomUUID(), accountId, title: body.title, content: body.content, createdAt: at, updatedAt: at })
          .returning()
        return created!
      })
      return toPrompt(row)
    }
  )

  defineRoute(
    api,
    `${base}/prompt/del`,
    { tag, summary: 'Delete one of my prompts', body: z.object({ promptId: idField('promptId') }), auth: true, permission, response: z.null() },
    async ({ body, auth }) => {
      const [row] = await db
        .delete(chatPrompts)
        .where(and(eq(chatPrompts.id, body.promptId), eq(chatPrompts.accountId, auth.account.id)))
        .returning({ id: chatPrompts.id })
      if (!row) throw new ApiError(40400001, PROMPT_NOT_FOUND)
      return null
    }
  )
}
