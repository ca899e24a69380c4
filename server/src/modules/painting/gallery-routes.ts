import { and, count, desc, eq, ne, type SQL, sql } from 'drizzle-orm'
import { z } from 'zod'
import { accounts, galleryLikes, type PaintingTask, paintingTasks } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { assertTexts, type Moderator, NO_MODERATION } from '../../moderation/index.js'
import { notTakenDown } from '../../moderation/takedowns.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, oneOf, optionalText, pageFields, paged, readPage } from '../../http/fields.js'
import { GALLERY_PERMISSION, galleryItemSchema, galleryLikeSchema, PAINTING_PERMISSION, SD_PERMISSION, taskSchema, type WireTask } from './wire.js'

/** "灵犀用户8000" → "灵犀***00": enough to tell works apart, not enough to find the person. */
export function maskNickname(name: string): string {
  const chars = Array.from(name.trim())
  if (chars.length === 0) return '匿名用户'
  if (chars.length === 1) return '*'
  if (chars.length === 2) return `${chars[0]}*`
  const keep = chars.length >= 6 ? 2 : 1
  return `${chars.slice(0, keep).join('')}***${chars.slice(-keep).join('')}`
}

const taskIdField = idField('任务ID')
const KEYWORD_MAX = 100
const MODELS = ['mj', 'sd'] as const
const ASPECTS = ['square', 'landscape', 'portrait'] as const
const WEEK_MS = 7 * 24 * 3600_000

/** The gallery: published works of everyone, and publishing one's own finished works. */
export function registerGalleryRoutes(
  api: Api,
  ownTask: (accountId: string, taskId: string) => Promise<PaintingTask>,
  wire: (row: PaintingTask) => WireTask,
  moderator: Moderator = NO_MODERATION
): void {
  const { storage } = api
  const PAINTING = PAINTING_PERMISSION
  const SD = SD_PERMISSION
  const GALLERY = GALLERY_PERMISSION
  /** Likes of a work (correlated with the row of painting_tasks in the query). */
  const likeCount = sql<number>`(select count(*)::int from ${galleryLikes} where ${galleryLikes.taskId} = ${paintingTasks.id})`
  const weekCount = (since: Date) =>
    sql<number>`(select count(*)::int from ${galleryLikes} where ${galleryLikes.taskId} = ${paintingTasks.id} and ${galleryLikes.createdAt} >= ${since.toISOString()})`
  const likedBy = (accountId: string) =>
    sql<boolean>`exists(select 1 from ${galleryLikes} where ${galleryLikes.taskId} = ${paintingTasks.id} and ${galleryLikes.accountId} = ${accountId})`

  /** A published work, else 40400001 (unpublished, another's draft, or no such id: the same answer). */
  async function publishedWork(workId: string): Promise<PaintingTask> {
    const [task] = await api.db
      .select()
      .from(paintingTasks)
      .where(and(eq(paintingTasks.id, workId), eq(paintingTasks.published, true), notTakenDown('painting', paintingTasks.id)))
    if (!task) throw new ApiError(40400001, '作品不存在或已撤下')
    return task
  }

  defineRoute(
    api,
    '/api/v1/gallery/list',
    {
      tag: 'gallery',
      summary:
        'Published works: newest first, or 本周最受欢迎 (sort "week": most liked in the last 7 days); search the prompt, filter by model and aspect, or list the other works of a work\'s author',
      auth: true,
      permission: GALLERY,
      body: z.object({
        ...pageFields,
        keyword: optionalText('搜索内容', { max: KEYWORD_MAX }),
        model: oneOf('模型', MODELS).optional(),
        aspect: oneOf('画幅', ASPECTS).optional(),
        sort: oneOf('排序', ['new', 'week']).default('new'),
        /** The other works of this work's author (never named by phone or account id). */
        sameAuthorAs: idField('作品ID').optional()
      }),
      response: paged(galleryItemSchema)
    },
    async ({ auth, body }) => {
      const since = new Date(api.now() - WEEK_MS)
      // A work an operator took down is hidden from everyone (moderation/takedowns.ts).
      const conditions: SQL[] = [eq(paintingTasks.published, true), notTakenDown('painting', paintingTasks.id)]
      const term = body.keyword?.toLowerCase()
      if (term) conditions.push(sql`(strpos(lower(${paintingTasks.prompt}), ${term}) > 0 or strpos(lower(${paintingTasks.promptEn}), ${term}) > 0)`)
      if (body.model) conditions.push(eq(paintingTasks.kind, body.model))
      if (body.aspect === 'square') conditions.push(sql`${paintingTasks.width} = ${paintingTasks.height}`)
      if (body.aspect === 'landscape') conditions.push(sql`${paintingTasks.width} > ${paintingTasks.height}`)
      if (body.aspect === 'portrait') conditions.push(sql`${paintingTasks.width} < ${paintingTasks.height}`)
      if (body.sameAuthorAs) {
        const work = await publishedWork(body.sameAuthorAs)
        conditions.push(eq(paintingTasks.accountId, work.accountId), ne(paintingTasks.id, work.id))
      }
      if (body.sort === 'week') conditions.push(sql`${weekCount(since)} > 0`)
      const where = and(...conditions)
      const order =
        body.sort === 'week'
          ? [desc(weekCount(since)), desc(paintingTasks.publishTime), desc(paintingTasks.seq)]
          : [desc(paintingTasks.publishTime), desc(paintingTasks.seq)]
      return readPage(
        body,
        api.db.select({ n: count() }).from(paintingTasks).where(where),
        (limit, offset) =>
          api.db
            .select({ task: paintingTasks, nickName: accounts.nickName, likes: likeCount, weekLikes: weekCount(since), liked: likedBy(auth.account.id) })
            .from(paintingTasks)
            .innerJoin(accounts, eq(accounts.id, paintingTasks.accountId))
            .where(where)
            .orderBy(...order)
            .limit(limit)
            .offset(offset),
        (rows) =>
          rows.map(({ task, nickName, likes, weekLikes, liked }) => ({
            workId: task.id,
            taskId: task.id,
            imageUrl: storage.publicUrl(task.imageKey!),
            thumbUrl: task.thumbKey ? storage.publicUrl(task.thumbKey) : null,
            width: task.width,
            height: task.height,
            prompt: task.prompt,
            author: maskNickname(nickName),
            publishTime: task.publishTime?.getTime() ?? task.updatedAt.getTime(),
            mine: task.accountId === auth.account.id,
            model: task.kind,
            likes: Number(likes),
            weekLikes: Number(weekLikes),
            liked: Boolean(liked)
          }))
      )
    }
  )

  async function likeState(workId: string, accountId: string) {
    const [row] = await api.db
      .select({ likes: likeCount, liked: likedBy(accountId) })
      .from(paintingTasks)
      .where(eq(paintingTasks.id, workId))
    return { workId, likes: Number(row?.likes ?? 0), liked: Boolean(row?.liked) }
  }

  defineRoute(
    api,
    '/api/v1/gallery/like',
    {
      tag: 'gallery',
      summary: 'Like a published work (once per account; liking again changes nothing)',
      auth: true,
      permission: GALLERY,
      body: z.object({ workId: idField('作品ID') }),
      response: galleryLikeSchema
    },
    async ({ auth, body }) => {
      const work = await publishedWork(body.workId)
      await api.db
        .insert(galleryLikes)
        .values({ taskId: work.id, accountId: auth.account.id, createdAt: new Date(api.now()) })
        .onConflictDoNothing()
      return likeState(work.id, auth.account.id)
    }
  )

  defineRoute(
    api,
    '/api/v1/gallery/unlike',
    {
      tag: 'gallery',
      summary: 'Take back my like of a published work',
      auth: true,
      permission: GALLERY,
      body: z.object({ workId: idField('作品ID') }),
      response: galleryLikeSchema
    },
    async ({ auth, body }) => {
      const work = await publishedWork(body.workId)
      await api.db.delete(galleryLikes).where(and(eq(galleryLikes.taskId, work.id), eq(galleryLikes.accountId, auth.account.id)))
      return likeState(work.id, auth.account.id)
    }
  )

  async function setPublished(accountId: string, taskId: string, published: boolean): Promise<PaintingTask> {
    const task = await ownTask(accountId, taskId)
    if (published && (task.status !== 'SUCCESS' || !task.imageKey || task.action === 'DESCRIBE')) {
      throw new ApiError(40000001, '只能发布已完成的作品')
    }
    // What the gallery shows to everyone: the prompt, and the English the upstream drew from.
    if (published && !task.published) {
      await assertTexts(moderator, accountId, [
        { kind: 'prompt', text: task.prompt, source: 'gallery.publish', what: '作品提示词' },
        { kind: 'prompt', text: task.promptEn === task.prompt ? '' : task.promptEn, source: 'gallery.publish', what: '作品提示词' }
      ])
    }
    const [row] = await api.db
      .update(paintingTasks)
      .set({ published, publishTime: published ? (task.publishTime ?? new Date(api.now())) : null })
      .where(eq(paintingTasks.id, task.id))
      .returning()
    return row!
  }

  defineRoute(
    api,
    '/api/v1/gallery/publish',
    {
      tag: 'gallery',
      summary: 'Show one of my finished works in the gallery',
      auth: true,
      permission: [PAINTING, SD],
      body: z.object({ taskId: taskIdField }),
      response: taskSchema
    },
    async ({ auth, body }) => wire(await setPublished(auth.account.id, body.taskId, true))
  )

  defineRoute(
    api,
    '/api/v1/gallery/unpublish',
    {
      tag: 'gallery',
      summary: 'Take one of my works out of the gallery',
      auth: true,
      permission: [PAINTING, SD],
      body: z.object({ taskId: taskIdField }),
      response: taskSchema
    },
    async ({ auth, body }) => wire(await setPublished(auth.account.id, body.taskId, false))
  )
}
