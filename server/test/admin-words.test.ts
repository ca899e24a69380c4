import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createMemoryBus } from '../src/events/memory-bus.js'
import { moderationSettings } from '../src/moderation/settings.js'
import { startWordStore } from '../src/moderation/word-store.js'
import { useHarness } from './helpers/database-hooks.js'
import { memoryLogger } from './helpers/harness.js'

// Issue 18: the local word list edited while the service runs — add, remove, reload from the file —
// stored in the database, and every node's matcher follows (the event bus's `words` message).
const OPERATOR = '13900000001'
const dir = mkdtempSync(join(tmpdir(), 'lingxi-words-'))
const FILE = join(dir, 'words.txt')

beforeEach(() => {
  copyFileSync(fileURLToPath(new URL('./fixtures/moderation-words.txt', import.meta.url)), FILE)
  vi.stubEnv('ADMIN_PHONES', OPERATOR)
})
afterEach(() => vi.unstubAllEnvs())
const ctx = useHarness(() => ({ env: { MODERATION_PROVIDERS: 'words', MODERATION_WORDS_FILE: FILE } }))

interface Words {
  enabled: boolean
  file: boolean
  list: { word: string; verdict: string; pinyin: boolean; source: string }[]
  problems: string[]
}

describe('the word list in the console', () => {
  const nickname = async (token: string, nickName: string) => (await ctx.h.post('/api/v1/user/profile/save', { nickName }, { token })).body.code

  it('adds and removes words that every check uses at once, and reloads the file', async () => {
    const user = await ctx.h.login('13800138000')
    const { accessToken: token } = await ctx.h.login(OPERATOR)
    await expect.poll(async () => (await ctx.h.post<Words>('/api/admin/moderation/words', {}, { token })).body.data.list.length).toBe(4)
    const first = (await ctx.h.post<Words>('/api/admin/moderation/words', {}, { token })).body.data
    expect([first.enabled, first.file]).toEqual([true, true])
    expect(first.list.map((w) => [w.word, w.verdict, w.source])).toContainEqual(['badword', 'block', 'file'])

    expect(await nickname(user.accessToken, '新加的坏词小王')).toBe(2000)
    const added = await ctx.h.post<Words>('/api/admin/moderation/words/add', { word: '新加的坏词', verdict: 'block' }, { token })
    expect(added.body.code, JSON.stringify(added.body)).toBe(2000)
    expect(added.body.data.list).toContainEqual(expect.objectContaining({ word: '新加的坏词', verdict: 'block', source: 'console' }))
    // at once, and through the usual evasions (full-width, spaces between characters)
    expect(await nickname(user.accessToken, '新 加 的 坏 词')).toBe(42200001)

    const removed = await ctx.h.post<Words>('/api/admin/moderation/words/remove', { word: '新加的坏词' }, { token })
    expect(removed.body.data.list.map((w) => w.word)).not.toContain('新加的坏词')
    expect(await nickname(user.accessToken, '新加的坏词小王')).toBe(2000)
    expect((await ctx.h.post('/api/admin/moderation/words/remove', { word: '没有的词' }, { token })).body.code).toBe(40400001)
    expect((await ctx.h.post('/api/admin/moderation/words/add', { word: 'a|b', verdict: 'block' }, { token })).body.message).toBe('敏感词不能包含“|”')

    // the file changed on disk: 从文件重新加载 replaces the file's entries, keeps the console's
    await ctx.h.post('/api/admin/moderation/words/add', { word: '控制台词', verdict: 'review' }, { token })
    writeFileSync(FILE, '文件新词|block\nbadword|nonsense\n')
    const reloaded = await ctx.h.post<Words>('/api/admin/moderation/words/reload', {}, { token })
    expect(reloaded.body.data.list.map((w) => [w.word, w.source]).sort()).toEqual([
      ['控制台词', 'console'],
      ['文件新词', 'file']
    ])
    expect(reloaded.body.data.problems).toEqual(['line 2: "badword|nonsense" is not word, word|review, word|block, or either with |pinyin'])
    expect(await nickname(user.accessToken, 'Bad Word')).toBe(2000)
    expect(await nickname(user.accessToken, '文件新词')).toBe(42200001)

    const audited = await ctx.db.db.execute<{ action: string }>(sql`select action from admin_audit where action like 'words.%' order by id`)
    expect(
      (audited as unknown as { rows?: { action: string }[] }).rows?.map((r) => r.action) ?? (audited as unknown as { action: string }[]).map((r) => r.action)
    ).toEqual(['words.add', 'words.remove', 'words.add', 'words.reload'])
    // a normal user cannot read or change the list
    for (const path of ['', '/add', '/remove', '/reload']) {
      expect((await ctx.h.post(`/api/admin/moderation/words${path}`, { word: 'x', verdict: 'block' }, { token: user.accessToken })).status).toBe(403)
    }
  })

  it('every node rebuilds its matcher when another changes the list (the bus)', async () => {
    const bus = createMemoryBus()
    const settings = () => moderationSettings({ MODERATION_PROVIDERS: 'words', MODERATION_WORDS_FILE: FILE } as never)
    const logger = memoryLogger()
    const a = startWordStore({ settings: settings(), db: ctx.db.db, bus, logger, now: Date.now })!
    const b = startWordStore({ settings: settings(), db: ctx.db.db, bus, logger, now: Date.now })!
    await expect.poll(() => [a.size(), b.size()]).toEqual([4, 4])
    await ctx.db.db.execute(sql`insert into moderation_words (word, verdict, pinyin, source, created_at) values ('节点词', 'block', false, 'console', now())`)
    expect((await b.checkText('节点词', 'name')).verdict).toBe('pass')
    await bus.control({ type: 'words' })
    await expect.poll(() => b.size()).toBe(5)
    expect((await b.checkText('节点词', 'name')).verdict).toBe('block')
    expect((await a.checkText('节点词', 'name')).verdict).toBe('block')
    await bus.close()
  })
})
