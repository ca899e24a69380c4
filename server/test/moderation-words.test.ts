import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.js'
import type { ModerationLogEntry } from '../src/moderation/log.js'
import { loadNormalizer } from '../src/moderation/normalize.js'
import { createModerator, NO_MODERATION } from '../src/moderation/pipeline.js'
import { DEFAULT_FAIL_MODES } from '../src/moderation/settings.js'
import { ModerationUnavailable, type TextProvider } from '../src/moderation/types.js'
import { createWordListProvider, parseWordList, readWordList } from '../src/moderation/wordlist.js'
import { memoryLogger } from './helpers/harness.js'

const WORDS = fileURLToPath(new URL('./fixtures/moderation-words.txt', import.meta.url))
const { rules } = readWordList(WORDS)
const words = createWordListProvider(rules)

describe('the word list', () => {
  it('reads word, word|review and word|block, skipping comments and blank lines, naming bad lines', () => {
    expect(rules).toEqual([
      { word: '违禁测试词', verdict: 'block' },
      { word: '灰色测试词', verdict: 'review' },
      { word: 'badword', verdict: 'block' },
      { word: '测试禁语', verdict: 'block', pinyin: true }
    ])
    expect(parseWordList('好词|maybe\n\n# x\n|block\n词|review|pinyin\n词|pinyin\n词|block|review').problems).toEqual([
      'line 1: "好词|maybe" is not word, word|review, word|block, or either with |pinyin',
      'line 4: "|block" is not word, word|review, word|block, or either with |pinyin',
      'line 7: "词|block|review" is not word, word|review, word|block, or either with |pinyin'
    ])
    expect(parseWordList('词|review|pinyin\n词|PINYIN').rules).toEqual([
      { word: '词', verdict: 'review', pinyin: true },
      { word: '词', verdict: 'block', pinyin: true }
    ])
  })

  it('normalises full-width, traditional characters, case and everything between characters', async () => {
    const normalize = await loadNormalizer()
    expect(normalize('ＢａｄＷｏｒｄ１２３')).toBe('badword123')
    expect(normalize('違禁測試詞')).toBe('违禁测试词')
    expect(normalize('违 禁\u200b测-试*词！')).toBe('违禁测试词')
  })

  it.each([
    ['plain', '这里有违禁测试词呀'],
    ['full-width letters', '说个 ＢＡＤＷＯＲＤ 吧'],
    ['inserted spaces', '违 禁 测 试 词'],
    ['inserted symbols', '违*禁-测_试.词'],
    ['ideographic spaces and zero-width characters', '违\u3000禁\u200b测\u200d试\ufeff词'],
    ['traditional characters', '這是違禁測試詞'],
    ['mixed case', 'BadWord'],
    ['traditional and symbols together', '違·禁·測·試·詞']
  ])('catches the evasion: %s', async (_name, text) => {
    expect(await words.checkText(text, 'chat')).toEqual({ verdict: 'block', rule: expect.any(String) })
  })

  it.each([
    ['full pinyin', '这是 ce shi jin yu 吗'],
    ['initials', '说个CSJY'],
    ['initials with symbols', 'c.s.j.y'],
    ['characters and pinyin mixed', '测shi禁yu'],
    ['characters and initials mixed', '测s禁y'],
    ['traditional characters and pinyin', '測試jin語']
  ])('catches an entry marked |pinyin written as: %s', async (_name, text) => {
    expect(await words.checkText(text, 'chat')).toEqual({ verdict: 'block', rule: '测试禁语' })
  })

  it('matches pinyin only for entries marked so, and no letter run shorter than the initials', async () => {
    // 违禁测试词 has no |pinyin: its spelling passes.
    expect(await words.checkText('wei jin ce shi ci', 'chat')).toEqual({ verdict: 'pass' })
    // Half-spelled letter runs (cesj, csjinyu) are not forms: they hide in ordinary words.
    expect(await words.checkText('cesj', 'chat')).toEqual({ verdict: 'pass' })
    expect(await words.checkText('test case: just yes', 'chat')).toEqual({ verdict: 'pass' })
  })

  it('passes clean text and gives review entries review', async () => {
    expect(await words.checkText('今天天气不错，写一首诗吧', 'chat')).toEqual({ verdict: 'pass' })
    expect(await words.checkText('灰 色 測 試 詞', 'chat')).toEqual({ verdict: 'review', rule: '灰色测试词' })
    // The worst entry wins.
    expect(await words.checkText('灰色测试词和违禁测试词', 'chat')).toEqual({ verdict: 'block', rule: '违禁测试词' })
  })
})

describe('the pipeline', () => {
  const down: TextProvider = {
    name: 'down',
    checkText: async () => {
      throw new ModerationUnavailable('down', 'HTTP 503')
    }
  }
  const make = (providers: TextProvider[]) => {
    const logged: ModerationLogEntry[] = []
    const moderator = createModerator({
      providers,
      failModes: DEFAULT_FAIL_MODES,
      windowChars: 50,
      log: { write: async (entry) => void logged.push(entry), purge: async () => 0 },
      logger: memoryLogger()
    })
    return { moderator, logged }
  }

  it('is off with no provider: the shared no-op, every check passes', async () => {
    expect(make([]).moderator).toBe(NO_MODERATION)
    expect(await NO_MODERATION.check({ kind: 'chat', text: '违禁测试词', source: 't' })).toEqual({ verdict: 'pass' })
    expect(loadConfig({}).moderation.providers).toEqual([])
  })

  it('logs what did not pass, with the provider and rule, and not what passed', async () => {
    const { moderator, logged } = make([words])
    await moderator.check({ kind: 'chat', text: '你好', source: 'chat.message', accountId: 'a1' })
    const result = await moderator.check({ kind: 'chat', text: '违禁测试词', source: 'chat.message', accountId: 'a1' })
    expect(result).toEqual({ verdict: 'block', provider: 'words', rule: '违禁测试词' })
    expect(logged).toEqual([{ kind: 'chat', source: 'chat.message', accountId: 'a1', text: '违禁测试词', result }])
    await expect(moderator.assertAllowed({ kind: 'name', text: '违禁测试词', source: 'user.nickname', what: '昵称' })).rejects.toMatchObject({
      code: 42200001,
      status: 422,
      message: '昵称包含违规信息，请修改后重试'
    })
  })

  it('a provider that is down: open with review for chat, closed for images, as configured per kind', async () => {
    const { moderator, logged } = make([down])
    expect(await moderator.check({ kind: 'chat', text: '你好', source: 'chat.message' })).toEqual({ verdict: 'review', failed: 'down: HTTP 503' })
    expect(await moderator.check({ kind: 'image', text: 'a cat', source: 'gallery.publish' })).toEqual({ verdict: 'block', failed: 'down: HTTP 503' })
    expect(logged.map((l) => l.result.verdict)).toEqual(['review', 'block'])
    // A stack: the list still blocks what it knows while the remote service is down.
    const both = make([words, down]).moderator
    expect(await both.check({ kind: 'chat', text: '违禁测试词', source: 'chat.message' })).toMatchObject({ verdict: 'block', provider: 'words' })
  })

  it('refuses a configuration it cannot run, naming each problem', () => {
    expect(() => loadConfig({ MODERATION_PROVIDERS: 'words,acme', MODERATION_FAIL_MODE: 'chat=maybe' })).toThrow(ConfigError)
    try {
      loadConfig({ MODERATION_PROVIDERS: 'words,aliyun,acme', MODERATION_FAIL_MODE: 'chat=maybe' })
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'MODERATION_PROVIDERS: unknown provider "acme" (known: words, aliyun, tencent, openai)',
        'MODERATION_WORDS_FILE is required when MODERATION_PROVIDERS has words',
        'MODERATION_ALIYUN_ACCESS_KEY_ID is required when MODERATION_PROVIDERS has aliyun',
        'MODERATION_ALIYUN_ACCESS_KEY_SECRET is required when MODERATION_PROVIDERS has aliyun',
        'MODERATION_FAIL_MODE: "chat=maybe" is not kind=open or kind=closed (kinds: chat, prompt, name, reply, image)'
      ])
    }
    const config = loadConfig({ MODERATION_PROVIDERS: 'words', MODERATION_WORDS_FILE: WORDS, MODERATION_FAIL_MODE: 'chat=closed' })
    expect(config.moderation).toMatchObject({ providers: ['words'], failModes: { chat: 'closed', image: 'closed', reply: 'open' }, retentionDays: 183 })
    expect(config.moderation.words).toHaveLength(4)
  })
})

describe('cost', () => {
  it('checking one stream window against a 10 000-entry list takes well under a millisecond', async () => {
    // Synthetic entries of 2–5 CJK characters, as an operator's list has them.
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648)
    const big = Array.from({ length: 10_000 }, () => ({
      word: Array.from({ length: 2 + (next() % 4) }, () => String.fromCharCode(0x4e00 + (next() % 20_000))).join(''),
      verdict: 'block' as const
    }))
    const provider = createWordListProvider(big)
    await provider.ready()
    const window = '这是一段模型的回答，长度大约一百二十个字符，用来衡量每个窗口的检查成本。'.repeat(4).slice(0, 120)
    for (let i = 0; i < 50; i++) await provider.checkText(window, 'reply')
    const runs = 500
    const started = performance.now()
    for (let i = 0; i < runs; i++) await provider.checkText(window, 'reply')
    const perWindowMs = (performance.now() - started) / runs
    console.info(`moderation: ${perWindowMs.toFixed(3)} ms per 120-character window (10 000 entries)`)
    // Generous for a loaded CI machine; typically ~0.05 ms.
    expect(perWindowMs).toBeLessThan(2)
  })
})
