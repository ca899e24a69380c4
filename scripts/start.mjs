// `npm start`: builds what the site serves when it is missing or older than its sources, then runs
// the server (site + CDN bundles + API) in this process's place. PORT, HOST, DATA_DIR etc. pass
// through. The npm package (dist/npm) is not built here: the site does not serve it
// (`npm run build` builds everything). Only the server's sources changed: only the server is rebuilt.
import { execSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// A .env file fills in what the shell did not set (variables already set win).
if (existsSync(join(root, '.env'))) process.loadEnvFile(join(root, '.env'))
// Written last by scripts/build.mjs (and here after a server-only rebuild); `npm run dev` removes it.
const stamp = join(root, 'dist/.stamp')
const shared = ['packages', 'package.json']
const parts = {
  site: {
    sources: ['src', 'scripts', 'rollup.config.mjs', ...shared],
    outputs: ['dist/cdn/loader.js', 'dist/cdn/custom-elements.json', 'dist/site/index.html']
  },
  server: {
    sources: ['server/src', 'server/drizzle', 'server/scripts', 'server/package.json', 'server/tsup.config.ts', ...shared],
    outputs: ['server/dist/main.js']
  }
}

/** The newest modification time under `path` (0 when missing); generated files do not count. */
function newest(path) {
  if (!existsSync(path)) return 0
  const s = statSync(path)
  if (!s.isDirectory()) return s.mtimeMs
  return Math.max(
    s.mtimeMs,
    ...readdirSync(path)
      .filter((n) => n !== 'node_modules' && n !== 'generated' && n !== 'generated.ts')
      .map((n) => newest(join(path, n)))
  )
}

const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0
const stale = (part) => !built || part.outputs.some((f) => !existsSync(join(root, f))) || Math.max(...part.sources.map((p) => newest(join(root, p)))) > built
const build = (cmd) => execSync(cmd, { cwd: root, stdio: ['ignore', 2, 2] })

if (stale(parts.site)) {
  console.error(built ? 'lingxi: sources changed since the last build, rebuilding…' : 'lingxi: first start, building the site and the server…')
  build('node scripts/build.mjs --no-npm')
} else if (stale(parts.server)) {
  console.error('lingxi: server sources changed since the last build, rebuilding the server…')
  build('npm run -s -w server build')
  writeFileSync(stamp, new Date().toISOString())
}

const child = spawn(process.execPath, [join(root, 'server/dist/main.js')], {
  cwd: root,
  stdio: 'inherit',
  env: { STATIC_ROOT: join(root, 'dist'), ...process.env }
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
