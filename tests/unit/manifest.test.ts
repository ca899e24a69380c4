import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

// custom-elements.json (scripts/manifest.mjs, issue 16 item 5): every `::part` a widget's own code
// renders and every `--lingxi-*` property Lingxi's styles read is listed, so editors and the
// README's readers can find them.

const root = process.cwd()
const manifest = JSON.parse(readFileSync(join(root, 'custom-elements.json'), 'utf8')) as {
  modules: { declarations: { tagName: string; cssParts: { name: string }[]; cssProperties: { name: string }[] }[] }[]
}
const declarations = manifest.modules.map((m) => m.declarations[0]!)
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]))
const sources = (dir: string) => walk(join(root, dir)).filter((f) => /\.tsx?$/.test(f) && !f.includes('.test.'))

describe('custom-elements.json', () => {
  it("lists every part each widget's own code renders", () => {
    for (const d of declarations) {
      const folder = join('src/widgets', d.tagName.slice('lingxi-'.length))
      let files: string[]
      try {
        files = sources(folder)
      } catch {
        continue // lingxi-app: the host page
      }
      const parts = new Set(files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/part="([a-z-]+)"/g)].map((m) => m[1]!)))
      const listed = d.cssParts.map((p) => p.name)
      expect(
        [...parts].filter((p) => !listed.includes(p)),
        d.tagName
      ).toEqual([])
    }
  })

  it('lists on every element each --lingxi-* property the shared stylesheet reads, and the ones widgets read', () => {
    const css = readFileSync(join(root, 'src/styles/lingxi.css'), 'utf8')
    const shared = new Set([...css.matchAll(/var\((--lingxi-[a-z-]+)/g)].map((m) => m[1]!))
    expect(shared.size).toBeGreaterThanOrEqual(12)
    for (const d of declarations) {
      const listed = d.cssProperties.map((p) => p.name)
      expect(
        [...shared].filter((p) => !listed.includes(p)),
        d.tagName
      ).toEqual([])
    }
    const used = new Set(sources('src/widgets').flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/var\((--lingxi-[a-z-]+)/g)].map((m) => m[1]!)))
    const anywhere = new Set(declarations.flatMap((d) => d.cssProperties.map((p) => p.name)))
    expect([...used].filter((p) => !anywhere.has(p))).toEqual([])
  })
})
