// `npm run dev`: the contributor loop. Builds the CDN bundles and the site once as a development
// build, starts the server from its TypeScript sources under `tsx watch`, then:
// - a change under src/ or packages/ regenerates the element stylesheets (scripts/build-css.mjs:
//   a new class may have appeared) and bundles again, incrementally (esbuild keeps what did not
//   change); reload the page once it prints "dev: site rebuilt";
// - a change to a file the server imports restarts the server (tsx watch).
// PORT, HOST, DATA_DIR etc. pass through, and a .env file is read as by `npm start`.
//
// The bundles are made by esbuild, in about a second, not by rollup (tens of seconds): the same
// entries (scripts/elements.mjs), React as preact/compat, each element registering its own
// stylesheet, the same constants (process.env.NODE_ENV = development, the loader's element list,
// the menu rules of the tools' manifests) — what rollup.config.mjs does, less the minifying and
// chunk tuning (keep the two in step: a constant rollup replaces and this does not is a
// ReferenceError in the page). So `npm run build` stays the reference (sizes, the browser suite);
// this removes dist/.stamp, so that the next `npm start` builds the production bundles again.
// A tool's manifest changed: the entries and constants are read again. Changed scripts/ or
// rollup.config.mjs? Restart it.
import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, watch } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { context } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
if (existsSync(join(root, '.env'))) process.loadEnvFile(join(root, '.env'))
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`
const node = (script) => execFileSync(process.execPath, [join(root, script)], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
const cdn = join(root, 'dist/cdn')

rmSync(join(root, 'dist/.stamp'), { force: true })
rmSync(cdn, { recursive: true, force: true })

/** React as preact/compat, as the CDN build ships it. */
const preact = {
  name: 'preact',
  setup(build) {
    const to = {
      react: 'preact/compat',
      'react-dom': 'preact/compat',
      'react-dom/client': 'preact/compat/client',
      'react/jsx-runtime': 'preact/jsx-runtime',
      'react/jsx-dev-runtime': 'preact/jsx-runtime'
    }
    build.onResolve(
      { filter: /^react(-dom)?(\/|$)/ },
      (args) => to[args.path] && build.resolve(to[args.path], { resolveDir: args.resolveDir, kind: args.kind })
    )
  }
}

/**
 * The elements, the bundles' entries and the menu rules, read afresh: the list of tools is compiled
 * when scripts/tools.mjs loads, so in a process of its own.
 */
function readTools() {
  const script = `const e = await import('./scripts/elements.mjs'); const t = await import('./scripts/tools.mjs').catch(() => ({})); process.stdout.write(JSON.stringify({ elements: e.elements, entries: e.entries, menu: t.menuDefine }))`
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }))
}

/** Each element's entry registers the stylesheet compiled for it (as rollup.config.mjs's elementStyles). */
const elementStyles = (elements) => ({
  name: 'element-styles',
  setup(build) {
    build.onLoad({ filter: /\.element\.ts$/ }, (args) => {
      const element = elements.find((e) => join(root, e.entry) === args.path)
      if (!element) return undefined
      const sheet = JSON.stringify(join(root, `src/styles/generated/${element.file}.ts`))
      const register = `import { css as __lxCss } from ${sheet};\nimport { registerCss as __lxRegisterCss } from ${JSON.stringify(join(root, 'src/ui/styles.ts'))};\n__lxRegisterCss(${JSON.stringify(element.tag)}, __lxCss);\n`
      return { contents: register + readFileSync(args.path, 'utf8'), loader: 'ts', resolveDir: dirname(args.path) }
    })
  }
})

const common = {
  absWorkingDir: root,
  bundle: true,
  target: 'es2020',
  jsx: 'automatic',
  jsxImportSource: 'react',
  loader: { '.json': 'json' },
  define: { 'process.env.NODE_ENV': '"development"' },
  sourcemap: true,
  charset: 'utf8',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true
}
/** The two incremental builds: the elements (ES modules sharing chunks) and the loader (a classic script). */
async function makeBundles() {
  const { elements, entries, menu } = readTools()
  const define = { ...common.define, ...(menu ? { __LINGXI_MENU__: menu } : {}) }
  const plugins = [preact, elementStyles(elements)]
  return [
    await context({
      ...common,
      define,
      plugins,
      entryPoints: Object.fromEntries(entries.map((e) => [e.file, join(root, e.entry)])),
      format: 'esm',
      splitting: true,
      outdir: cdn,
      entryNames: '[name]',
      chunkNames: 'chunks/[name]-[hash]'
    }),
    await context({
      ...common,
      define: { ...define, __LINGXI_ELEMENTS__: JSON.stringify(entries.map((e) => e.file)) },
      plugins,
      entryPoints: [join(root, 'src/loader/loader.ts')],
      format: 'iife',
      outfile: join(cdn, 'loader.js')
    })
  ]
}
let bundles = await makeBundles()
/** A tool's manifest, or the list of tools: the entries and constants come from them. */
const MANIFEST = /^src\/widgets\/([^/]+\/tool|tools|derive|manifest)\.ts$/

/** Copies what the site serves as it is: src/host/public, and KaTeX's fonts (as scripts/build.mjs). */
function copyStatic() {
  cpSync(join(root, 'src/host/public'), join(root, 'dist/site'), { recursive: true })
  const fonts = join(dirname(createRequire(import.meta.url).resolve('katex/package.json')), 'dist/fonts')
  const to = join(root, 'dist/cdn/fonts/katex')
  mkdirSync(to, { recursive: true })
  for (const file of readdirSync(fonts)) if (file.endsWith('.woff2') && !existsSync(join(to, file))) copyFileSync(join(fonts, file), join(to, file))
}

/** Bundles the loader and the elements (incrementally); drops the chunks no longer written. */
async function bundle() {
  const written = new Set()
  for (const result of await Promise.all(bundles.map((b) => b.rebuild())))
    for (const file of Object.keys(result.metafile.outputs)) written.add(join(root, file))
  const chunks = join(cdn, 'chunks')
  for (const file of readdirSync(chunks)) if (!written.has(join(chunks, file))) rmSync(join(chunks, file))
}

/** Everything the site needs from src/: stylesheets, bundles, the custom-elements manifest. */
async function buildSite() {
  const start = performance.now()
  node('scripts/build-css.mjs')
  const css = seconds(start)
  const bundling = performance.now()
  await bundle()
  const bundled = seconds(bundling)
  node('scripts/manifest.mjs')
  copyStatic()
  return `${seconds(start)} (css ${css}, bundles ${bundled})`
}

const first = performance.now()
node('src/ui/markdown/generate.mjs')
try {
  console.log(`dev: site built in ${await buildSite()}`)
} catch (error) {
  // a broken source at start: say so, and keep watching for the fix
  console.error(`dev: the site did not build: ${error.message}`)
}

// The server, from its sources, restarted by tsx when a file it imports changes.
const server = spawn(process.execPath, [createRequire(import.meta.url).resolve('tsx/cli'), 'watch', '--clear-screen=false', 'server/src/main.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { STATIC_ROOT: join(root, 'dist'), ...process.env }
})
console.log(`dev: watching src/ and packages/ (ready after ${seconds(first)}); the server restarts on its own changes`)

// Rebuilds one at a time: changes during a build make one more build after it.
const generated = /^src\/(styles\/generated|ui\/markdown\/vendor\/(prism|katex-css))/
let changed = new Set()
let timer
let building = false
async function rebuild() {
  if (building) return
  building = true
  while (changed.size > 0) {
    const files = [...changed]
    changed = new Set()
    const public_ = files.every((f) => f.startsWith('src/host/public/'))
    try {
      if (files.some((f) => MANIFEST.test(f))) {
        await Promise.all(bundles.map((b) => b.dispose()))
        bundles = await makeBundles()
      }
      if (public_) {
        copyStatic()
        console.log(`dev: ${files.join(', ')} copied`)
      } else console.log(`dev: site rebuilt in ${await buildSite()} after ${files.slice(0, 3).join(', ')}${files.length > 3 ? '…' : ''}`)
    } catch (error) {
      console.error(`dev: the site did not build: ${error.message}`)
    }
  }
  building = false
}
/**
 * Watches every folder under `dir`, each on its own (recursive fs.watch on Linux loses the files
 * editors replace when saving), and the folders made later; generated ones are left alone.
 */
function watchTree(dir) {
  const file = relative(root, dir)
  if (generated.test(file) || /(^|\/)(node_modules|\.[^/]*)$/.test(file)) return
  watched.get(dir)?.watcher.close()
  const watcher = watch(dir, (_event, name) => {
    if (!name) return
    const path = join(dir, name.toString())
    const changedFile = relative(root, path)
    if (generated.test(changedFile)) return
    const stat = existsSync(path) ? statSync(path) : undefined
    if (stat?.isDirectory()) {
      if (watched.get(path)?.ino !== stat.ino) watchTree(path)
      return
    }
    if (!SOURCE.test(changedFile) || /\.test\.tsx?$/.test(changedFile)) return
    changed.add(changedFile)
    clearTimeout(timer)
    timer = setTimeout(rebuild, 100)
  })
  watched.set(dir, { watcher, ino: statSync(dir).ino })
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) watchTree(join(dir, entry.name))
}
const SOURCE = /\.(tsx?|mts|mjs|js|json|css|html|svg|png|ico|txt)$/
/** Watched folders: their watcher and inode (a folder made again under the same name is watched again). */
const watched = new Map()
for (const dir of ['src', 'packages']) if (existsSync(join(root, dir))) watchTree(join(root, dir))

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal))
server.on('exit', (code) => process.exit(code ?? 0))
