// @vitest-environment node
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import madge from 'madge'
import { beforeAll, describe, expect, it } from 'vitest'

// The shape of src/ (DESIGN.md, "Repository layout"): imports flow shared → tools → app, a tool
// never reaches into another tool's folder, and nothing imports in a circle. madge reads every
// import — static, dynamic (lazy screens) and type-only.

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
let graph: Record<string, string[]>
let cycles: string[][]

beforeAll(async () => {
  const result = await madge(join(root, 'src'), { fileExtensions: ['ts', 'tsx'], tsConfig: join(root, 'tsconfig.json') })
  graph = result.obj()
  cycles = result.circular()
}, 60_000)

/** Every import of src/ as [from, to], paths relative to src/. */
const edges = () => Object.entries(graph).flatMap(([from, deps]) => deps.map((to) => [from, to] as const))
const folder = (file: string) => /^widgets\/([^/]+)\//.exec(file)?.[1]

/** `from` → `to` pairs that break `rule`, as readable lines. */
function breaking(rule: (from: string, to: string) => boolean): string[] {
  return edges()
    .filter(([from, to]) => rule(from, to))
    .map(([from, to]) => `${from} → ${to}`)
}

describe('the shape of src/', () => {
  it('reads the whole tree', () => {
    expect(Object.keys(graph).length).toBeGreaterThan(200)
    expect(graph['host/app.tsx']).toContain('widgets/tools.ts')
  })

  it('has no import cycles', () => {
    expect(cycles.map((c) => c.join(' → '))).toEqual([])
  })

  it('keeps every tool out of every other tool’s folder (shared code goes to src/core or src/ui)', () => {
    expect(breaking((from, to) => folder(from) !== undefined && folder(to) !== undefined && folder(from) !== folder(to))).toEqual([])
  })

  it('keeps the list of tools out of the tools (it reaches every one of them)', () => {
    expect(breaking((from, to) => folder(from) !== undefined && to === 'widgets/tools.ts')).toEqual([])
  })

  it('keeps src/core free of everything else: it is what every tool shares', () => {
    expect(breaking((from, to) => from.startsWith('core/') && !to.startsWith('core/'))).toEqual([])
  })

  it('keeps src/ui free of the tools, the host and the entries', () => {
    expect(breaking((from, to) => from.startsWith('ui/') && /^(widgets|host|npm|loader)\//.test(to))).toEqual([])
  })

  it('keeps the tools free of the host and the entries (they compose the tools, not the reverse)', () => {
    expect(breaking((from, to) => from.startsWith('widgets/') && /^(host|npm|loader)\//.test(to))).toEqual([])
  })

  it('keeps the loader free of the tools’ code: its tag table is compiled in (scripts/tools.mjs)', () => {
    expect(breaking((from, to) => from === 'loader/loader.ts' && !to.startsWith('core/'))).toEqual([])
  })
})
