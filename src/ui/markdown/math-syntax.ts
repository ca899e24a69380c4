// The maths delimiters the renderer understands, shared by the parser (parse.ts) and hasMath().
// `$…$` follows pandoc's rule so prices stay prices: no space after the opening `$`, none before
// the closing one, no digit right after it ("$5 and $10", "$100-$200" are not maths). Maths never
// spans a blank line (a paragraph break ends it), and `\$` is an escaped dollar. Display maths on
// lines of its own is a paragraph whose delimiters are found inline, across its lines.

/**
 * Maths inside a paragraph, sticky (it matches at `lastIndex`, the parser's position): groups
 * 1, 3, 5, 7 are the openers (`$$`, `\[`, `\(`, `$`), 2, 4, 6, 8 the TeX. Written out (it ships
 * in the renderer chunk); `(?:(?!\n[ \t]*\n)[\s\S])+?` is noBlankLine.
 */
export const inlineMathAt =
  /(?:(\$\$)((?:(?!\n[ \t]*\n)[\s\S])+?)\$\$(?!\$)|(\\\[)((?:(?!\n[ \t]*\n)[\s\S])+?)\\\]|(\\\()((?:(?!\n[ \t]*\n)[\s\S])+?)\\\)|(\$)((?![\s$])(?:\\[\s\S]|[^\\$\n])+?(?<![\s\\]))\$(?![\d$]))/y

let anyMath: RegExp | undefined

/** Any maths, anywhere (not after a backslash or another `$`). */
function findMath(): RegExp {
  const noBlankLine = String.raw`(?:(?!\n[ \t]*\n)[\s\S])+?`
  const dollarInline = String.raw`\$(?![\s$])(?:\\[\s\S]|[^\\$\n])+?(?<![\s\\])\$(?![\d$])`
  const doubleDollar = String.raw`\$\$(?!\$)${noBlankLine}\$\$`
  const bracket = String.raw`\\\[${noBlankLine}\\\]`
  const paren = String.raw`\\\(${noBlankLine}\\\)`
  anyMath ??= new RegExp(String.raw`(?<![\\$])(?:${doubleDollar}|${bracket}|${paren}|${dollarInline})`, 'g')
  anyMath.lastIndex = 0
  return anyMath
}

/** True when the text holds maths KaTeX would render (so KaTeX is worth loading). */
export function hasMath(text: string): boolean {
  return findMath().test(text)
}

/** Same length, with every maths span blanked: keeps `*` and `_` inside maths from pairing up as emphasis. */
export function maskMath(src: string): string {
  return /\$|\\[([]/.test(src) ? src.replace(findMath(), (m) => 'a'.repeat(m.length)) : src
}
