// `npm run build`: CSS → CDN bundles and host site (rollup) → npm package (tsup) → server (tsup).
// Writes dist/.stamp last, which `npm start` compares with the sources to decide on a rebuild.
import { execSync } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const run = (cmd, env = {}) => execSync(cmd, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } })
const step = (name, fn) => {
  const t = Date.now()
  fn()
  console.log(`build: ${name} ${((Date.now() - t) / 1000).toFixed(1)} s`)
}

rmSync(join(root, 'dist/cdn'), { recursive: true, force: true })
rmSync(join(root, 'dist/site'), { recursive: true, force: true })
step('css', () => run('npm run -s css'))
step('cdn + site', () => {
  run('npx rollup -c --silent', { NODE_ENV: 'production' })
  mkdirSync(join(root, 'dist/site'), { recursive: true })
  cpSync(join(root, 'src/host/public'), join(root, 'dist/site'), { recursive: true })
})
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
if (!process.argv.includes('--no-npm')) step('npm', () => run('npx tsup --silent'))
step('server', () => run('npm run -s -w server build'))
writeFileSync(join(root, 'dist/.stamp'), new Date().toISOString())
