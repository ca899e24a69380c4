// `npm run build`: CSS → CDN bundles and host site (rollup) → npm package (tsup) → server (tsup).
// Writes dist/.stamp last, which `npm start` compares with the sources to decide on a rebuild.
import { execSync } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { transformSync } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const run = (cmd, env = {}) => execSync(cmd, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } })
const step = (name, fn) => {
  const t = Date.now()
  fn()
  console.log(`build: ${name} ${((Date.now() - t) / 1000).toFixed(1)} s`)
}

const { elementsOf, tools } = await import('./tools.mjs')

/**
 * Writes the host page's preloads into dist/site/index.html, from the bundle's graph (dist/chunks.json,
 * written by rollup.config.mjs). The page is one file for every path, so:
 * - the host's own chunks (app.js and every chunk it imports statically) become
 *   `<link rel="modulepreload">`: fetched at once, not one level of imports after another;
 * - a JSON block, `#lingxi-preload`, lists for each chunk the host imports lazily (each tool's
 *   screen, the login and the profile) the chunks it needs beyond the host's, and for each route
 *   its screen's chunks: the host preloads them all together when it starts loading one (the
 *   site's CSP runs no inline script; a data block is not one).
 */
function writeHostPreloads({ screens, chunks }) {
  const closure = (files, seen = new Set()) => {
    for (const file of files) {
      if (seen.has(file)) continue
      seen.add(file)
      closure(chunks[file]?.imports ?? [], seen)
    }
    return seen
  }
  const host = closure(['app.js'])
  const lazy = {}
  for (const file of chunks['app.js'].dynamicImports) lazy[file] = [...closure([file])].filter((f) => !host.has(f))
  const routes = {}
  for (const tool of tools) {
    const [element] = tool.tag ? elementsOf([tool]) : []
    for (const route of tool.routes ?? []) if (screens[element?.file]) routes[route.path] = screens[element.file]
  }
  const page = join(root, 'dist/site/index.html')
  const links = [...host].map((file) => `<link rel="modulepreload" href="/cdn/${file}" />`).join('\n    ')
  const data = `<script type="application/json" id="lingxi-preload">${JSON.stringify({ routes, chunks: lazy })}</script>`
  const html = readFileSync(page, 'utf8')
  const marker = '<link rel="modulepreload" href="/cdn/app.js" />'
  if (!html.includes(marker)) throw new Error(`build: ${page} has no ${marker} to extend`)
  writeFileSync(page, html.replace(marker, `${links}\n    ${data}`))
}

rmSync(join(root, 'dist/cdn'), { recursive: true, force: true })
rmSync(join(root, 'dist/site'), { recursive: true, force: true })
/**
 * Marks the npm entry as client code for React Server Components (Next.js App Router): its
 * components use effects and shadow roots. A directive must be the file's first statement, which
 * a bundler's banner is not guaranteed to stay; the map gains the line it moved down by.
 */
function useClient(file) {
  const code = readFileSync(file, 'utf8')
  if (code.startsWith("'use client'")) return
  writeFileSync(file, `'use client';\n${code}`)
  const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'))
  map.mappings = `;${map.mappings}`
  writeFileSync(`${file}.map`, JSON.stringify(map))
}

step('css', () => run('npm run -s css'))
step('cdn + site', () => {
  // scripts/katex-once.mjs: mermaid's KaTeX import resolves to the maths chunk's KaTeX (one copy)
  run('npx rollup -c --silent --plugin ./scripts/katex-once.mjs', { NODE_ENV: 'production' })
  mkdirSync(join(root, 'dist/site'), { recursive: true })
  cpSync(join(root, 'src/host/public'), join(root, 'dist/site'), { recursive: true })
  // the page's classic script (theme.js), read before the first paint: minified, its comments stay in the source
  const theme = join(root, 'dist/site/theme.js')
  writeFileSync(theme, transformSync(readFileSync(theme, 'utf8'), { minify: true, target: 'es2020' }).code)
})
step('host page preloads', () => writeHostPreloads(JSON.parse(readFileSync(join(root, 'dist/chunks.json'), 'utf8'))))
// KaTeX's fonts, registered on the page by the maths chunk from <cdnBase>fonts/katex/ (never a CDN)
step('katex fonts', () => {
  const from = join(dirname(createRequire(import.meta.url).resolve('katex/package.json')), 'dist/fonts')
  const to = join(root, 'dist/cdn/fonts/katex')
  mkdirSync(to, { recursive: true })
  for (const file of readdirSync(from)) if (file.endsWith('.woff2')) copyFileSync(join(from, file), join(to, file))
})
// custom-elements.json, and the npm entry's components (src/npm/tools.ts), from the list of tools
step('manifest', () => {
  run('node scripts/manifest.mjs')
  run('node scripts/tools.mjs')
})
// `--no-npm` (npm start): everything the site serves, without the npm package it does not serve
if (!process.argv.includes('--no-npm'))
  step('npm', () => {
    run('npx tsup --silent')
    useClient(join(root, 'dist/npm/index.js'))
  })
step('server', () => run('npm run -s -w server build'))
writeFileSync(join(root, 'dist/.stamp'), new Date().toISOString())
