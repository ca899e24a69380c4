// CDN build: the loader (a classic script, IIFE) and the widget/host elements (ES modules sharing
// chunks), with React aliased to preact/compat. The npm build (tsup.config.ts) keeps real React.
import alias from '@rollup/plugin-alias'
import resolve from '@rollup/plugin-node-resolve'
import replace from '@rollup/plugin-replace'
import terser from '@rollup/plugin-terser'
import { transform } from 'esbuild'
import esbuild from 'rollup-plugin-esbuild'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { elements, entries } from './scripts/elements.mjs'
import { blurbsDefine, menuDefine } from './scripts/tools.mjs'
import vendorChunks, { MERMAID_LIB } from './scripts/vendor-chunks.mjs'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))

/**
 * Each element's entry registers the stylesheet compiled for that element alone
 * (scripts/build-css.mjs), so its chunk carries its own classes and no other element's.
 */
const elementStyles = () => ({
  name: 'lingxi-element-styles',
  transform(code, id) {
    const element = elements.find((e) => id === here(e.entry))
    if (!element) return null
    const sheet = JSON.stringify(here(`src/styles/generated/${element.file}.ts`))
    const styles = JSON.stringify(here('src/ui/styles.ts'))
    return {
      code: `import { css as __lxCss } from ${sheet};\nimport { registerCss as __lxRegisterCss } from ${styles};\n__lxRegisterCss(${JSON.stringify(element.tag)}, __lxCss);\n${code}`,
      map: null
    }
  }
})

/** Manifest fields only the build reads: the loader's tag table, the npm entry, the menu rules (compiled into core), the allowance kinds, the blurbs (compiled into src/host/blurbs.ts). */
const BUILD_ONLY = new Set(['tag', 'npm', 'allowances', 'menu', 'highlights', 'blurb'])

/**
 * Leaves the manifests' build-only fields (src/widgets/<tool>/tool.ts) out of the browser bundles:
 * the host reads a manifest's routes, screen, layout, header and bar, nothing else.
 */
const manifestsForTheBrowser = () => ({
  name: 'lingxi-manifests',
  transform(code, id) {
    if (!/[\\/]src[\\/]widgets[\\/][^\\/]+[\\/]tool\.ts$/.test(id)) return null
    const file = ts.createSourceFile(id, code, ts.ScriptTarget.Latest, true)
    const cuts = []
    const visit = (node) => {
      if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && BUILD_ONLY.has(node.name.text)) {
        const comma = /^\s*,/.exec(code.slice(node.end))
        cuts.push([node.getStart(file), node.end + (comma ? comma[0].length : 0)])
      } else ts.forEachChild(node, visit)
    }
    visit(file)
    let out = code
    for (const [from, to] of cuts.reverse()) out = out.slice(0, from) + out.slice(to)
    return { code: out, map: null }
  }
})

/**
 * Small shared modules that each tool's code carries its own copy of, rather than a chunk of its
 * own: a partner page embedding one tool would pay a request and more bytes for a tiny shared
 * chunk than for the copy. One source, one copy per tool folder that imports it; none keeps
 * state of its own (a store goes through shared(), so copies share it).
 */
const PER_ELEMENT = [
  'src/ui/logged-out.tsx',
  'src/ui/use-paged-list.ts',
  'src/ui/use-effect-event.ts',
  'src/core/paged-list.ts',
  'src/core/handoff.ts',
  'src/core/time.ts'
].map(here)

/** The file a copy was made from (`use-paged-list.roles.ts` → `use-paged-list.ts`), or undefined. */
const originalOf = (id) => PER_ELEMENT.find((file) => id !== file && id.replace(/\.[\w-]+(\.[jt]sx?)$/, '$1') === file)

const perElementCopies = () => ({
  name: 'lingxi-per-element',
  async resolveId(source, importer, options) {
    if (!importer || !source.startsWith('.')) return null
    // A tool's file, or a copy (whose own copies belong to the same tool: use-paged-list → paged-list).
    const folder = originalOf(importer) ? /\.([\w-]+)\.[jt]sx?$/.exec(importer)[1] : /[\\/]src[\\/]widgets[\\/]([^\\/]+)[\\/]/.exec(importer)?.[1]
    if (!folder) return null
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true })
    if (!resolved || !PER_ELEMENT.includes(resolved.id)) return null
    // A sibling path that does not exist: its own imports resolve from the same folder.
    return resolved.id.replace(/(\.[jt]sx?)$/, `.${folder}$1`)
  },
  load(id) {
    const original = originalOf(id)
    return original ? readFileSync(original, 'utf8') : null
  }
})

/**
 * Writes dist/chunks.json (outside dist/cdn: it is not published): each chunk's static and dynamic
 * imports and the source files in it with their rendered length (what a chunk is made of), and
 * the chunks each tool's manifest imports lazily (its screen), by tool folder. scripts/build.mjs
 * reads it to write the host page's preload lists.
 */
const chunkGraph = () => ({
  name: 'lingxi-chunk-graph',
  generateBundle(_, bundle) {
    const chunks = {}
    const chunkOf = new Map()
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== 'chunk') continue
      for (const id of chunk.moduleIds) chunkOf.set(id, chunk.fileName)
      const modules = Object.entries(chunk.modules).filter(([, m]) => m.renderedLength > 0)
      chunks[chunk.fileName] = {
        imports: chunk.imports,
        dynamicImports: chunk.dynamicImports,
        modules: Object.fromEntries(modules.map(([id, m]) => [relative(here('.'), id.replace(/^\0/, '')), m.renderedLength]))
      }
    }
    const screens = {}
    for (const id of this.getModuleIds()) {
      const tool = /[\\/]src[\\/]widgets[\\/]([^\\/]+)[\\/]tool\.ts$/.exec(id)?.[1]
      if (tool)
        screens[tool] = [
          ...new Set(
            this.getModuleInfo(id)
              .dynamicallyImportedIds.map((d) => chunkOf.get(d))
              .filter(Boolean)
          )
        ]
    }
    mkdirSync(here('dist'), { recursive: true })
    writeFileSync(here('dist/chunks.json'), `${JSON.stringify({ screens, chunks }, null, 1)}\n`)
  }
})

const production = process.env.NODE_ENV !== 'development'

/** Chunks up to this size (all of the embed path's) go through terser; larger ones through esbuild. */
const TERSER_MAX = 100_000

/**
 * Minifies each chunk: terser (two compress passes) for the small ones a partner page downloads,
 * about 2% smaller after gzip than esbuild's minifier (docs/decisions/0012); esbuild for the big
 * lazy ones (mermaid, KaTeX), where terser would add minutes to the build for bytes few download.
 */
const minify = () => {
  const small = terser({ ecma: 2020, compress: { passes: 2 }, format: { comments: false } })
  return {
    name: 'lingxi-minify',
    async renderChunk(code, chunk, options, meta) {
      if (code.length <= TERSER_MAX) return small.renderChunk.call(this, code, chunk, options, meta)
      const out = await transform(code, {
        minify: true,
        target: 'es2020',
        format: options.format === 'es' ? 'esm' : undefined,
        legalComments: 'none',
        sourcemap: !!options.sourcemap,
        sourcefile: chunk.fileName
      })
      return { code: out.code, map: out.map || null }
    }
  }
}

const plugins = (extra = {}) => [
  alias({
    entries: [
      { find: /^react\/jsx-(dev-)?runtime$/, replacement: 'preact/jsx-runtime' },
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react$/, replacement: 'preact/compat' },
      // useStore without the `keys` option nobody uses (src/ui/use-store.ts): 0.5 KB less on every embed
      { find: /^@nanostores\/react$/, replacement: fileURLToPath(new URL('./src/ui/use-store.ts', import.meta.url)) }
    ]
  }),
  resolve({ browser: true, dedupe: ['preact'], extensions: ['.mjs', '.js', '.ts', '.tsx', '.json'] }),
  replace({
    preventAssignment: true,
    // __LINGXI_MENU__: what the tools' manifests tell the shared menu (src/core/menu.ts).
    values: {
      'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development'),
      __LINGXI_MENU__: menuDefine,
      __LINGXI_BLURBS__: blurbsDefine,
      ...extra
    }
  }),
  esbuild({
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'react',
    minify: false,
    legalComments: 'none',
    loaders: { '.json': 'json' }
  })
]

export default [
  {
    input: 'src/loader/loader.ts',
    output: { file: 'dist/cdn/loader.js', format: 'iife', sourcemap: false },
    plugins: [...plugins({ __LINGXI_ELEMENTS__: JSON.stringify(entries.map((e) => e.file)) }), production && minify()]
  },
  {
    input: Object.fromEntries(entries.map((e) => [e.file, e.entry])),
    output: {
      dir: 'dist/cdn',
      format: 'es',
      // mermaid's library, emitted as a chunk of its own (scripts/vendor-chunks.mjs), is named like the shared chunks
      entryFileNames: (chunk) => (chunk.name === MERMAID_LIB ? 'chunks/[name]-[hash].js' : '[name].js'),
      chunkFileNames: 'chunks/[name]-[hash].js',
      // Maps without the `//# sourceMappingURL` line (≈ 40 bytes gzip in every chunk a partner page
      // downloads): the server names each map in a SourceMap header instead (server/src/http/static-site.ts).
      sourcemap: 'hidden'
    },
    plugins: [elementStyles(), manifestsForTheBrowser(), perElementCopies(), ...plugins(), production && minify(), chunkGraph(), vendorChunks()],
    // src/core is side-effect free (stores are created on first use through shared()), so an
    // element only carries the core modules it really uses — login must not pay for chat.
    treeshake: { moduleSideEffects: (id) => !/[\\/]src[\\/]core[\\/]|[\\/]eventsource-parser[\\/]/.test(id) },
    onwarn(warning, warn) {
      if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return
      warn(warning)
    }
  }
]
