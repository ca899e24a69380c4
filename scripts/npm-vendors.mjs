// KaTeX and mermaid stay out of the npm package's code (issue 16): an esbuild plugin of the npm
// build (tsup.config.ts). A bundler resolves every import it sees at build time, so an app that
// installs only `lingxi` (katex and mermaid are optional peers) would fail to build on the lazy
// maths and diagram chunks' imports. Here the markdown renderer's loaders (src/ui/markdown/lazy.ts)
// become src/npm/lazy.ts's, which import each library at run time from the Lingxi server (or the
// app's own copy), and the renderers' imports of the libraries read what it loaded. No bare `katex`
// or `mermaid` import is left (tests/unit/npm-vendors.test.ts). The CDN build bundles both as before.
import { fileURLToPath } from 'node:url'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const npmLazy = here('../src/npm/lazy.ts')
const renderer = here('../src/ui/markdown/renderer.ts')
/** The libraries' imports in src/ui/markdown/math.ts and mermaid.ts → the field of `vendors` they read. */
const VENDORS = { katex: 'katex', 'mermaid/dist/mermaid.esm.min.mjs': 'mermaid' }

/** @returns {import('esbuild').Plugin} */
export default function npmVendors() {
  return {
    name: 'lingxi-npm-vendors',
    setup(build) {
      build.onResolve({ filter: /^\.\/lazy$/ }, (args) => (args.importer === renderer ? { path: npmLazy } : undefined))
      build.onResolve({ filter: /^(katex|mermaid)(\/.*)?$/ }, (args) => {
        if (!VENDORS[args.path]) return { errors: [{ text: `${args.path}: the npm build imports katex and mermaid only through src/npm/lazy.ts` }] }
        return { path: args.path, namespace: 'lingxi-vendor' }
      })
      build.onLoad({ filter: /.*/, namespace: 'lingxi-vendor' }, (args) => ({
        contents: `import { vendors } from ${JSON.stringify(npmLazy)}\nexport default vendors.${VENDORS[args.path]}\n`,
        loader: 'js',
        resolveDir: here('..')
      }))
    }
  }
}
