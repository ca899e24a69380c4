/**
 * The normalisation that defeats the usual evasions of a word list, applied alike to the list's
 * entries and to the text checked:
 * - NFKC: full-width letters and digits become half-width (ＡＢＣ１ → ABC1), compatibility forms fold;
 * - traditional → simplified characters (OpenCC's t2s, 發財 → 发财);
 * - case folding;
 * - everything between characters that is not a letter or a digit is dropped: spaces, punctuation,
 *   symbols, emoji, zero-width characters (发 * 财, 发\u200b财 → 发财).
 */
export type Normalize = (text: string) => string

// Letters (any script) and digits stay; marks stay so that NFKC-composed text is unchanged.
const NOT_WORD = /[^\p{L}\p{N}\p{M}]+/gu

let loading: Promise<(text: string) => string> | undefined

/**
 * OpenCC's traditional→simplified table (~110 KB of dictionaries) is imported on first use only:
 * a server without a word list never loads it.
 */
function traditionalToSimplified(): Promise<(text: string) => string> {
  loading ??= import('opencc-js/t2cn').then((opencc) => opencc.Converter({ from: 't', to: 'cn' }))
  return loading
}

/** The normaliser, once its dictionary is loaded. */
export async function loadNormalizer(): Promise<Normalize> {
  const t2s = await traditionalToSimplified()
  return (text) => t2s(text.normalize('NFKC')).toLowerCase().replace(NOT_WORD, '')
}
