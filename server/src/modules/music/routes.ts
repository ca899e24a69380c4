import { count, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import { musicSongs } from '../../db/schema.js'
import { type Api, defineRoute } from '../../http/api.js'
import { assertTexts, type Moderator, NO_MODERATION } from '../../moderation/index.js'
import { takedownsOf } from '../../moderation/takedowns.js'
import { idField, pageFields, paged, readPage, requiredText } from '../../http/fields.js'
import type { Logger } from '../../logger.js'
import { removeSong } from './remove.js'
import { requireSong as findSong } from './songs.js'
import { type MusicRuntime, providerFailure } from './runtime.js'
import { MUSIC_BASE, MUSIC_PERMISSION, songSchema } from './wire.js'

const flag = (label: string) =>
  z
    .boolean({ error: `${label} 只能是 true 或 false` })
    .optional()
    .default(false)
const optionalLimited = (label: string, max: number) =>
  z
    .string({ error: `${label} 格式不正确` })
    .trim()
    .max(max, `${label} 不能超过 ${max} 个字符`)
    .optional()
    .default('')

const tag = 'music'

/** The music routes over the runtime (which polls requests on api.jobs, `music:poll`). */
export function registerMusicRoutes(api: Api, runtime: MusicRuntime, logger: Logger, moderator: Moderator = NO_MODERATION): void {
  const { db } = api
  const path = (p: string) => `${MUSIC_BASE}/${p}`
  const submitResult = z.object({ taskId: z.string(), songs: z.array(songSchema) })

  const requireSong = (accountId: string, songId: string) => findSong(db, accountId, songId)

  defineRoute(
    api,
    path('generate'),
    {
      tag,
      summary: 'A song from a description: two clips, 1 sunoCount (given back when every clip fails); progress as `music` events on the account channel',
      body: z.object({ prompt: requiredText('歌曲描述', { max: 400 }), instrumental: flag('instrumental') }),
      auth: true,
      permission: MUSIC_PERMISSION,
      response: submitResult
    },
    async ({ body, auth }) => runtime.submit(auth.account.id, { mode: 'describe', prompt: body.prompt, instrumental: body.instrumental })
  )

  defineRoute(
    api,
    path('custom/generate'),
    {
      tag,
      summary: 'A song from lyrics, style tags and a title (custom mode): two clips, 1 sunoCount',
      body: z
        .object({
          lyric: optionalLimited('歌词', 3000),
          tags: requiredText('风格标签', { max: 200 }),
          title: requiredText('歌名', { max: 80 }),
          instrumental: flag('instrumental'),
          negativeTags: optionalLimited('排除风格', 200)
        })
        .refine((b) => b.instrumental || b.lyric !== '', { message: '歌词不能为空（纯音乐可以不填）', path: ['lyric'] }),
      auth: true,
      permission: MUSIC_PERMISSION,
      response: submitResult
    },
    async ({ body, auth }) =>
      runtime.submit(auth.account.id, {
        mode: 'custom',
        lyric: body.instrumental ? '' : body.lyric,
        tags: body.tags,
        title: body.title,
        instrumental: body.instrumental,
        negativeTags: body.negativeTags
      })
  )

  defineRoute(
    api,
    path('lyrics/generate'),
    {
      tag,
      summary: 'Lyrics from a description (free)',
      body: z.object({ prompt: requiredText('歌词描述', { max: 400 }) }),
      auth: true,
      permission: MUSIC_PERMISSION,
      response: z.object({ title: z.string(), text: z.string() })
    },
    async ({ body, auth }) => {
      await assertTexts(moderator, auth.account.id, [{ kind: 'prompt', text: body.prompt, source: 'music.lyrics', what: '歌词描述' }])
      try {
        return await (await runtime.current()).lyrics(body.prompt)
      } catch (error) {
        throw providerFailure(error)
      }
    }
  )

  defineRoute(
    api,
    path('song/list'),
    {
      tag,
      summary: 'My songs, newest first',
      body: z.object(pageFields),
      auth: true,
      permission: MUSIC_PERMISSION,
      response: paged(songSchema)
    },
    async ({ body, auth }) => {
      const where = eq(musicSongs.accountId, auth.account.id)
      return readPage(
        body,
        db.select({ n: count() }).from(musicSongs).where(where),
        (limit, offset) => db.select().from(musicSongs).where(where).orderBy(desc(musicSongs.seq)).limit(limit).offset(offset),
        async (rows) => {
          const down = await takedownsOf(
            db,
            'song',
            rows.map((r) => r.id)
          )
          return rows.map((row) => {
            const reason = down.get(row.id)
            return reason === undefined ? runtime.song(row) : { ...runtime.song(row), audioUrl: null, imageUrl: null, takedown: reason }
          })
        }
      )
    }
  )

  defineRoute(
    api,
    path('song/get'),
    { tag, summary: 'One of my songs', body: z.object({ songId: idField('songId') }), auth: true, permission: MUSIC_PERMISSION, response: songSchema },
    async ({ body, auth }) => runtime.song(await requireSong(auth.account.id, body.songId))
  )

  defineRoute(
    api,
    path('song/del'),
    {
      tag,
      summary: 'Delete one of my songs and its stored audio and cover',
      body: z.object({ songId: idField('songId') }),
      auth: true,
      permission: MUSIC_PERMISSION,
      response: z.literal(true)
    },
    async ({ body, auth }) => {
      await removeSong({ db, storage: api.storage, logger }, await requireSong(auth.account.id, body.songId))
      return true
    }
  )
}
