// @vitest-environment node
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import resolve from '@rollup/plugin-node-resolve'
import { type Plugin, rollup } from 'rollup'
import katexOnce from '../../scripts/katex-once.mjs'

// KaTeX shipped once (issue 16): mermaid's own build imports its KaTeX copy as a lazy chunk; the
// CDN build's plugin (scripts/katex-once.mjs) resolves that import to the `katex` the maths
// renderer imports. A small build of both imports shows one copy with the plugin, two without.
// (The whole CDN build is checked by tests/e2e/katex-once.spec.ts.)

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
const chunks = join(root, 'node_modules/mermaid/dist/chunks/mermaid.esm.min')
const mermaidKatex = readdirSync(chunks).find((f) => /^katex-[\w-]+\.mjs$/.test(f))!
// A module in mermaid's chunk folder that imports its KaTeX as mermaid does (`await import("./katex-….mjs")`).
const diagram = join(chunks, 'lingxi-test-diagram.mjs')
const maths = join(root, 'src/ui/markdown/lingxi-test-maths.mjs')

const entries = (): Plugin => ({
  name: 'test-entries',
  resolveId: (id) => (id === diagram || id === maths ? id : null),
  load(id) {
    if (id === diagram) return `export const draw = async (t) => (await import('./${mermaidKatex}')).default.renderToString(t)`
    if (id === maths) return `import katex from 'katex'\nexport const typeset = (t) => katex.renderToString(t)`
    return null
  }
})

/** The output chunks that hold a KaTeX (its parser's error text), for a build with or without the plugin. */
async function katexCopies(plugins: Plugin[]): Promise<string[]> {
  const bundle = await rollup({ input: { diagram, maths }, plugins: [entries(), ...plugins, resolve({ browser: true })], logLevel: 'silent' })
  const { output } = await bundle.generate({ format: 'es' })
  await bundle.close()
  return output.flatMap((o) => (o.type === 'chunk' && o.code.includes('KaTeX parse error') ? [o.fileName] : []))
}

describe('KaTeX once', () => {
  it('finds mermaid’s own KaTeX chunk', () => {
    expect(mermaidKatex).toMatch(/^katex-/)
  })

  it('bundles two KaTeX copies without the plugin and one, shared by both imports, with it', async () => {
    expect(await katexCopies([])).toHaveLength(2)
    const once = await katexCopies([katexOnce()])
    expect(once).toHaveLength(1)
    // the shared copy is its own chunk, which both the diagram and the maths reach
    expect(once[0]).not.toMatch(/^(diagram|maths)\.js$/)
  }, 60_000)
})
