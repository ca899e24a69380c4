// `npm run size`: gzip sizes of what a browser downloads, checked against the budgets of DESIGN.md.
// A page's cost = the loader + an element's entry + every chunk it imports statically (dynamic
// imports, such as lazy route screens, are paid later and are listed apart).
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cdn = join(root, 'dist/cdn')
if (!existsSync(join(cdn, 'loader.js'))) {
  console.error('size: dist/cdn is missing — run `npm run build` first')
  process.exit(1)
}

const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length

function staticGraph(entry, seen = new Set()) {
  if (seen.has(entry)) return seen
  seen.add(entry)
  const code = readFileSync(entry, 'utf8')
  for (const m of code.matchAll(/(?:from|import)\s*["'](\.{1,2}\/[^"']+)["']/g)) staticGraph(join(dirname(entry), m[1]), seen)
  return seen
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`
const loader = join(cdn, 'loader.js')
const rows = []
let failed = false
function check(name, files, budget) {
  const total = [...files].reduce((sum, f) => sum + gz(f), 0)
  const ok = budget === undefined || total <= budget
  if (!ok) failed = true
  rows.push([name, kb(total), budget ? kb(budget) : '—', budget ? (ok ? 'ok' : 'OVER') : '', [...files].map((f) => relative(join(root, 'dist'), f)).join(' ')])
}

check('loader', [loader], 3 * 1024)
const site = join(root, 'dist/site')
check('host first screen', new Set([join(site, 'index.html'), join(site, 'site.css'), loader, ...staticGraph(join(cdn, 'app.js'))]), 60 * 1024)
if (existsSync(join(cdn, 'chat.js'))) check('partner page with <lingxi-chat>', new Set([loader, ...staticGraph(join(cdn, 'chat.js'))]), 45 * 1024)
for (const el of ['login', 'profile', 'toaster']) check(`<lingxi-${el}> alone`, new Set([loader, ...staticGraph(join(cdn, `${el}.js`))]))

const width = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length)))
for (const r of rows) console.log(`${r[0].padEnd(width[0])}  ${r[1].padStart(width[1])}  budget ${r[2].padStart(width[2])}  ${r[3].padEnd(width[3])}  ${r[4]}`)
if (failed) {
  console.error('size: over budget')
  process.exit(1)
}
