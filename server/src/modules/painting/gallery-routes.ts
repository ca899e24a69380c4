import { count, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import { accounts, type PaintingTask, paintingTasks } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { assertTexts, type Moderator, NO_MODERATION } from '../../moderation/index.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, pageFields, paged, readPage } from '../../http/fields.js'
import { GALLERY_PERMISSION, galleryItemSchema, PAINTING_PERMISSION, SD_PERMISSION, taskSchema, type WireTask } from './wire.js'

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
  defineRoute(
    api,
    '/api/v1/gallery/list',
    {
      tag: 'gallery',
      summary: 'Published works, newest first',
      auth: true,
      permission: GALLERY,
      body: z.object({ ...pageFields }),
      response: paged(galleryItemSchema)
    },
    async ({ auth, body }) => {
      const where = eq(paintingTasks.published, true)
      return readPage(
        body,
        api.db.select({ n: count() }).from(paintingTasks).where(where),
        (limit, offset) =>
          api.db
            .select({ task: paintingTasks, nickName: accounts.nickName })
            .from(paintingTasks)
            .innerJoin(accounts, eq(accounts.id, paintingTasks.accountId))
            .where(where)
            .orderBy(desc(paintingTasks.publishTime), desc(paintingTasks.seq))
            .limit(limit)
            .offset(offset),
        (rows) =>
          rows.map(({ task, nickName }) => ({
            workId: task.id,
            taskId: task.id,
            imageUrl: storage.publicUrl(task.imageKey!),
            thumbUrl: task.thumbKey ? storage.publicUrl(task.thumbKey) : null,
            width: task.width,
            height: task.height,
            prompt: task.prompt,
            author: maskNickname(nickName),
            publishTime: task.publishTime?.getTime() ?? task.updatedAt.getTime(),
            mine: task.accountId === auth.account.id
          }))
      )
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
