// The list of tools (src/widgets/tools.ts) for the build scripts, which run in Node without a
// TypeScript loader: esbuild bundles the list with its derivations (src/widgets/derive.ts), leaving
// the manifests' lazy imports (screens) out, never run. Read by scripts/elements.mjs (rollup's
// entries and the loader's tag table, the CSS build, the custom-elements manifest, the size
// report), rollup.config.mjs, tsup.config.ts and vitest.config.ts (the menu rules compiled into
// src/core). `node scripts/tools.mjs` writes src/npm/tools.ts, the npm entry's components.
import { build } from 'esbuild'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cache = join(root, 'node_modules/.cache/lingxi-tools')

const result = await build({
  stdin: {
    contents: "export { tools } from './src/widgets/tools'\nexport * from './src/widgets/derive'",
    resolveDir: root,
    loader: 'ts'
  },
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  packages: 'external',
  logLevel: 'silent',
  // Only the data is wanted: the menu rules are what this computes, so core sees none here.
  define: { __LINGXI_MENU__: '[[],[],[]]' },
  plugins: [
    {
      name: 'lazy-imports-stay-out',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined))
      }
    }
  ]
})
// A file under node_modules, so the list's own imports (nanostores) resolve as they do for the app.
mkdirSync(cache, { recursive: true })
const text = result.outputFiles[0].text
const file = join(cache, `tools-${createHash('sha1').update(text).digest('hex').slice(0, 12)}.mjs`)
if (!existsSync(file)) writeFileSync(file, text)
const derived = await import(pathToFileURL(file).href)

/** The manifests, in the list's order. */
export const tools = derived.tools
export const { elementsOf, tagTable, routesOf, menuRules, npmComponents, npmSource } = derived

/** The menu rules as the builds compile them in (`__LINGXI_MENU__`). */
export const menuDefine = JSON.stringify(menuRules(tools))

/** Each route's blurb by path, which the CDN build compiles into src/host/blurbs.ts (`__LINGXI_BLURBS__`). */
export const blurbsDefine = JSON.stringify(Object.fromEntries(tools.flatMap((t) => (t.routes ?? []).map((r) => [r.path, r.blurb]))))

/** A component's doc line for the npm entry: the `@summary` of its doc block. */
function summaryOf(folder, name) {
  const text = readFileSync(join(root, `src/widgets/${folder}/${folder}.tsx`), 'utf8')
  const block = new RegExp(`/\\*\\*((?:(?!\\*/)[\\s\\S])*)\\*/\\s*export function ${name}\\b`).exec(text)?.[1] ?? ''
  const summary = block.split('@summary')[1] ?? block
  return summary
    .split(/\n\s*\*\s*@/)[0]
    .replace(/\n\s*\*\s?/g, ' ')
    .trim()
}

/** The text of src/npm/tools.ts for the current list. */
export function npmEntry() {
  const docs = Object.fromEntries(npmComponents(tools).map((c) => [c.name, summaryOf(c.folder, c.name)]))
  return npmSource(tools, docs)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = join(root, 'src/npm/tools.ts')
  const text = npmEntry()
  // Rewritten only when the list changed: an unchanged source keeps its time (npm start compares them).
  if (!existsSync(target) || readFileSync(target, 'utf8') !== text) {
    writeFileSync(target, text)
    console.log('tools: wrote src/npm/tools.ts')
  }
}
