import { readFileSync } from 'node:fs'
import AhoCorasick from 'modern-ahocorasick'
import { loadNormalizer, type Normalize } from './normalize.js'
import { SEVERITY, type TextProvider, type Verdict } from './types.js'

/** One line of the operator's list: the word as written, and what a text containing it gets. */
export interface WordRule {
  word: string
  verdict: Exclude<Verdict, 'pass'>
}

/**
 * The list file: one rule per line, `word` (block) or `word|review` / `word|block`; blank lines and
 * lines starting with `#` are skipped. Returns the rules and the lines it could not read.
 */
export function parseWordList(text: string): { rules: WordRule[]; problems: string[] } {
  const rules: WordRule[] = []
  const problems: string[] = []
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    const bar = line.lastIndexOf('|')
    const word = (bar >= 0 ? line.slice(0, bar) : line).trim()
    const verdict =
      bar >= 0
        ? line
            .slice(bar + 1)
            .trim()
            .toLowerCase()
        : 'block'
    if (word === '' || (verdict !== 'block' && verdict !== 'review')) {
      problems.push(`line ${i + 1}: "${line.slice(0, 40)}" is not word or word|review or word|block`)
      return
    }
    rules.push({ word, verdict })
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
    compiled ??= loadNormalizer().then((normalize) => {
      const patterns = rules.map((rule) => ({ pattern: normalize(rule.word), data: rule })).filter((p) => p.pattern !== '')
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
