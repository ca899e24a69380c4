import { asc, eq } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { moderationWords } from '../db/schema.js'
import type { EventBus } from '../events/bus.js'
import type { Logger } from '../logger.js'
import type { ModerationSettings } from './settings.js'
import type { TextProvider } from './types.js'
import { createWordListProvider, readWordList, type WordRule } from './wordlist.js'

/**
 * The local word list, editable while the service runs (issue 18): the database holds it
 * (moderation_words: the file's entries and the console's), each node's matcher is rebuilt from
 * there at start and whenever a `words` control message says it changed (any node, event bus).
 */

/** The word-list provider whose rules can be swapped without a restart. */
export interface LiveWordList extends TextProvider {
  /** Builds the new matcher, then swaps it in (checks meanwhile use the old one). */
  replace(rules: readonly WordRule[]): Promise<void>
  size(): number
}

export function createLiveWordList(initial: readonly WordRule[]): LiveWordList {
  let current = createWordListProvider(initial)
  let count = initial.length
  let generation = 0
  return {
    name: 'words',
    checkText: (text, kind) => current.checkText(text, kind),
    async replace(rules) {
      const mine = ++generation
      const next = createWordListProvider(rules)
      await next.ready()
      // A later replace that finished first wins.
      if (mine !== generation) return
      current = next
      count = rules.length
    },
    size: () => count
  }
}

const live = new WeakMap<ModerationSettings, LiveWordList>()

/** The live list of one app's settings (what providersOf puts in the pipeline). */
export function liveWordsOf(settings: ModerationSettings): LiveWordList {
  let list = live.get(settings)
  if (!list) {
    list = createLiveWordList(settings.words)
    live.set(settings, list)
  }
  return list
}

const toRule = (row: { word: string; verdict: string; pinyin: boolean }): WordRule =>
  row.pinyin ? { word: row.word, verdict: row.verdict as WordRule['verdict'], pinyin: true } : { word: row.word, verdict: row.verdict as WordRule['verdict'] }

export async function readStoredWords(db: Db) {
  return db.select().from(moderationWords).orderBy(asc(moderationWords.source), asc(moderationWords.createdAt), asc(moderationWords.word))
}

/**
 * Replaces the file's entries with `rules` (the console's stay, and win over a file entry of the
 * same word). Returns how many of the file's entries are stored.
 */
export async function storeFileWords(db: Db, rules: readonly WordRule[], at: Date): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.delete(moderationWords).where(eq(moderationWords.source, 'file'))
    if (rules.length === 0) return 0
    const rows = await tx
      .insert(moderationWords)
      .values(rules.map((r) => ({ word: r.word, verdict: r.verdict, pinyin: Boolean(r.pinyin), source: 'file', createdAt: at })))
      .onConflictDoNothing()
      .returning({ word: moderationWords.word })
    return rows.length
  })
}

/** Rebuilds this node's matcher from the database. */
export async function reloadLiveWords(db: Db, list: LiveWordList): Promise<void> {
  await list.replace((await readStoredWords(db)).map(toRule))
}

/** Tells every node (this one included) to rebuild its matcher from the database. */
export const announceWords = (bus: EventBus) => bus.control({ type: 'words' })

/**
 * At start, when the word list is a provider: the file's entries are stored again (the file may have
 * changed), the matcher is built from the database (with the console's entries), and rebuilt on every
 * `words` control message. Returns the live list, or undefined when the word list is not in use.
 */
export function startWordStore(deps: {
  settings: ModerationSettings | undefined
  db: Db
  bus: EventBus
  logger: Logger
  now: () => number
}): LiveWordList | undefined {
  const { settings, db, bus, logger } = deps
  if (!settings?.providers.includes('words')) return undefined
  const list = liveWordsOf(settings)
  const reload = () => reloadLiveWords(db, list).catch((error: unknown) => logger.error('word list reload failed', { error }))
  bus.onControl((message) => {
    if (message.type === 'words') void reload()
  })
  void storeFileWords(db, settings.words, new Date(deps.now()))
    .then(reload)
    .catch((error: unknown) => logger.error('word list could not be stored', { error }))
  return list
}

/** Reads MODERATION_WORDS_FILE again: its rules and the lines it could not read. */
export function readWordsFile(settings: ModerationSettings): { rules: WordRule[]; problems: string[] } {
  if (!settings.wordsFile) return { rules: [], problems: ['MODERATION_WORDS_FILE is not set'] }
  return readWordList(settings.wordsFile)
}
