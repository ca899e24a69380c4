/**
 * The pinyin spellings of a word-list entry marked `|pinyin` (wordlist.ts), already normalised
 * (lower case, nothing between characters): each Chinese character written as itself, in full
 * pinyin or as its initial, in every combination — `法轮功` gives `falungong`, `flg`, `fa轮g`,
 * `f轮功`… — since evaders mix them. Forms of letters only are the full spelling and the initials
 * (when three or more): shorter or half-spelled letter runs (`fl`, `fal`) occur inside too many
 * ordinary words once spaces are dropped. Entries of more than MIXED_MAX characters get the two
 * letter forms only (3^n mixes would bloat the automaton).
 */
export type Spellings = (word: string) => string[]

const MIXED_MAX = 5
const HAN = /\p{Script=Han}/u

let loading: Promise<Spellings> | undefined

/** pinyin-pro (its dictionary is large) is imported only when the list has a `|pinyin` entry. */
export function loadSpellings(): Promise<Spellings> {
  loading ??= import('pinyin-pro').then(({ pinyin }) => (word: string) => {
    const chars = [...word]
    if (!chars.some((c) => HAN.test(c))) return []
    const full = pinyin(word, { toneType: 'none', type: 'array', nonZh: 'removed', v: true })
    if (full.length !== chars.filter((c) => HAN.test(c)).length) return []
    let h = 0
    // Per character: what it may be written as.
    const choices = chars.map((c) => {
      if (!HAN.test(c)) return [c]
      const syllable = (full[h++] ?? '').toLowerCase()
      return syllable === '' ? [c] : [c, syllable, syllable[0] as string]
    })
    const out = new Set<string>()
    const initials = choices.map((options) => options.at(-1)).join('')
    const spelled = choices.map((options) => (options.length > 1 ? options[1] : options[0])).join('')
    out.add(spelled)
    if (initials.length >= 3) out.add(initials)
    if (chars.length <= MIXED_MAX) {
      let forms = ['']
      for (const options of choices) forms = forms.flatMap((prefix) => options.map((option) => prefix + option))
      for (const form of forms) if (HAN.test(form)) out.add(form)
    }
    out.delete(word)
    return [...out]
  })
  return loading
}
