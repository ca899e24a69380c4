// @vitest-environment node
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { katexCss, katexFonts } from './katex-css'
import hljs from './vendor/highlight-core.js'

describe('generated files', () => {
  it('match the installed KaTeX and highlight.js (else run node src/ui/markdown/generate.mjs)', () => {
    const script = fileURLToPath(new URL('./generate.mjs', import.meta.url))
    expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow()
  })

  it('declares no fonts and loads nothing itself: fonts are registered on the document', () => {
    expect(katexCss).not.toMatch(/@font-face|url\(/)
    expect(katexFonts).toHaveLength(20)
    expect(katexFonts).toContainEqual(['KaTeX_Main', 'KaTeX_Main-Regular', '400', 'normal'])
  })

  it('give a working highlight.js core', async () => {
    hljs.registerLanguage('json', (await import('highlight.js/lib/languages/json')).default)
    expect(hljs.highlight('{"a": 1}', { language: 'json' }).value).toContain('hljs-number')
  })
})
