// Builds the example into ./dist with esbuild: `node build.mjs` (or `npm run example:react` at the
// repository root). `lingxi` resolves as a package: from node_modules when it was installed
// (`npm install` here, or a tarball from `npm pack`), else from the repository's own build
// (dist/npm, after `npm run build`). `--root <dir>` builds a copy of this folder placed elsewhere
// (its src/, index.html and node_modules/); `--out <dir>` writes somewhere else than <root>/dist.
import { build } from 'esbuild'
import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const root = resolve(flag('--root') ?? here)
const out = resolve(flag('--out') ?? join(root, 'dist'))
const installed = existsSync(join(root, 'node_modules/lingxi/package.json'))
const repoBuild = join(here, '../../dist/npm/index.js')
if (!installed && !existsSync(repoBuild)) throw new Error('lingxi is neither installed nor built: run `npm run build` at the repository root first')

mkdirSync(out, { recursive: true })
await build({
  absWorkingDir: root,
  entryPoints: { app: join(root, 'src/main.tsx') },
  outdir: out,
  bundle: true,
  format: 'esm',
  splitting: true,
  minify: true,
  target: 'es2020',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  // React and lingxi's dependencies resolve from the same node_modules: one React for both.
  ...(installed ? {} : { alias: { lingxi: repoBuild } }),
  // lingxi's chunks import each other's helpers bare; they are side-effect free, as declared.
  logOverride: { 'ignored-bare-import': 'silent' },
  logLevel: 'warning'
})
copyFileSync(join(root, 'index.html'), join(out, 'index.html'))
console.log(`react example: ${out} (lingxi ${installed ? 'installed in node_modules' : 'from the repository build'})`)
