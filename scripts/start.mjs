// `npm start`: builds when dist/ is missing or older than the sources, then runs the server
// (site + CDN bundles + API) in this process's place. PORT, HOST, DATA_DIR etc. pass through.
import { execSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// A .env file fills in what the shell did not set (variables already set win).
if (existsSync(join(root, '.env'))) process.loadEnvFile(join(root, '.env'))
const stamp = join(root, 'dist/.stamp')
const sources = ['src', 'server/src', 'server/config', 'server/drizzle', 'scripts', 'package.json', 'server/package.json', 'rollup.config.mjs', 'tsup.config.ts', 'server/tsup.config.ts']

function newest(path) {
  if (!existsSync(path)) return 0
  const s = statSync(path)
  if (!s.isDirectory()) return s.mtimeMs
  return Math.max(s.mtimeMs, ...readdirSync(path).filter((n) => n !== 'generated.ts').map((n) => newest(join(path, n))))
}

const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0
const changed = Math.max(...sources.map((p) => newest(join(root, p))))
if (!built || changed > built) {
  console.error(built ? 'lingxi: sources changed since the last build, rebuilding…' : 'lingxi: first start, building…')
  execSync('node scripts/build.mjs', { cwd: root, stdio: ['ignore', 2, 2] })
}

const child = spawn(process.execPath, [join(root, 'server/dist/main.js')], {
  cwd: root,
  stdio: 'inherit',
  env: { STATIC_ROOT: join(root, 'dist'), ...process.env },
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
