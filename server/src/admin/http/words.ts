import { eq } from 'drizzle-orm'
import { z } from 'zod'
import { moderationWords } from '../../db/schema.js'
import { ApiError } from '../../errors.js'
import { type Api, defineRoute } from '../../http/api.js'
import { requiredText } from '../../http/fields.js'
import type { ModerationSettings } from '../../moderation/settings.js'
import { announceWords, liveWordsOf, readStoredWords, readWordsFile, reloadLiveWords, storeFileWords } from '../../moderation/word-store.js'
import { audit } from './audit.js'
import { ADMIN_PERMISSION, TAG } from './constants.js'

const wordRow = z
  .object({ word: z.string(), verdict: z.enum(['review', 'block']), pinyin: z.boolean(), source: z.enum(['file', 'console']), createTime: z.number() })
  .meta({ id: 'AdminModerationWord' })
const wordList = z
  .object({
    /** The word list is one of MODERATION_PROVIDERS: its entries are checked. */
    enabled: z.boolean(),
    /** MODERATION_WORDS_FILE is set (从文件重新加载 can read it). */
    file: z.boolean(),
    list: z.array(wordRow),
    /** Lines of the file that could not be read, after a reload. */
    problems: z.array(z.string())
  })
  .meta({ id: 'AdminModerationWords' })

/**
 * The local word list in the console (issue 18): list, add, remove, reload from MODERATION_WORDS_FILE.
 * Stored in the database; every node rebuilds its matcher when told over the event bus (word-store.ts).
 */
export function registerWordRoutes(api: Api, settings: ModerationSettings | undefined): void {
  const enabled = Boolean(settings?.providers.includes('words'))

  async function answer(problems: string[] = []) {
    const rows = await readStoredWords(api.db)
    return {
      enabled,
      file: Boolean(settings?.wordsFile),
      problems,
      list: rows.map((r) => ({
        word: r.word,
        verdict: r.verdict as 'review' | 'block',
        pinyin: r.pinyin,
        source: r.source as 'file' | 'console',
        createTime: r.createdAt.getTime()
      }))
    }
  }
  /** This node now (the caller sees the change at once), the others through the bus. */
  async function changed() {
    if (settings && enabled) await reloadLiveWords(api.db, liveWordsOf(settings))
    await announceWords(api.bus)
  }
  const route = <S extends z.ZodType>(
    path: string,
    summary: string,
    body: S,
    handler: (input: { body: z.output<S>; auth: Parameters<typeof audit>[1] }) => Promise<unknown>
  ) =>
    defineRoute<S, true>(
      api,
      `/api/admin/moderation/words${path}`,
      { tag: TAG, summary, permission: ADMIN_PERMISSION, auth: true, body, response: wordList },
      handler
    )

  route('', 'The local word list: the file’s entries and those added in the console', z.object({}), async () => answer())

  route(
    '/add',
    'Adds (or changes) a word of the list; every node checks with it at once',
    z.object({
      word: requiredText('敏感词', { max: 50 }),
      verdict: z.enum(['review', 'block'], { error: '处置方式只能是 review 或 block' }),
      pinyin: z.boolean().optional()
    }),
    async ({ body, auth }) => {
      const word = body.word.trim()
      if (word.includes('|')) throw new ApiError(40000001, '敏感词不能包含“|”')
      const at = new Date(api.now())
      await api.db.transaction(async (tx) => {
        const [before] = await tx.select().from(moderationWords).where(eq(moderationWords.word, word))
        const values = { word, verdict: body.verdict, pinyin: Boolean(body.pinyin), source: 'console', createdBy: auth.account.id, createdAt: at }
        await tx.insert(moderationWords).values(values).onConflictDoUpdate({ target: moderationWords.word, set: values })
        await audit(
          tx,
          auth,
          {
            action: 'words.add',
            target: 'moderation_words',
            before: before ? { word, verdict: before.verdict, pinyin: before.pinyin } : null,
            after: { word, verdict: body.verdict, pinyin: Boolean(body.pinyin) }
          },
          at
        )
      })
      await changed()
      return answer()
    }
  )

  route('/remove', 'Removes a word of the list', z.object({ word: requiredText('敏感词', { max: 50 }) }), async ({ body, auth }) => {
    const at = new Date(api.now())
    await api.db.transaction(async (tx) => {
      const [gone] = await tx.delete(moderationWords).where(eq(moderationWords.word, body.word.trim())).returning()
      if (!gone) throw new ApiError(40400001, '词库中没有这个词')
      await audit(
        tx,
        auth,
        { action: 'words.remove', target: 'moderation_words', before: { word: gone.word, verdict: gone.verdict, source: gone.source }, after: null },
        at
      )
    })
    await changed()
    return answer()
  })

  route('/reload', 'Reads MODERATION_WORDS_FILE again: its entries replace the file’s (the console’s stay)', z.object({}), async ({ auth }) => {
    if (!settings?.wordsFile) throw new ApiError(40000001, '未配置词库文件（MODERATION_WORDS_FILE），无法从文件重新加载')
    let read: ReturnType<typeof readWordsFile>
    try {
      read = readWordsFile(settings)
    } catch (error) {
      throw new ApiError(40000001, `词库文件无法读取：${(error as Error).message}`)
    }
    const at = new Date(api.now())
    const stored = await storeFileWords(api.db, read.rules, at)
    await audit(
      api.db,
      auth,
      { action: 'words.reload', target: 'moderation_words', after: { file: read.rules.length, stored, problems: read.problems.length } },
      at
    )
    await changed()
    return answer(read.problems)
  })
}
