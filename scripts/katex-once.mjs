// KaTeX shipped once (issue 16): a rollup plugin the CDN build loads (scripts/build.mjs, `--plugin`).
// mermaid's self-contained ES build (src/ui/markdown/mermaid.ts imports mermaid.esm.min.mjs) carries
// its own KaTeX, an older one, as a lazy chunk it imports for `$$…$$` in a diagram's labels. Resolved
// instead to the `katex` package the maths renderer imports (src/ui/markdown/math.ts), both share
// one chunk: a page that shows maths and a diagram fetches KaTeX once, and dist/cdn holds one copy
// (tests/unit/katex-once.test.ts). mermaid only calls `renderToString` of the default export.
import { fileURLToPath } from 'node:url'

const math = fileURLToPath(new URL('../src/ui/markdown/math.ts', import.meta.url))
const MERMAID_CHUNK = /[\\/]mermaid[\\/]dist[\\/]chunks[\\/]mermaid\.esm\.min[\\/]/
const KATEX_CHUNK = /^\.\/katex-[\w-]+\.mjs$/

/** mermaid's import of its KaTeX chunk → the `katex` the maths chunk imports. */
const isMermaidKatex = (source, importer) => Boolean(importer) && MERMAID_CHUNK.test(importer) && KATEX_CHUNK.test(source)

export default function katexOnce() {
  return {
    name: 'lingxi-katex-once',
    resolveId: {
      // before node-resolve, which would resolve the relative path to mermaid's own copy
      order: 'pre',
      handler(source, importer, options) {
        if (!isMermaidKatex(source, importer)) return null
        return this.resolve('katex', math, { ...options, skipSelf: true })
      }
    }
  }
}
