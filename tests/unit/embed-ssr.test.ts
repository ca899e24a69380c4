// @vitest-environment node
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createElement as h } from 'react'
import { beforeAll, describe, expect, it } from 'vitest'

// The npm package as a server-side renderer meets it: built by tsup with the package's own config
// (what dist/npm/index.js is), imported in Node with no DOM, and rendered with react-dom/server.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
// Inside the repository, so the package's externals (react, nanostores…) resolve as they would for an app.
const out = join(root, 'node_modules/.cache/lingxi-ssr-test')
type Lingxi = typeof import('../../src/npm/index')
let lingxi: Lingxi

/** An app's own component, reading the package's hooks. */
function Who() {
  const user = lingxi.useUser()
  const menu = lingxi.useMenu()
  return h('p', { id: 'who' }, `${user ? user.phone : '未登录'} · ${menu.length}`)
}

beforeAll(async () => {
  const { build } = await import('tsup')
  const config = (await import('../../tsup.config')).default as Record<string, unknown>
  rmSync(out, { recursive: true, force: true })
  await build({ ...config, outDir: out, dts: false, sourcemap: false, silent: true, clean: false })
  lingxi = (await import(pathToFileURL(join(out, 'index.js')).href)) as Lingxi
}, 120_000)

describe('the npm package without a DOM', () => {
  it('imports without touching window or document', () => {
    expect(typeof window).toBe('undefined')
    expect(typeof document).toBe('undefined')
    expect(typeof lingxi.Chat).toBe('function')
    expect(typeof lingxi.useUser).toBe('function')
    expect(lingxi.$user.get()).toBeNull()
  })

  it('renders every component to a string: empty shadow hosts, filled on the client', async () => {
    const { renderToString } = await import('react-dom/server')
    const html = renderToString(
      h(
        lingxi.LingxiProvider,
        { api: 'https://ai.example.com' },
        h(Who),
        h(lingxi.Chat, { className: 'chat' }),
        h(lingxi.Chat, { mode: 'bubble', greeting: '你好' }),
        h(lingxi.LoginDialog),
        h(lingxi.Profile),
        h(lingxi.Login, { button: true }),
        h(lingxi.Toaster)
      )
    )
    expect(html).toContain('<p id="who">未登录 · ')
    expect(html.match(/data-lingxi="chat"/g)).toHaveLength(2)
    for (const name of ['login-dialog', 'profile', 'login', 'toaster']) expect(html).toContain(`data-lingxi="${name}"`)
    expect(html).toContain('class="chat"')
    expect(typeof window).toBe('undefined')
  })
})

describe('tree-shaking of the npm entry (issue 16)', () => {
  /**
   * An app's bundle (minified, split like an app's) exporting `names` from the package: the text of
   * what a browser loads with it — the entry and its static imports, not the lazy chunks (a
   * widget's views, loaded when shown).
   */
  async function app(names: string): Promise<string[]> {
    const { build } = await import('esbuild')
    const result = await build({
      metafile: true,
      stdin: { contents: `export { ${names} } from ${JSON.stringify(join(out, 'index.js'))}`, resolveDir: root, loader: 'js' },
      bundle: true,
      splitting: true,
      outdir: join(out, '.app'),
      write: false,
      minify: true,
      format: 'esm',
      platform: 'browser',
      packages: 'external',
      logLevel: 'silent'
    })
    const outputs = result.metafile!.outputs
    const entry = Object.keys(outputs).find((k) => outputs[k]!.entryPoint === '<stdin>')!
    const loaded = new Set<string>()
    const visit = (file: string) => {
      if (loaded.has(file)) return
      loaded.add(file)
      for (const i of outputs[file]!.imports) if (i.kind === 'import-statement' && !i.external) visit(i.path)
    }
    visit(entry)
    return result.outputFiles.filter((f) => [...loaded].some((k) => f.path.endsWith(k))).map((f) => f.text)
  }
  const gzip = async (texts: string[]) => {
    const { gzipSync } = await import('node:zlib')
    return texts.reduce((n, t) => n + gzipSync(t).length, 0)
  }

  it('ships only the chat for `import { Chat }`: none of the other widgets, well under half of everything', async () => {
    const chat = await app('Chat')
    const all = await app('Chat, Painting, Music, Admin, Orders, HotNews, UserCenter, ImageHost, Roles')
    // Strings of the image-host and hot-news code (esbuild writes other text as \\u escapes).
    const markers = ['upload-job', 'stale-notice']
    const has = (files: string[]) => markers.filter((m) => files.some((f) => f.includes(m)))
    expect(has(all)).toEqual(markers)
    expect(has(chat)).toEqual([])
    const [chatBytes, allBytes] = [await gzip(chat), await gzip(all)]
    console.info(`npm bundle, gzip: { Chat } ${chatBytes} B, every widget ${allBytes} B`)
    expect(chatBytes).toBeLessThan(allBytes / 2)
  }, 60_000)
})

describe('the package manifest', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

  it('exports ESM with types first, for React 18 and 19 as peers', () => {
    expect(pkg.type).toBe('module')
    expect(Object.keys(pkg.exports['.'])[0]).toBe('types')
    expect(pkg.exports['.']).toMatchObject({ types: './dist/npm/index.d.ts', import: './dist/npm/index.js' })
    expect(pkg.exports['./core']).toMatchObject({ types: './dist/npm/core.d.ts', import: './dist/npm/core.js' })
    expect(pkg.exports['./custom-elements.json']).toBe('./dist/cdn/custom-elements.json')
    expect(pkg.types).toBe('./dist/npm/index.d.ts')
    expect(pkg.peerDependencies).toMatchObject({ react: '^18.0.0 || ^19.0.0', 'react-dom': '^18.0.0 || ^19.0.0' })
    expect(pkg.dependencies.react).toBeUndefined()
  })

  it('leaves maths and diagrams to optional peers, loaded only by a reply that needs them (issue 16)', () => {
    // `npm install lingxi` does not pull mermaid (89 MB) and KaTeX for a chat bubble: an app that
    // wants them installs them; without them a formula or diagram shows as its source.
    for (const name of ['katex', 'mermaid']) {
      expect(pkg.dependencies[name], name).toBeUndefined()
      expect(pkg.peerDependencies[name], name).toBeTruthy()
      expect(pkg.peerDependenciesMeta[name], name).toEqual({ optional: true })
      // the repository itself builds the CDN bundles with them
      expect(pkg.devDependencies[name], name).toBe(pkg.peerDependencies[name])
    }
    const chunks = readdirSync(out).filter((f) => f.endsWith('.js'))
    const importers = (name: string) => chunks.filter((f) => new RegExp(`from ['"]${name}[/'"]`).test(readFileSync(join(out, f), 'utf8')))
    // imported by no chunk at all: an app's bundler would resolve them at build time; they load at
    // run time from the Lingxi server or the app's own copy (src/npm/lazy.ts, tests/unit/npm-vendors.test.ts)
    expect(chunks.length).toBeGreaterThan(0)
    expect([...importers('katex'), ...importers('mermaid')]).toEqual([])
  })

  it('marks the CDN bundles (they define elements) as having side effects, and the npm build as free of them', () => {
    expect(pkg.sideEffects).toContain('./dist/cdn/**')
    // The other entries are for this repository's own CDN build (rollup's node-resolve reads this
    // field for the sources too): everything but src/core, which is side-effect free by design.
    const shipped = pkg.sideEffects.filter((p: string) => p.startsWith('./dist/'))
    expect(shipped).toEqual(['./dist/cdn/**'])
    expect(pkg.sideEffects.some((p: string) => p.includes('src/core') || p.includes('src/npm') || p.includes('dist/npm'))).toBe(false)
    for (const dir of ['host', 'loader', 'ui', 'widgets']) expect(pkg.sideEffects).toContain(`./src/${dir}/**`)
  })

  it('ships dist only (README and LICENSE come along), and the build writes what the exports name', () => {
    expect(pkg.files).toEqual(['dist/npm', 'dist/cdn', '!dist/cdn/**/*.map'])
    expect(existsSync(join(root, 'LICENSE'))).toBe(true)
    expect(existsSync(join(out, 'index.js')) && existsSync(join(out, 'core.js'))).toBe(true)
  })
})
