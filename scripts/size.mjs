// `npm run size`: gzip sizes of what a browser downloads, checked against the budgets of DESIGN.md.
// A page's cost = the loader + an element's entry + every chunk it imports statically (dynamic
// imports, such as lazy route screens, are paid later and are listed apart). The chat bubble's
// budget covers opening it and rendering a markdown reply too: its row follows the dynamic imports
// of the conversation and of the markdown renderer; code highlighting, loaded only for a reply with
// code, is a row apart. The same budget measured in Chromium (tests/e2e/embed-budget.spec.ts
// writes dist/size-embed.json) is printed and checked as well. Every element of the list of tools
// (src/widgets/tools.ts, through scripts/elements.mjs) gets a row of its own.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { elements } from './elements.mjs'

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

/** The static graph plus the chunks of the dynamic imports (`import("./x.js")`) whose file matches `wanted`. */
function withDynamic(files, wanted) {
  const all = new Set(files)
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)) {
      const target = join(dirname(file), m[1])
      if (wanted.test(target) && !all.has(target)) for (const f of withDynamic(staticGraph(target), wanted)) all.add(f)
    }
  }
  return all
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
const chat = elements.find((e) => e.tag === 'lingxi-chat')?.file
if (chat && existsSync(join(cdn, `${chat}.js`))) {
  const shown = new Set([loader, ...staticGraph(join(cdn, `${chat}.js`))])
  check('<lingxi-chat mode="bubble"> shown', shown)
  const opened = withDynamic(shown, /chat-view|markdown|renderer/)
  check('… opened, markdown reply (files)', opened, 45 * 1024)
  // Prism and the JavaScript grammar (it extends clike), as for the e2e suite's reply with code
  check('… and a reply with code (files)', withDynamic(opened, /highlight|javascript|clike/))
}
// Each other element as a page that embeds only it downloads it (its lazy parts are paid later).
for (const { tag, file } of elements) {
  if (file !== 'app' && file !== chat) check(`<${tag}> alone`, new Set([loader, ...staticGraph(join(cdn, `${file}.js`))]))
}

// Measured in Chromium by the e2e suite (transferred gzip bytes), when it ran on this build.
const measured = join(root, 'dist/size-embed.json')
if (existsSync(measured)) {
  const m = JSON.parse(readFileSync(measured, 'utf8'))
  const stale = statSync(measured).mtimeMs < statSync(loader).mtimeMs
  const row = (name, bytes, budget) => {
    const ok = bytes <= budget
    if (!ok && !stale) failed = true
    rows.push([
      name,
      kb(bytes),
      kb(budget),
      stale ? 'stale' : ok ? 'ok' : 'OVER',
      stale ? 'older than dist/cdn: rerun `npx playwright test embed-budget`' : 'measured in Chromium'
    ])
  }
  row('loader (Chromium)', m.loader, m.budgets.loader)
  row('bubble + open + markdown reply (Chromium)', m.returningVisitor, m.budgets.embed)
  // ceilings, outside the budget: the login dialog of a first visit, highlighting for code
  row('… first visit, with the login (Chromium)', m.firstVisitWithLogin, m.budgets.firstVisit ?? m.budgets.embed)
  if (m.withCodeReply !== undefined) row('… then a reply with code (Chromium)', m.withCodeReply, m.budgets.codeReply)
}

const width = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length)))
for (const r of rows) console.log(`${r[0].padEnd(width[0])}  ${r[1].padStart(width[1])}  budget ${r[2].padStart(width[2])}  ${r[3].padEnd(width[3])}  ${r[4]}`)
if (failed) {
  console.error('size: over budget')
  process.exit(1)
}
