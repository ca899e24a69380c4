import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'

// The import rules of the server (docs/decisions/0013-tool-modules.md), checked on the real graph
// by madge: no circles, tools never import each other, shared code never imports a tool (but the
// composition roots, which name them), and nothing reaches into the SDK's source.

interface Madge {
  obj(): Record<string, string[]>
  circular(): string[][]
  warnings(): { skipped: string[] }
}
const madge = createRequire(import.meta.url)('madge') as (path: string, config: Record<string, unknown>) => Promise<Madge>

const server = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const src = join(server, 'src')

/**
 * Files outside modules/ that may import modules: they compose the app, the operator CLI, and the
 * wire types the SDK imports (type-only) from every tool.
 */
const ROOTS = ['app.ts', 'admin.ts', 'admin/', 'wire.ts']

let graph: Record<string, string[]>
let circles: string[][]
beforeAll(async () => {
  // Type-only imports count: a circle of types is still a circle to read and to build.
  const result = await madge(src, { fileExtensions: ['ts'], tsConfig: join(server, 'tsconfig.json'), detectiveOptions: { ts: { skipTypeImports: false } } })
  graph = result.obj()
  circles = result.circular()
}, 60_000)

const moduleOf = (file: string) => /^modules\/([^/]+)\//.exec(file)?.[1]

describe('the server import graph', () => {
  it('sees the whole source tree', () => {
    expect(Object.keys(graph)).toContain('app.ts')
    expect(Object.keys(graph)).toContain('modules/module.ts')
    expect(Object.keys(graph).length).toBeGreaterThan(100)
  })

  it('has no circles', () => {
    expect(circles.map((circle) => circle.join(' > '))).toEqual([])
  })

  it('keeps modules apart: a module imports its own folder, modules/module.ts and shared code only', () => {
    const crossings: string[] = []
    for (const [file, deps] of Object.entries(graph)) {
      const own = moduleOf(file)
      if (!own) continue
      for (const dep of deps) {
        const other = moduleOf(dep)
        if (other && other !== own) crossings.push(`${file} -> ${dep}`)
        if (dep === 'modules/index.ts') crossings.push(`${file} -> ${dep}`)
      }
    }
    expect(crossings).toEqual([])
  })

  it('keeps shared code free of modules, but for the composition roots', () => {
    const reaching: string[] = []
    for (const [file, deps] of Object.entries(graph)) {
      if (file.startsWith('modules/') || ROOTS.some((root) => file === root || (root.endsWith('/') && file.startsWith(root)))) continue
      for (const dep of deps) if (dep.startsWith('modules/') && dep !== 'modules/module.ts') reaching.push(`${file} -> ${dep}`)
    }
    expect(reaching).toEqual([])
  })

  it('names every module folder once in the module list', () => {
    const folders = readdirSync(join(src, 'modules'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `modules/${entry.name}/index.ts`)
    expect([...(graph['modules/index.ts'] ?? [])].filter((dep) => dep !== 'modules/module.ts').sort()).toEqual(folders.sort())
  })
})

/** Every relative specifier of a file: static imports and exports, import(), vi.mock(). */
function specifiers(text: string): string[] {
  const found: string[] = []
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bvi\.(?:do)?mock\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g)) found.push(match[2]!)
  return found
}

function sources(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'data') continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...sources(path))
    else if (/\.(ts|mts|mjs|js)$/.test(entry.name)) out.push(path)
  }
  return out
}

describe('the package boundary', () => {
  it('nothing in server/ imports a file outside it (the SDK shares code as the @lingxi/shared package)', () => {
    const files = sources(server)
    expect(files.length).toBeGreaterThan(100)
    const outside: string[] = []
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), spec)
        if (target !== server && !target.startsWith(server + sep)) outside.push(`${relative(server, file)} -> ${spec}`)
      }
    }
    expect(outside).toEqual([])
  })

  it('the scan would catch a reach into the SDK', () => {
    // Built at run time, so this file's own text holds no such import.
    const sdk = ['..', '..', '..', 'src', 'core', 'mj-prompt.js'].join('/')
    expect(specifiers(`import { parsePrompt } from '${sdk}'`)).toEqual([sdk])
    expect(specifiers(`vi.mock('${sdk}', () => ({}))\nconst m = await import('${sdk}')`)).toEqual([sdk, sdk])
  })
})
