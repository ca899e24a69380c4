import { readFileSync } from 'node:fs'
import AhoCorasick from 'modern-ahocorasick'
import { loadNormalizer, type Normalize } from './normalize.js'
import { loadSpellings } from './pinyin.js'
import { SEVERITY, type TextProvider, type Verdict } from './types.js'

/** One line of the operator's list: the word as written, and what a text containing it gets. */
export interface WordRule {
  word: string
  verdict: Exclude<Verdict, 'pass'>
  /** `|pinyin`: the entry also matches written in pinyin, in initials, or mixed with its characters (pinyin.ts). */
  pinyin?: true
}

const SHAPE = 'word, word|review, word|block, or either with |pinyin'

/**
 * The list file: one rule per line, `word` (block), `word|review` or `word|block`, and `|pinyin`
 * after either to catch the entry spelled in pinyin (`法轮功|block|pinyin` also catches `falungong`,
 * `flg`, `fa轮g`…); blank lines and lines starting with `#` are skipped. Returns the rules and the
 * lines it could not read.
 */
export function parseWordList(text: string): { rules: WordRule[]; problems: string[] } {
  const rules: WordRule[] = []
  const problems: string[] = []
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    const [first = '', ...flags] = line.split('|').map((part) => part.trim())
    const options = flags.map((flag) => flag.toLowerCase())
    const pinyin = options.at(-1) === 'pinyin'
    if (pinyin) options.pop()
    const verdict = options[0] ?? 'block'
    if (first === '' || options.length > 1 || (verdict !== 'block' && verdict !== 'review')) {
      problems.push(`line ${i + 1}: "${line.slice(0, 40)}" is not ${SHAPE}`)
      return
    }
    rules.push(pinyin ? { word: first, verdict, pinyin } : { word: first, verdict })
  })
  return { rules, problems }
}

export function readWordList(file: string): { rules: WordRule[]; problems: string[] } {
  return parseWordList(readFileSync(file, 'utf8'))
}

interface Compiled {
  normalize: Normalize
  matcher: AhoCorasick<WordRule> | undefined
}

/**
 * The local matcher: an Aho–Corasick automaton over the normalised entries, run on the normalised
 * text (normalize.ts), so one pass finds every entry whatever the evasion. Built on first use (the
 * normaliser loads its dictionary then); a text gets the worst verdict among the entries it holds.
 */
export function createWordListProvider(rules: readonly WordRule[]): TextProvider & { ready(): Promise<void> } {
  let compiled: Promise<Compiled> | undefined
  const compile = () => {
    compiled ??= Promise.all([loadNormalizer(), rules.some((rule) => rule.pinyin) ? loadSpellings() : undefined]).then(([normalize, spellings]) => {
      const patterns = rules.flatMap((rule) => {
        const word = normalize(rule.word)
        const forms = rule.pinyin && spellings ? [word, ...spellings(word)] : [word]
        return [...new Set(forms)].filter((form) => form !== '').map((pattern) => ({ pattern, data: rule }))
      })
      return { normalize, matcher: patterns.length > 0 ? new AhoCorasick<WordRule>(patterns) : undefined }
    })
    return compiled
  }
  return {
    name: 'words',
    async ready() {
      await compile()
    },
    async checkText(text) {
      const { normalize, matcher } = await compile()
      if (!matcher) return { verdict: 'pass' }
      let worst: WordRule | undefined
      for (const match of matcher.iterate(normalize(text))) {
        const rule = match.data
        if (!rule) continue
        if (!worst || SEVERITY[rule.verdict] > SEVERITY[worst.verdict]) worst = rule
        if (worst.verdict === 'block') break
      }
      return worst ? { verdict: worst.verdict, rule: worst.word } : { verdict: 'pass' }
    }
  }
}
