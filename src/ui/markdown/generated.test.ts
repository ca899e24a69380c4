// @vitest-environment node
import { katexCss, katexFonts } from './vendor/katex-css'
import Prism from './vendor/prism/core.js'
import { grammarLoaders, grammarRequires } from './vendor/prism/languages'

describe('generated files (npm run css writes them)', () => {
  it('declares no fonts and loads nothing itself: fonts are registered on the document', () => {
    expect(katexCss).not.toMatch(/@font-face|url\(/)
    expect(katexFonts).toHaveLength(20)
    expect(katexFonts).toContainEqual(['KaTeX_Main', 'KaTeX_Main-Regular', '400', 'normal'])
  })

  it('give a working Prism core that leaves the global scope alone', async () => {
    expect('Prism' in globalThis).toBe(false)
    ;(await grammarLoaders.json!()).default(Prism)
    const tokens = Prism.tokenize('{"a": 1}', Prism.languages.json)
    expect(tokens.filter((t) => typeof t !== 'string').map((t) => t.type)).toEqual(['punctuation', 'property', 'operator', 'number', 'punctuation'])
    expect('Prism' in globalThis).toBe(false)
  })

  it('know which grammars each grammar extends', () => {
    expect(grammarRequires.typescript).toEqual(['javascript'])
    expect(grammarRequires.javascript).toEqual(['clike'])
    expect(Object.keys(grammarLoaders)).toEqual(expect.arrayContaining(['clike', 'markup-templating', 'python', 'tsx']))
  })
})

describe('every grammar', () => {
  it('loads with what it extends and tokenizes', async () => {
    const { loadLanguage, resolveLanguage } = await import('./highlight')
    const names = Object.keys(grammarLoaders).filter((n) => resolveLanguage(n) === n)
    expect(names.length).toBeGreaterThanOrEqual(44)
    for (const name of names) {
      expect(await loadLanguage(name), name).toBe(true)
      expect(Prism.tokenize('a = "b" // c\n', Prism.languages[name]).length, name).toBeGreaterThan(0)
    }
    expect('Prism' in globalThis).toBe(false)
  })
})
