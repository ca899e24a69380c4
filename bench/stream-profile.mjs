// Reads the .cpuprofile files that `npm run bench:stream -- --cpu-prof <dir>` leaves and prints,
// for the server's main thread and each worker, self time by package and the inclusive time of
// the heaviest functions (a function's own samples and those of everything it called), so that a
// per-delta cost can be traced to the Lingxi code that causes it. A tool, not a benchmark.
// Usage: node bench/stream-profile.mjs <dir> [--top 30] [--match server/dist]
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { flags, table } from './lib.mjs'

const args = flags()
const dir = process.argv[2]
const top = Number(args.value('top', 30))
const match = String(args.value('match', ''))

for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'))
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const self = new Map()
  const inclusive = new Map()
  let total = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0
    total += us
    let id = profile.samples[i]
    const leaf = byId.get(id).callFrame
    self.set(where(leaf), (self.get(where(leaf)) ?? 0) + us)
    const seen = new Set()
    while (id !== undefined) {
      const name = label(byId.get(id).callFrame)
      if (!seen.has(name)) {
        seen.add(name)
        inclusive.set(name, (inclusive.get(name) ?? 0) + us)
      }
      id = parent.get(id)
    }
  }
  const pct = (us) => `${((100 * us) / total).toFixed(1)} %`
  const sorted = (map, filter = () => true) =>
    [...map]
      .filter(([name]) => filter(name))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
  console.log(`\n${file}: ${(total / 1e6).toFixed(1)} s sampled`)
  console.log(table([['self, by package', 'share'], ...sorted(self).map(([n, us]) => [n, pct(us)])]))
  const filter = (name) => !name.startsWith('(') && (!match || name.includes(match))
  console.log(table([['inclusive, by function', 'share'], ...sorted(inclusive, filter).map(([n, us]) => [n.slice(0, 100), pct(us)])]))
}

function label({ functionName, url, lineNumber }) {
  return `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`
}

function where({ url, functionName }) {
  if (url === '') return functionName.startsWith('(') ? functionName : `native: ${functionName}`
  if (url.startsWith('wasm://')) return 'pglite (wasm)'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1]
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0]}`
  if (url.includes('/server/dist/')) return `lingxi ${url.split('/').pop()}`
  return url
}
