// @vitest-environment node
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// Files stay small (docs/adding-a-tool.md: "files stay under ~400 lines; split along what the code
// does"). The hard line is 450: a source file under src/, server/src/ or packages/shared/src/ that
// grows past it fails here and is split along its seams. Vendored and generated code is not ours
// to split: folders named vendor/ or generated/ are left out.

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
const TREES = ['src', 'server/src', 'packages/shared/src']
const LIMIT = 450
const SKIPPED = new Set(['vendor', 'generated', 'node_modules', 'dist'])

/** Every source file under `dir`, but in skipped folders. */
function sources(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) out.push(...sources(path))
    } else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name)) out.push(path)
  }
  return out
}

const lines = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)

/** The files of `files` over the limit, as "path: n lines". */
function tooLong(files: { path: string; text: string }[]): string[] {
  return files.filter((file) => lines(file.text) > LIMIT).map((file) => `${file.path}: ${lines(file.text)} lines`)
}

describe('file size', () => {
  it(`keeps every source file of src/, server/src/ and packages/shared/src/ at ${LIMIT} lines or fewer`, () => {
    const files = TREES.flatMap((tree) => sources(join(root, tree))).map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }))
    expect(files.length).toBeGreaterThan(300)
    expect(files.some((file) => file.path.startsWith('server/src/'))).toBe(true)
    expect(files.some((file) => /(^|\/)(vendor|generated)\//.test(file.path))).toBe(false)
    expect(tooLong(files)).toEqual([])
  })

  it('counts lines as an editor does, and would catch a file one line over', () => {
    expect(lines('a\nb\n')).toBe(2)
    expect(lines('a\nb')).toBe(2)
    const over = `${'x\n'.repeat(LIMIT + 1)}`
    expect(tooLong([{ path: 'src/big.ts', text: over }])).toEqual([`src/big.ts: ${LIMIT + 1} lines`])
    expect(tooLong([{ path: 'src/fits.ts', text: 'x\n'.repeat(LIMIT) }])).toEqual([])
  })
})
