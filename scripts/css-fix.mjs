/**
 * Browsers ignore `@property` inside shadow roots, so Tailwind's `--tw-*` initial values would be
 * missing there (shadows, rings, transforms and gradients silently break). Tailwind already emits
 * the same initial values as a fallback block guarded by `@supports` for browsers without
 * `@property`: make that block unconditional, let it match `:host` too, and drop the dead
 * `@property` rules.
 */
export function fixShadowProperties(input) {
  const css = input.replace(/@property\s+--[\w-]+\s*\{[^}]*\}/g, '')
  const start = css.indexOf('@layer properties{')
  if (start === -1) return css
  const supports = css.indexOf('@supports', start)
  const open = css.indexOf('{', supports)
  // find the end of the @supports block by brace matching
  let depth = 0
  let end = open
  for (; end < css.length; end++) {
    if (css[end] === '{') depth++
    else if (css[end] === '}' && --depth === 0) break
  }
  const inner = css.slice(open + 1, end).replace(/^\*,/, ':host,*,')
  return css.slice(0, supports) + inner + css.slice(end + 1)
}
