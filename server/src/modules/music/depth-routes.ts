import { randomBytes } from 'node:crypto'
import { and, eq, notExists } from 'drizzle-orm'
import { z } from 'zod'
import { disabledAccounts, type MusicSong, musicSongs } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, type AppContext, checkPermission, defineRoute, requireAuth } from '../../http/api.js'
import { clientAddress } from '../../http/client-address.js'
import { rateLimit } from '../../http/rate-limit.js'
import type { Kv } from '../../kv/kv.js'
import { idField, requiredText } from '../../http/fields.js'
import { notTakenDown } from '../../moderation/takedowns.js'
import { extensionFor } from '../../storage/keys.js'
import type { MusicRuntime } from './runtime.js'
import { attachment, requireSong } from './songs.js'
import { MUSIC_BASE, MUSIC_PERMISSION, sharedSongSchema, songSchema } from './wire.js'

export const SHARE_NOT_FOUND = '分享不存在或已撤销'
export const NOT_READY = '歌曲还没有生成完成，请稍后再试'
const TOKEN = /^[A-Za-z0-9_-]{24}$/
const tag = 'music'

const optionalText = (label: string, max: number) =>
  z
    .string({ error: `${label} 格式不正确` })
    .trim()
    .max(max, `${label} 不能超过 ${max} 个字符`)
    .optional()

const seconds = (n: number) => `${Math.round(n * 10) / 10} 秒`

function requireComplete(row: MusicSong): MusicSong & { duration: number } {
  if (row.status !== 'complete' || !row.duration) throw new ApiError(40000001, NOT_READY)
  return row as MusicSong & { duration: number }
}

/**
 * The song actions beyond creating one: continue it from a second (suno-api extend_audio), sing
 * edited lyrics to it again, an instrumental version (each 1 sunoCount, refunded when every clip
 * fails, like a new request), its MP3 (or the demo's WAV) and cover as downloads, and a read-only
 * share link (an unguessable token; revoking clears it, and the page answers 404 at once).
 */
/** Share-page reads per client address per minute (as chat's shares). */
const SHARE_READS_PER_MINUTE = 60

export function registerMusicDepthRoutes(api: Api, runtime: MusicRuntime, limits: { kv: Kv; trustProxy: number }): void {
  const { db, storage } = api
  const path = (p: string) => `${MUSIC_BASE}/${p}`
  const submitResult = z.object({ taskId: z.string(), songs: z.array(songSchema) })
  /** The provider that made the song: a demo song is continued by the demo composer, a Suno song by suno-api. */
  const sameService = (row: MusicSong, what: string) => {
    const provider = runtime.madeBy(row.demo)
    if (!provider) throw new ApiError(40000001, `这首歌来自另一个音乐服务，无法${what}`)
    return provider
  }

  defineRoute(
    api,
    path('extend'),
    {
      tag,
      summary: 'Continue one of my songs from `continueAt` seconds with new lyrics (suno-api extend_audio): two clips, 1 sunoCount',
      body: z.object({
        songId: idField('songId'),
        continueAt: z.number({ error: '续写起点必须是秒数' }).finite('续写起点必须是秒数').positive('续写起点必须大于 0 秒'),
        lyric: optionalText('续写歌词', 3000),
        tags: optionalText('风格标签', 200),
        title: optionalText('歌名', 80)
      }),
      auth: true,
      permission: MUSIC_PERMISSION,
      response: submitResult
    },
    async ({ body, auth }) => {
      const row = requireComplete(await requireSong(db, auth.account.id, body.songId))
      if (body.continueAt >= row.duration)
        throw new ApiError(40000001, `续写起点（${seconds(body.continueAt)}）超出了歌曲时长（${seconds(row.duration)}），请选择更早的时间`)
      const via = sameService(row, '续写')
      return runtime.submit(
        auth.account.id,
        {
          mode: 'extend',
          audioId: row.clipId,
          continueAt: Math.round(body.continueAt * 10) / 10,
          lyric: body.lyric ?? '',
          tags: body.tags || row.tags,
          title: body.title || row.title
        },
        via
      )
    }
  )

  defineRoute(
    api,
    path('regenerate'),
    {
      tag,
      summary: 'Sing edited lyrics in the style of one of my songs (custom_generate): two new clips, 1 sunoCount',
      body: z.object({
        songId: idField('songId'),
        lyric: requiredText('歌词', { max: 3000 }),
        tags: optionalText('风格标签', 200),
        title: optionalText('歌名', 80)
      }),
      auth: true,
      permission: MUSIC_PERMISSION,
      response: submitResult
    },
    async ({ body, auth }) => {
      const row = await requireSong(db, auth.account.id, body.songId)
      const tags = body.tags || row.tags
      if (!tags) throw new ApiError(40000001, '风格标签不能为空')
      return runtime.submit(auth.account.id, {
        mode: 'custom',
        purpose: 'relyric',
        lyric: body.lyric,
        tags,
        title: body.title || row.title || '未命名',
        instrumental: false,
        negativeTags: ''
      })
    }
  )

  defineRoute(
    api,
    path('instrumental'),
    {
      tag,
      summary: 'An instrumental version of one of my songs (its style and title, make_instrumental): two clips, 1 sunoCount',
      body: z.object({ songId: idField('songId') }),
      auth: true,
      permission: MUSIC_PERMISSION,
      response: submitResult
    },
    async ({ body, auth }) => {
      const row = await requireSong(db, auth.account.id, body.songId)
      if (row.instrumental) throw new ApiError(40000001, '这首歌已经是纯音乐了')
      return runtime.submit(auth.account.id, {
        mode: 'custom',
        purpose: 'instrumental',
        lyric: '',
        tags: row.tags || 'instrumental',
        title: `${row.title || '未命名'}（纯音乐）`.slice(0, 80),
        instrumental: true,
        negativeTags: ''
      })
    }
  )

  defineRoute(
    api,
    path('song/share'),
    {
      tag,
      summary: 'Share one of my finished songs: a read-only public page at `sharePath` until revoked (the same link when shared already)',
      body: z.object({ songId: idField('songId') }),
      auth: true,
      permission: MUSIC_PERMISSION,
      response: songSchema
    },
    async ({ body, auth }) => {
      const row = requireComplete(await requireSong(db, auth.account.id, body.songId))
      if (row.shareToken) return runtime.song(row)
      const [updated] = await db
        .update(musicSongs)
        .set({ shareToken: randomBytes(18).toString('base64url') })
        .where(and(eq(musicSongs.id, row.id), eq(musicSongs.accountId, auth.account.id)))
        .returning()
      if (!updated) throw new ApiError(40400001, '歌曲不存在或已删除')
      return runtime.song(updated)
    }
  )

  defineRoute(
    api,
    path('song/unshare'),
    {
      tag,
      summary: 'Revoke the share link of one of my songs: its page answers 404 from now on',
      body: z.object({ songId: idField('songId') }),
      auth: true,
      permission: MUSIC_PERMISSION,
      response: songSchema
    },
    async ({ body, auth }) => {
      const row = await requireSong(db, auth.account.id, body.songId)
      const [updated] = await db
        .update(musicSongs)
        .set({ shareToken: null })
        .where(and(eq(musicSongs.id, row.id), eq(musicSongs.accountId, auth.account.id)))
        .returning()
      return runtime.song(updated ?? row)
    }
  )

  defineRoute(
    api,
    path('share/get'),
    {
      tag,
      summary: 'A shared song, for anyone with the link (no login): title, style, lyrics, audio and cover; nothing of its owner',
      body: z.object({ token: z.string({ error: 'token 格式不正确' }).max(64, 'token 格式不正确') }),
      response: sharedSongSchema
    },
    async ({ c, body }) => {
      await rateLimit(limits.kv, `music-share:get:${clientAddress(c as AppContext, limits.trustProxy)}`, SHARE_READS_PER_MINUTE, 60_000, '访问')
      if (!TOKEN.test(body.token)) throw new ApiError(40400001, SHARE_NOT_FOUND)
      const [row] = await db
        .select()
        .from(musicSongs)
        .where(
          and(
            eq(musicSongs.shareToken, body.token),
            eq(musicSongs.status, 'complete'),
            notExists(db.select({ id: disabledAccounts.accountId }).from(disabledAccounts).where(eq(disabledAccounts.accountId, musicSongs.accountId))),
            // A song an operator took down is gone from its share page too (moderation/takedowns.ts).
            notTakenDown('song', musicSongs.id)
          )
        )
      if (!row) throw new ApiError(40400001, SHARE_NOT_FOUND)
      const song = runtime.song(row)
      return {
        title: song.title,
        tags: song.tags,
        lyric: song.lyric,
        instrumental: song.instrumental,
        audioUrl: song.audioUrl,
        imageUrl: song.imageUrl,
        duration: song.duration,
        demo: song.demo,
        createTime: song.createTime
      }
    }
  )

  const download = `${MUSIC_BASE}/song/download/{songId}/{kind}`
  api.docs.push({
    method: 'get',
    path: download,
    tag,
    summary: 'One of my songs as a file to save: `audio` (MP3; WAV for the demo composer) or `cover`, named after the title (RFC 5987)',
    auth: true,
    parameters: [{ name: 'kind', in: 'path', description: '`audio` or `cover`' }],
    responses: {
      200: {
        description: 'The file, with Content-Disposition: attachment',
        contentType: '*/*',
        headers: { 'Content-Disposition': 'attachment; filename="…"; filename*=UTF-8\'\'…' }
      }
    }
  })
  api.app.get(`${MUSIC_BASE}/song/download/:songId/:kind`, async (c) => {
    const auth = await requireAuth(api, c)
    await checkPermission(api, auth, MUSIC_PERMISSION)
    const kind = c.req.param('kind')
    if (kind !== 'audio' && kind !== 'cover') throw new ApiError(40000001, '下载类型只能是 audio 或 cover')
    const row = await requireSong(db, auth.account.id, c.req.param('songId').slice(0, 64))
    const key = kind === 'audio' ? row.audioKey : row.imageKey
    if (!key) throw new ApiError(40400001, kind === 'audio' ? '歌曲还没有可下载的音频' : '这首歌没有封面')
    const file = await storage.get(key)
    if (!file) throw new ApiError(40400001, '文件已不存在')
    const ext = extensionFor(file.contentType) ?? key.slice(key.lastIndexOf('.') + 1)
    const name = kind === 'audio' ? row.title || '未命名' : `${row.title || '未命名'}-封面`
    return new Response(file.body, {
      headers: {
        'Content-Type': file.contentType,
        'Content-Length': String(file.body.byteLength),
        'Content-Disposition': attachment(name, ext),
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff'
      }
    })
  })
}
