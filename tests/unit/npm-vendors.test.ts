// @vitest-environment node
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'

// KaTeX and mermaid are optional peers loaded at run time (issue 16): the npm build's plugin
// (scripts/npm-vendors.mjs) leaves no `katex` or `mermaid` import for an app's bundler to resolve.
// The package's code is built here by tsup with the package's own config (without .d.ts), then the
// React example is bundled against it with a resolver that has no katex and no mermaid, as an app
// that installed only `lingxi`, react and react-dom. After `npm run build`, the real dist/npm and
// the CDN's vendor facades are checked too.

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
/** A bare import of either library, static, dynamic or required. */
const BARE = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["'](?:katex|mermaid)(?:\/[^"']*)?["']/
/** Code of the libraries themselves: KaTeX's parser error, mermaid's error diagram. */
const LIBRARY_CODE = /KaTeX parse error|Syntax error in text/
/** The loader's URL template, as esbuild prints it. */
const URL_TEMPLATE = ['vendor/$', '{name}.js'].join('')

const work = mkdtempSync(join(tmpdir(), 'lingxi-npm-vendors-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/**
 * The npm package built by tsup with the package's own config (tsup.config.ts) into `out`; with
 * `plugin: false`, without the npm-vendors plugin, so katex and mermaid stay external as tsup leaves
 * peers (the build before issue 16).
 */
async function buildPackage(out: string, plugin: boolean): Promise<Map<string, string>> {
  const { build: tsup } = await import('tsup')
  const config = (await import('../../tsup.config')).default as Record<string, unknown>
  const without = plugin ? {} : { esbuildPlugins: [], noExternal: [] }
  await tsup({ ...config, ...without, outDir: out, dts: false, sourcemap: false, silent: true, clean: false })
  return new Map(readdirSync(out).map((file) => [file, readFileSync(join(out, file), 'utf8')]))
}

/** An app's resolver where katex and mermaid are not installed. */
const notInstalled: Plugin = {
  name: 'no-katex-no-mermaid',
  setup(b) {
    b.onResolve({ filter: /^(katex|mermaid)(\/|$)/ }, (args) => ({ errors: [{ text: `Can't resolve '${args.path}' (not installed)` }] }))
  }
}

/** Bundles the React example with `lingxi` = the package built in `pkgDir`; returns the error text, '' when it built. */
async function buildApp(pkgDir: string, out: string): Promise<string> {
  try {
    await build({
      entryPoints: { app: join(root, 'examples/react-app/src/main.tsx') },
      outdir: out,
      bundle: true,
      splitting: true,
      format: 'esm',
      target: 'es2020',
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
      alias: { lingxi: join(pkgDir, 'index.js') },
      // react, react-dom and lingxi's own dependencies as an app installs them (katex and mermaid refused below)
      nodePaths: [join(root, 'node_modules')],
      plugins: [notInstalled],
      logLevel: 'silent'
    })
    return ''
  } catch (error) {
    return String((error as Error).message)
  }
}

describe('npm package without katex and mermaid (issue 16)', () => {
  let files: Map<string, string>
  const pkgDir = join(work, 'npm')

  beforeAll(async () => {
    files = await buildPackage(pkgDir, true)
  }, 120_000)

  it('leaves no bare katex or mermaid import, and none of their code, in any emitted file', () => {
    expect(files.size).toBeGreaterThan(5)
    for (const [file, code] of files) {
      expect(BARE.test(code), file).toBe(false)
      expect(LIBRARY_CODE.test(code), file).toBe(false)
    }
  })

  it('imports each library from a URL that bundlers leave alone (webpack, Turbopack, Vite)', () => {
    const loader = [...files.values()].find((code) => code.includes(URL_TEMPLATE))
    expect(loader).toBeDefined()
    const call = /import\(\s*((?:\/\*[^*]*\*\/\s*)+)vendorUrl\(name\)\s*\)/.exec(loader ?? '')
    expect(call?.[1]).toContain('webpackIgnore: true')
    expect(call?.[1]).toContain('turbopackIgnore: true')
    expect(call?.[1]).toContain('@vite-ignore')
    // the maths and diagram renderers read what the loader loaded
    const renderers = [...files.values()].filter((code) => /var \w+ = vendors\.(katex|mermaid);/.test(code))
    expect(renderers).toHaveLength(2)
  })

  it('an app without katex and mermaid installed builds against it (and did not before)', async () => {
    expect(await buildApp(pkgDir, join(work, 'app'))).toBe('')
    const app = readdirSync(join(work, 'app')).map((f) => readFileSync(join(work, 'app', f), 'utf8'))
    // the run-time import went through as it was written
    expect(app.some((code) => code.includes(URL_TEMPLATE) && code.includes('webpackIgnore: true'))).toBe(true)
    // the same app against the package as it was built before: its bundler stops on the peers
    const before = join(work, 'npm-before')
    const old = await buildPackage(before, false)
    expect([...old.values()].some((code) => BARE.test(code))).toBe(true)
    expect(await buildApp(before, join(work, 'app-before'))).toMatch(/Can't resolve '(katex|mermaid)/)
  }, 120_000)

  const built = join(root, 'dist/npm')
  it.skipIf(!existsSync(join(built, 'index.js')))('the built dist/npm has no bare katex or mermaid import either', () => {
    for (const file of readdirSync(built).filter((f) => f.endsWith('.js'))) {
      const code = readFileSync(join(built, file), 'utf8')
      expect(BARE.test(code), file).toBe(false)
      expect(LIBRARY_CODE.test(code), file).toBe(false)
    }
  })

  const vendor = join(root, 'dist/cdn/vendor')
  it.skipIf(!existsSync(vendor))('the CDN build serves each library at a stable URL: a facade of its hashed chunk', () => {
    for (const [name, marker] of [
      ['katex', 'KaTeX parse error'],
      ['mermaid', 'Syntax error in text']
    ] as const) {
      const facade = readFileSync(join(vendor, `${name}.js`), 'utf8')
      const target = /^export\{default\}from"\.\.\/(chunks\/[\w.-]+\.js)";\n$/.exec(facade)?.[1]
      expect(target, name).toBeDefined()
      const chunk = readFileSync(join(root, 'dist/cdn', target ?? ''), 'utf8')
      expect(chunk).toContain(marker)
      expect(chunk).toMatch(/export\{[^}]*\bas default\b/)
    }
  })
})
