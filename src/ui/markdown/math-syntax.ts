// The maths delimiters the renderer understands, shared by the marked extension and hasMath().
// `$…$` follows pandoc's rule so prices stay prices: no space after the opening `$`, none before
// the closing one, no digit right after it ("$5 and $10", "$100-$200" are not maths). Maths never
// spans a blank line (a paragraph break ends it), and `\$` is an escaped dollar.

const noBlankLine = String.raw`(?:(?!\n[ \t]*\n)[\s\S])+?`
const dollarInline = String.raw`\$(?![\s$])(?:\\[\s\S]|[^\\$\n])+?(?<![\s\\])\$(?![\d$])`
const doubleDollar = String.raw`\$\$(?!\$)${noBlankLine}\$\$`
const bracket = String.raw`\\\[${noBlankLine}\\\]`
const paren = String.raw`\\\(${noBlankLine}\\\)`

/** Display maths as a block of its own: `$$…$$` or `\[…\]` alone on their lines. */
export const blockMath = new RegExp(String.raw`^ {0,3}(?:\$\$(${noBlankLine})\$\$|\\\[(${noBlankLine})\\\])[ \t]*(?:\n|$)`)

/** Maths inside a paragraph, anchored at the lexer's position; group 1 is the opener. */
export const inlineMath = new RegExp(
  String.raw`^(?:(\$\$)(${noBlankLine})\$\$(?!\$)|(\\\[)(${noBlankLine})\\\]|(\\\()(${noBlankLine})\\\)|(\$)((?![\s$])(?:\\[\s\S]|[^\\$\n])+?(?<![\s\\]))\$(?![\d$]))`,
)

/** Where maths could start in a run of inline text. */
export const mathStart = /\$|\\[([]/

const anyMath = new RegExp(String.raw`(?<![\\$])(?:${doubleDollar}|${bracket}|${paren}|${dollarInline})`, 'g')

/** True when the text holds maths KaTeX would render (so KaTeX is worth loading). */
export function hasMath(text: string): boolean {
  anyMath.lastIndex = 0
  return anyMath.test(text)
}

/** Same length, with every maths span blanked: keeps `*` and `_` inside maths from pairing up as emphasis. */
export function maskMath(src: string): string {
  if (!mathStart.test(src)) return src
  anyMath.lastIndex = 0
  return src.replace(anyMath, (m) => 'a'.repeat(m.length))
}
