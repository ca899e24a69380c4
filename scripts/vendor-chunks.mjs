// KaTeX and mermaid at stable URLs (issue 16): a rollup plugin of the CDN build (rollup.config.mjs).
// The npm package does not bundle them (an app that installs only `lingxi` must build without
// them): its maths and diagram renderers import `<api>/cdn/vendor/katex.js` and
// `<api>/cdn/vendor/mermaid.js` at run time (src/npm/lazy.ts). Each is a one-line module
// re-exporting the CDN build's own hashed chunk, so the server serves the copy the embed already
// uses (KaTeX once, mermaid once) and the chunk stays immutable in caches while the facade is
// revalidated. mermaid's library becomes its own chunk for that (an emitted chunk keeps its default
// export, and holds the library itself rather than a facade); the CDN's mermaid renderer imports it.
import { fileURLToPath } from 'node:url'

const math = fileURLToPath(new URL('../src/ui/markdown/math.ts', import.meta.url))
const diagrams = fileURLToPath(new URL('../src/ui/markdown/mermaid.ts', import.meta.url))

/** The emitted mermaid chunk's name: rollup.config.mjs names it like a shared chunk (hashed, under chunks/). */
export const MERMAID_LIB = 'mermaid-lib'

/** The facade of a chunk whose default export is the library. */
const facade = (file) => `export{default}from"../${file}";\n`

export default function vendorChunks() {
  let katexId = ''
  let mermaidRef = ''
  return {
    name: 'lingxi-vendor-chunks',
    async buildStart() {
      const katex = await this.resolve('katex', math, { skipSelf: true })
      const mermaid = await this.resolve('mermaid/dist/mermaid.esm.min.mjs', diagrams, { skipSelf: true })
      if (!katex || !mermaid) this.error('vendor chunks: katex or mermaid does not resolve')
      katexId = katex.id
      mermaidRef = this.emitFile({ type: 'chunk', id: mermaid.id, name: MERMAID_LIB, preserveSignature: 'allow-extension' })
    },
    generateBundle(_, bundle) {
      // KaTeX is already a chunk of its own (mermaid imports it dynamically, so its exports keep their names)
      const katex = Object.values(bundle).find((c) => c.type === 'chunk' && c.facadeModuleId === katexId)
      if (!katex?.exports.includes('default')) this.error('vendor chunks: no chunk exports KaTeX as its default')
      const mermaid = this.getFileName(mermaidRef)
      if (!bundle[mermaid]?.exports?.includes('default')) this.error('vendor chunks: the mermaid chunk has no default export')
      this.emitFile({ type: 'asset', fileName: 'vendor/katex.js', source: facade(katex.fileName) })
      this.emitFile({ type: 'asset', fileName: 'vendor/mermaid.js', source: facade(mermaid) })
    }
  }
}
