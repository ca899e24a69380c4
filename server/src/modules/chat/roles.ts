import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { and, asc, count, eq, exists, ilike, inArray, isNull, notInArray, or, type SQL, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '../../db/database.js'
import { type ChatRole, chatRoles, chatRoleTags, chatTags } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { assertTexts, type Moderator, NO_MODERATION } from '../../moderation/index.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, optionalText, pageFields, readPage, requiredText } from '../../http/fields.js'
import { paths } from '../../paths.js'
import { CHAT_BASE, ROLE_NOT_FOUND } from './topic-routes.js'
import { paged, type Role, roleSchema, tagSchema } from './wire.js'

/** Role-play endpoints accept either code (角色库 is named in refusals). */
export const ROLE_PERMISSIONS = ['AI_TOOLS_ROLE', 'AI_TOOLS_CHAT'] as const
export const MAX_OWN_ROLES = 100
export const MAX_ROLE_TAGS = 5
export const DEFAULT_ROLE_AVATAR = '🤖'

const seedSchema = z.object({
  tags: z.array(z.object({ id: z.string().regex(/^[a-z0-9-]+$/), name: z.string().min(1).max(20) })).min(1),
  roles: z
    .array(
      z.object({
        id: z.string().regex(/^[a-z0-9-]+$/),
        name: z.string().min(1).max(30),
        avatar: z.string().min(1).max(8),
        description: z.string().max(200),
        systemPrompt: z.string().min(1).max(4000),
        welcomeMessage: z.string().max(500).optional(),
        tags: z.array(z.string()).min(1)
      })
    )
    .min(1)
})
export type RoleSeed = z.infer<typeof seedSchema>

export function readRoleSeed(file = paths.rolesData): RoleSeed {
  const seed = seedSchema.parse(JSON.parse(readFileSync(file, 'utf8')))
  const tagIds = new Set(seed.tags.map((t) => t.id))
  const roleIds = new Set<string>()
  for (const role of seed.roles) {
    if (roleIds.has(role.id)) throw new Error(`roles.json: role id ${role.id} appears twice`)
    roleIds.add(role.id)
    for (const tag of role.tags) if (!tagIds.has(tag)) throw new Error(`roles.json: role ${role.id} has unknown tag ${tag}`)
  }
  return seed
}

/**
 * Public roles and tags from data/roles.json, upserted by their stable ids (idempotent: run at
 * every start). Public roles no longer in the file are removed; topics made with them keep working
 * from their own snapshot of the prompt.
 */
export async function seedRoles(db: Db, seed: RoleSeed = readRoleSeed(), now = Date.now()): Promise<void> {
  const at = new Date(now)
  await db.transaction(async (tx) => {
    for (const [sort, tag] of seed.tags.entries()) {
      await tx
        .insert(chatTags)
        .values({ id: tag.id, name: tag.name, sort })
        .onConflictDoUpdate({ target: chatTags.id, set: { name: tag.name, sort } })
    }
    await tx
      .insert(chatRoles)
      .values(
        seed.roles.map((role) => ({
          id: role.id,
          accountId: null,
          name: role.name,
          avatar: role.avatar,
          description: role.description,
          systemPrompt: role.systemPrompt,
          welcomeMessage: role.welcomeMessage ?? null,
          createdAt: at,
          updatedAt: at
        }))
      )
      .onConflictDoUpdate({
        target: chatRoles.id,
        set: {
          accountId: null,
          name: sql`excluded.name`,
          avatar: sql`excluded.avatar`,
          description: sql`excluded.description`,
          systemPrompt: sql`excluded.system_prompt`,
          welcomeMessage: sql`excluded.welcome_message`
        }
      })
    const ids = seed.roles.map((r) => r.id)
    await tx.delete(chatRoles).where(and(isNull(chatRoles.accountId), notInArray(chatRoles.id, ids)))
    await tx.delete(chatRoleTags).where(inArray(chatRoleTags.roleId, ids))
    await tx.insert(chatRoleTags).values(seed.roles.flatMap((role) => role.tags.map((tagId) => ({ roleId: role.id, tagId }))))
  })
}

const EMOJI = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Modifier}|\p{Emoji_Component}|\u200d|\ufe0f)+$/u
const PICTURE = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u
const FILES_PATH = /^\/files\/[A-Za-z0-9._~%\-/]+$/

/** An emoji (≤ 8 characters), or an image on this server under /files/ (relative, or absolute on PUBLIC_URL). */
export function validAvatar(avatar: string, publicUrl: string): boolean {
  if ([...avatar].length <= 8 && EMOJI.test(avatar) && PICTURE.test(avatar)) return true
  let pathname = avatar
  if (!avatar.startsWith('/')) {
    try {
      const url = new URL(avatar)
      if (url.origin !== new URL(publicUrl).origin || url.search || url.hash) return false
      pathname = url.pathname
    } catch {
      return false
    }
  }
  return avatar.length <= 500 && FILES_PATH.test(pathname) && !pathname.split('/').includes('..')
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

export function registerRoleRoutes(api: Api, publicUrl: string, moderator: Moderator = NO_MODERATION): void {
  const { db, now } = api
  const path = (p: string) => `${CHAT_BASE}/role-play/${p}`
  const tag = 'role-play'
  const visibleTo = (accountId: string) => or(isNull(chatRoles.accountId), eq(chatRoles.accountId, accountId))

  async function toRoles(rows: ChatRole[], accountId: string): Promise<Role[]> {
    const ids = rows.map((r) => r.id)
    const links =
      ids.length === 0
        ? []
        : await db
            .select({ roleId: chatRoleTags.roleId, tagId: chatTags.id, name: chatTags.name })
            .from(chatRoleTags)
            .innerJoin(chatTags, eq(chatTags.id, chatRoleTags.tagId))
            .where(inArray(chatRoleTags.roleId, ids))
            .orderBy(asc(chatTags.sort), asc(chatTags.id))
    return rows.map((row) => ({
      roleId: row.id,
      name: row.name,
      avatar: row.avatar,
      description: row.description,
      systemPrompt: row.systemPrompt,
      welcomeMessage: row.welcomeMessage,
      tags: links.filter((l) => l.roleId === row.id).map(({ tagId, name }) => ({ tagId, name })),
      isPublic: row.accountId === null,
      mine: row.accountId === accountId,
      createTime: row.createdAt.getTime(),
      updateTime: row.updatedAt.getTime()
    }))
  }

  defineRoute(
    api,
    path('tag/list'),
    {
      tag,
      summary: 'Role tags, with how many roles this account can see in each',
      body: z.object({}),
      auth: true,
      permission: ROLE_PERMISSIONS,
      response: z.array(tagSchema)
    },
    async ({ auth }) => {
      const rows = await db
        .select({ tagId: chatTags.id, name: chatTags.name, count: count(chatRoles.id) })
        .from(chatTags)
        .leftJoin(chatRoleTags, eq(chatRoleTags.tagId, chatTags.id))
        .leftJoin(chatRoles, and(eq(chatRoles.id, chatRoleTags.roleId), visibleTo(auth.account.id)))
        .groupBy(chatTags.id, chatTags.name, chatTags.sort)
        .orderBy(asc(chatTags.sort), asc(chatTags.id))
      return rows.map((r) => ({ ...r, count: Number(r.count) }))
    }
  )

  defineRoute(
    api,
    path('list'),
    {
      tag,
      summary: 'Public roles plus my own (mine first), searchable by name/description and filterable by tag',
      body: z.object({
        tagId: optionalText('tagId', { max: 64 }),
        keyword: optionalText('keyword', { max: 50 }),
        mine: z.boolean({ error: 'mine 只能是 true 或 false' }).optional(),
        ...pageFields
      }),
      auth: true,
      permission: ROLE_PERMISSIONS,
      response: paged(roleSchema)
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      const conditions: (SQL | undefined)[] = [body.mine ? eq(chatRoles.accountId, accountId) : visibleTo(accountId)]
      if (body.keyword) {
        const pattern = `%${escapeLike(body.keyword)}%`
        conditions.push(or(ilike(chatRoles.name, pattern), ilike(chatRoles.description, pattern)))
      }
      if (body.tagId) {
        conditions.push(
          exists(
            db
              .select({ one: sql`1` })
              .from(chatRoleTags)
              .where(and(eq(chatRoleTags.roleId, chatRoles.id), eq(chatRoleTags.tagId, body.tagId)))
          )
        )
      }
      const where = and(...conditions)
      return readPage(
        body,
        db.select({ n: count() }).from(chatRoles).where(where),
        (limit, offset) =>
          db
            .select()
            .from(chatRoles)
            .where(where)
            // Mine first, newest first; then the public roles in the order of roles.json.
            .orderBy(
              sql`case when ${chatRoles.accountId} is null then 1 else 0 end`,
              sql`case when ${chatRoles.accountId} is null then ${chatRoles.seq} else -${chatRoles.seq} end`
            )
            .limit(limit)
            .offset(offset),
        (rows) => toRoles(rows, accountId)
      )
    }
  )

  /** My role, or: 40300001 for a public one, 40400001 for anything else. */
  async function requireOwnRole(accountId: string, roleId: string): Promise<ChatRole> {
    const [row] = await db
      .select()
      .from(chatRoles)
      .where(and(eq(chatRoles.id, roleId), visibleTo(accountId)))
    if (!row) throw new ApiError(40400001, ROLE_NOT_FOUND)
    if (row.accountId === null) throw new ApiError(40300001, '公共角色不能修改或删除')
    return row
  }

  defineRoute(
    api,
    path('save'),
    {
      tag,
      summary: 'Create a role, or edit one of my own (roleId given)',
      body: z.object({
        roleId: idField('roleId').optional(),
        name: requiredText('name', { max: 30 }),
        avatar: optionalText('avatar', { max: 500 }),
        description: optionalText('description', { max: 200 }),
        systemPrompt: requiredText('systemPrompt', { max: 4000 }),
        welcomeMessage: optionalText('welcomeMessage', { max: 500 }).nullable(),
        tagIds: z.array(idField('tagIds'), { error: 'tagIds 必须是数组' }).max(MAX_ROLE_TAGS, `tagIds 最多 ${MAX_ROLE_TAGS} 个`).default([])
      }),
      auth: true,
      permission: ROLE_PERMISSIONS,
      response: roleSchema
    },
    async ({ body, auth }) => {
      const accountId = auth.account.id
      const avatar = body.avatar || DEFAULT_ROLE_AVATAR
      if (!validAvatar(avatar, publicUrl)) throw new ApiError(40000001, 'avatar 必须是一个 emoji（不超过 8 个字符）或本站 /files/ 下的图片地址')
      await assertTexts(moderator, accountId, [
        { kind: 'name', text: body.name, source: 'chat.role-name', what: '角色名称' },
        {
          kind: 'prompt',
          text: [body.description, body.systemPrompt, body.welcomeMessage].filter(Boolean).join('\n'),
          source: 'chat.role-prompt',
          what: '角色设定'
        }
      ])
      const tagIds = [...new Set(body.tagIds)]
      if (tagIds.length > 0) {
        const found = await db.select({ id: chatTags.id }).from(chatTags).where(inArray(chatTags.id, tagIds))
        const missing = tagIds.filter((id) => !found.some((f) => f.id === id))
        if (missing.length > 0) throw new ApiError(40000001, `tagIds 中的标签不存在：${missing.join('、')}`)
      }
      const at = new Date(now())
      const values = {
        name: body.name,
        avatar,
        description: body.description ?? '',
        systemPrompt: body.systemPrompt,
        welcomeMessage: body.welcomeMessage || null,
        updatedAt: at
      }
      let id: string
      if (body.roleId !== undefined) {
        id = (await requireOwnRole(accountId, body.roleId)).id
      } else {
        const [mine] = await db.select({ n: count() }).from(chatRoles).where(eq(chatRoles.accountId, accountId))
        if ((mine?.n ?? 0) >= MAX_OWN_ROLES) throw new ApiError(40000001, `自定义角色最多 ${MAX_OWN_ROLES} 个，请先删除不用的角色`)
        id = randomUUID()
      }
      const row = await db.transaction(async (tx) => {
        let saved: ChatRole | undefined
        if (body.roleId !== undefined) {
          ;[saved] = await tx
            .update(chatRoles)
            .set(values)
            .where(and(eq(chatRoles.id, id), eq(chatRoles.accountId, accountId)))
            .returning()
        } else {
          ;[saved] = await tx
            .insert(chatRoles)
            .values({ id, accountId, ...values, createdAt: at })
            .returning()
        }
        if (!saved) throw new ApiError(40400001, ROLE_NOT_FOUND)
        await tx.delete(chatRoleTags).where(eq(chatRoleTags.roleId, id))
        if (tagIds.length > 0) await tx.insert(chatRoleTags).values(tagIds.map((tagId) => ({ roleId: id, tagId })))
        return saved
      })
      const [role] = await toRoles([row], accountId)
      return role
    }
  )

  defineRoute(
    api,
    path('del'),
    {
      tag,
      summary: 'Delete one of my roles (topics made with it keep working)',
      body: z.object({ roleId: idField('roleId') }),
      auth: true,
      permission: ROLE_PERMISSIONS,
      response: z.null()
    },
    async ({ body, auth }) => {
      const role = await requireOwnRole(auth.account.id, body.roleId)
      await db.delete(chatRoles).where(and(eq(chatRoles.id, role.id), eq(chatRoles.accountId, auth.account.id)))
      return null
    }
  )
}
